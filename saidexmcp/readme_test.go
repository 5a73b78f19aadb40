package saidexmcp_test

import (
	"os"
	"slices"
	"testing"

	"github.com/saidex/saidex-go/internal/readmecheck"
)

// TestREADMESnippetsTypeCheck type-checks the snippets of the repository's
// README that use saidexmcp (the root module's test checks the others)
// against the real packages, as the body of a function: a snippet calling
// an API that does not exist, or with a wrong type, fails.
func TestREADMESnippetsTypeCheck(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	c, err := readmecheck.NewChecker(".", map[string]string{
		"context":   "context",
		"errors":    "errors",
		"fmt":       "fmt",
		"mcp":       "github.com/modelcontextprotocol/go-sdk/mcp",
		"llms":      "github.com/tmc/langchaingo/llms",
		"tools":     "github.com/tmc/langchaingo/tools",
		"saidex":    "github.com/saidex/saidex-go",
		"saidexmcp": "github.com/saidex/saidex-go/saidexmcp",
	}, map[string]string{
		"ctx":     "context.Context",
		"session": "*mcp.ClientSession",
	})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range readmecheck.Snippets(string(b)) {
		uses, err := readmecheck.Uses(s)
		if err != nil || !slices.Contains(uses, "saidexmcp") {
			continue // the root module's test reports it
		}
		checked++
		if src, errs := c.Check(s); len(errs) > 0 {
			t.Errorf("README.md:%d: the snippet does not type-check: %v\n%s", s.Line, errs, src)
		}
	}
	if checked == 0 {
		t.Error("no README snippet uses saidexmcp")
	}
}
