package saidexmcp_test

import (
	"slices"
	"testing"

	"github.com/saidex/saidex-go/internal/readmecheck"
)

// TestREADMESnippetsTypeCheck type-checks the snippets of the repository's
// README and docs/*.md that use saidexmcp (the root module's test checks
// the others)
// against the real packages, as the body of a function: a snippet calling
// an API that does not exist, or with a wrong type, fails.
func TestREADMESnippetsTypeCheck(t *testing.T) {
	n := readmecheck.CheckDocs(t, "..", ".", map[string]string{
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
		"server":  "*mcp.Server",
	}, func(uses []string) bool { return slices.Contains(uses, "saidexmcp") })
	if n == 0 {
		t.Error("no snippet of the README or docs/ uses saidexmcp")
	}
}
