package saidexmcp_test

import (
	"slices"
	"testing"

	"github.com/saidex/saidex-go/internal/readmecheck"
)

// TestGuideSnippetsTypeCheck type-checks the snippets of docs/mcp-server.md
// that use saidexmcp against the real packages.
func TestGuideSnippetsTypeCheck(t *testing.T) {
	n := readmecheck.CheckFile(t, "../docs/mcp-server.md", ".", map[string]string{
		"mcp":       "github.com/modelcontextprotocol/go-sdk/mcp",
		"saidex":    "github.com/saidex/saidex-go",
		"saidexmcp": "github.com/saidex/saidex-go/saidexmcp",
	}, map[string]string{
		"server": "*mcp.Server",
	}, func(uses []string) bool { return slices.Contains(uses, "saidexmcp") })
	if n < 2 {
		t.Errorf("%d guide snippets use saidexmcp, want 2", n)
	}
}
