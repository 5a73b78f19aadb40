package saidexeino_test

import (
	"slices"
	"testing"

	"github.com/saidex/saidex-go/internal/readmecheck"
)

// TestREADMESnippetsTypeCheck type-checks the snippets of the repository's
// README and docs/*.md that use saidexeino (the root module's test checks
// the others)
// against the real packages, as the body of a function: a snippet calling
// an API that does not exist, or with a wrong type, fails.
func TestREADMESnippetsTypeCheck(t *testing.T) {
	n := readmecheck.CheckDocs(t, "..", ".", map[string]string{
		"context":    "context",
		"errors":     "errors",
		"fmt":        "fmt",
		"adk":        "github.com/cloudwego/eino/adk",
		"compose":    "github.com/cloudwego/eino/compose",
		"model":      "github.com/cloudwego/eino/components/model",
		"tool":       "github.com/cloudwego/eino/components/tool",
		"react":      "github.com/cloudwego/eino/flow/agent/react",
		"schema":     "github.com/cloudwego/eino/schema",
		"saidex":     "github.com/saidex/saidex-go",
		"saidexeino": "github.com/saidex/saidex-go/saidexeino",
	}, map[string]string{
		"ctx":       "context.Context",
		"weather":   "tool.BaseTool",
		"chatModel": "model.ToolCallingChatModel",
		"small":     "model.ToolCallingChatModel",
	}, func(uses []string) bool { return slices.Contains(uses, "saidexeino") })
	if n == 0 {
		t.Error("no snippet of the README or docs/ uses saidexeino")
	}
}
