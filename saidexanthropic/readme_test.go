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
	n := readmecheck.CheckFile(t, "../docs/anthropic.md", ".", map[string]string{
		"context":         "context",
		"json":            "encoding/json",
		"anthropic":       "github.com/anthropics/anthropic-sdk-go/v2",
		"saidex":          "github.com/saidex/saidex-go",
		"saidexanthropic": "github.com/saidex/saidex-go/saidexanthropic",
		"tools":           "github.com/tmc/langchaingo/tools",
	}, map[string]string{
		"ctx":       "context.Context",
		"client":    "anthropic.Client",
		"node":      "*saidex.ToolNode",
		"g":         "*saidexanthropic.Guard",
		"params":    "anthropic.MessageNewParams",
		"msg":       "*anthropic.Message",
		"betaTools": "[]anthropic.BetaTool",
		"runMyTool": "func(name string, input json.RawMessage) (string, error)",
		"myTools":   "[]tools.Tool",
	}, func(uses []string) bool {
		return slices.Contains(uses, "saidexanthropic") || slices.Contains(uses, "g")
	})
	if n != 5 {
		t.Errorf("checked %d snippets of docs/anthropic.md, want 5", n)
	}
}
