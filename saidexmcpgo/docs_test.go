package saidexmcpgo_test

import (
	"slices"
	"testing"

	"github.com/saidex/saidex-go/internal/readmecheck"
)

// TestGuideSnippetsTypeCheck type-checks the snippets of docs/mcp-server.md
// that use saidexmcpgo against the real packages.
func TestGuideSnippetsTypeCheck(t *testing.T) {
	n := readmecheck.CheckFile(t, "../docs/mcp-server.md", ".", map[string]string{
		"server":      "github.com/mark3labs/mcp-go/server",
		"saidex":      "github.com/saidex/saidex-go",
		"saidexmcpgo": "github.com/saidex/saidex-go/saidexmcpgo",
	}, nil, func(uses []string) bool { return slices.Contains(uses, "saidexmcpgo") })
	if n != 1 {
		t.Errorf("%d guide snippets use saidexmcpgo, want 1", n)
	}
}
