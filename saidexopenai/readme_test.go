package saidexopenai_test

import (
	"maps"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/readmecheck"
)

var (
	docImports = map[string]string{
		"context":      "context",
		"errors":       "errors",
		"fmt":          "fmt",
		"openai":       "github.com/openai/openai-go/v3",
		"responses":    "github.com/openai/openai-go/v3/responses",
		"saidex":       "github.com/saidex/saidex-go",
		"saidexopenai": "github.com/saidex/saidex-go/saidexopenai",
		"tools":        "github.com/tmc/langchaingo/tools",
	}
	docGivens = map[string]string{
		"ctx":        "context.Context",
		"client":     "openai.Client",
		"node":       "*saidex.ToolNode",
		"g":          "*saidexopenai.Guard",
		"params":     "openai.ChatCompletionNewParams",
		"completion": "*openai.ChatCompletion",
		"weather":    "saidex.Tool",
		"run":        "func(name, arguments string) (string, error)",
	}
)

// TestDocSnippetsTypeCheck type-checks the Go snippets of docs/openai.md
// against the real packages, as the body of a function whose parameters
// are the free names they use: a snippet calling an API that does not
// exist, or with a wrong type, fails. A snippet that declares params (the
// request of the loop) does not receive it.
func TestDocSnippetsTypeCheck(t *testing.T) {
	b, err := os.ReadFile("../docs/openai.md")
	if err != nil {
		t.Fatal(err)
	}
	withParams, err := readmecheck.NewChecker(".", docImports, docGivens)
	if err != nil {
		t.Fatal(err)
	}
	givens := maps.Clone(docGivens)
	delete(givens, "params")
	declaring, err := readmecheck.NewChecker(".", docImports, givens)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, s := range readmecheck.Snippets(string(b)) {
		c := withParams
		if strings.Contains(s.Code, "params :=") {
			c = declaring
		}
		n++
		if src, errs := c.Check(s); len(errs) > 0 {
			t.Errorf("docs/openai.md:%d: the snippet does not type-check: %v\n%s", s.Line, errs, src)
		}
	}
	if n < 5 {
		t.Errorf("checked %d snippets of docs/openai.md, want at least 5", n)
	}
}

// TestREADMESnippetsTypeCheck type-checks the snippets of the repository's
// README that use saidexopenai (the root module's test checks the others).
func TestREADMESnippetsTypeCheck(t *testing.T) {
	n := readmecheck.CheckFile(t, "../README.md", ".", docImports, docGivens,
		func(uses []string) bool { return slices.Contains(uses, "saidexopenai") })
	if n == 0 {
		t.Error("no README snippet uses saidexopenai")
	}
}
