package saidexanthropic_test

import (
	"slices"
	"testing"

	"github.com/saidex/saidex-go/internal/readmecheck"
)

// TestDocSnippetsTypeCheck type-checks the Go snippets of
// docs/anthropic.md against the real packages, as the body of a function:
// a snippet calling an API that does not exist, or with a wrong type,
// fails.
func TestDocSnippetsTypeCheck(t *testing.T) {
	n := readmecheck.CheckFile(t, "../docs/anthropic.md", ".", docImports, docGivens, usesGuard)
	if n != 5 {
		t.Errorf("checked %d snippets of docs/anthropic.md, want 5", n)
	}
}

// TestREADMESnippetsTypeCheck type-checks the snippets of the repository's
// README and docs/ that use saidexanthropic (the root module's test checks the
// others).
func TestREADMESnippetsTypeCheck(t *testing.T) {
	if n := readmecheck.CheckDocs(t, "..", ".", docImports, docGivens, usesGuard); n == 0 {
		t.Error("no snippet of the README or docs/ uses saidexanthropic")
	}
}

func usesGuard(uses []string) bool {
	return slices.Contains(uses, "saidexanthropic")
}

var (
	docImports = map[string]string{
		"context":         "context",
		"json":            "encoding/json",
		"anthropic":       "github.com/anthropics/anthropic-sdk-go/v2",
		"saidex":          "github.com/saidex/saidex-go",
		"saidexanthropic": "github.com/saidex/saidex-go/saidexanthropic",
		"tools":           "github.com/tmc/langchaingo/tools",
	}
	docGivens = map[string]string{
		"ctx":       "context.Context",
		"client":    "anthropic.Client",
		"node":      "*saidex.ToolNode",
		"g":         "*saidexanthropic.Guard",
		"params":    "anthropic.MessageNewParams",
		"msg":       "*anthropic.Message",
		"betaTools": "[]anthropic.BetaTool",
		"runMyTool": "func(name string, input json.RawMessage) (string, error)",
		"myTools":   "[]tools.Tool",
	}
)
