package saidex_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"slices"
	"testing"

	"github.com/saidex/saidex-go/internal/readmecheck"
)

// readmeImports are the packages README snippets use by name, and
// readmeGivens the free names they assume, with their types.
var (
	readmeImports = map[string]string{
		"context":    "context",
		"errors":     "errors",
		"fmt":        "fmt",
		"testing":    "testing",
		"llms":       "github.com/tmc/langchaingo/llms",
		"tools":      "github.com/tmc/langchaingo/tools",
		"saidex":     "github.com/saidex/saidex-go",
		"saidextest": "github.com/saidex/saidex-go/saidextest",
	}
	readmeGivens = map[string]string{
		"ctx":        "context.Context",
		"t":          "*testing.T",
		"agentModel": "llms.Model",
		"smallModel": "llms.Model",
		"lookup":     "func(city string, days int) (string, error)",
	}
)

// TestREADMESnippetsTypeCheck type-checks every Go snippet of the README
// against the real packages (go/types, export data from go list -export),
// as the body of a function returning error: a snippet calling an API that
// does not exist, or with a wrong type, fails. The snippets that use
// saidexmcp, a module of its own, are checked by saidexmcp's
// TestREADMESnippetsTypeCheck; this test checks that they are the only ones
// it leaves out.
func TestREADMESnippetsTypeCheck(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	snippets := readmecheck.Snippets(string(b))
	if len(snippets) < 3 {
		t.Fatalf("found %d Go snippets in README.md, want at least 3", len(snippets))
	}
	c, err := readmecheck.NewChecker(".", readmeImports, readmeGivens)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range snippets {
		uses, err := readmecheck.Uses(s)
		if err != nil {
			t.Errorf("README.md:%d: the snippet does not parse: %v\n%s", s.Line, err, s.Code)
			continue
		}
		if slices.Contains(uses, "saidexmcp") {
			t.Logf("README.md:%d uses saidexmcp: checked by saidexmcp's TestREADMESnippetsTypeCheck", s.Line)
			continue
		}
		checked++
		if src, errs := c.Check(s); len(errs) > 0 {
			t.Errorf("README.md:%d: the snippet does not type-check: %v\n%s", s.Line, errs, src)
		}
	}
	if checked < 2 {
		t.Errorf("checked %d snippets, want at least 2", checked)
	}
}

// TestREADMESnippetsHandleErrors fails on a call in a README snippet whose
// result is assigned to the blank identifier: a snippet a user copies
// handles every error.
func TestREADMESnippetsHandleErrors(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range readmecheck.Snippets(string(b)) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "README.md", "package p\nfunc _() error {\n"+s.Code+"\n}\n", 0)
		if err != nil {
			t.Errorf("README.md:%d: the snippet does not parse: %v", s.Line, err)
			continue
		}
		ast.Inspect(f, func(n ast.Node) bool {
			as, ok := n.(*ast.AssignStmt)
			if !ok || len(as.Rhs) != 1 {
				return true
			}
			if _, isCall := as.Rhs[0].(*ast.CallExpr); !isCall {
				return true
			}
			for _, lhs := range as.Lhs {
				if id, ok := lhs.(*ast.Ident); ok && id.Name == "_" {
					t.Errorf("README.md:%d: the snippet ignores a result of a call (its line %d):\n%s", s.Line, fset.Position(as.Pos()).Line-2, s.Code)
				}
			}
			return true
		})
	}
}
