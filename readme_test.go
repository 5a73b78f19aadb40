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
		"agent":      "github.com/saidex/saidex-go/agent",
		"agents":     "github.com/tmc/langchaingo/agents",
	}
	readmeGivens = map[string]string{
		"ctx":        "context.Context",
		"t":          "*testing.T",
		"agentModel": "llms.Model",
		"smallModel": "llms.Model",
		"llm":        "llms.Model",
		"node":       "*saidex.ToolNode",
		"lookup":     "func(city string, days int) (string, error)",
	}
)

// nestedModules are the packages of modules of their own that README
// snippets use: a snippet that uses one is type-checked by that module's
// TestREADMESnippetsTypeCheck, which can import it.
var nestedModules = []string{"saidexmcp", "saidexeino", "saidexopenai"}

// TestREADMESnippetsTypeCheck type-checks every Go snippet of the README
// against the real packages (go/types, export data from go list -export),
// as the body of a function: a snippet calling an API that does not exist,
// or with a wrong type, fails. The snippets that use a nested module's
// package (nestedModules) are left to that module's test, which checks
// them; every other snippet is checked here.
func TestREADMESnippetsTypeCheck(t *testing.T) {
	n := readmecheck.CheckFile(t, "README.md", ".", readmeImports, readmeGivens, func(uses []string) bool {
		for _, m := range nestedModules {
			if slices.Contains(uses, m) {
				return false
			}
		}
		return true
	})
	if n < 2 {
		t.Errorf("checked %d snippets, want at least 2", n)
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
