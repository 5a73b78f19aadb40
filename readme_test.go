package saidex_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
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
		"history":    "[]llms.MessageContent",
		"lookup":     "func(city string, days int) (string, error)",
	}
)

// nestedModules are the packages of modules of their own that README
// snippets use: a snippet that uses one is type-checked by that module's
// TestREADMESnippetsTypeCheck, which can import it.
var nestedModules = []string{"saidexmcp", "saidexmcpgo", "saidexeino", "saidexanthropic", "saidexopenai", "mcp", "server", "openai", "responses", "anthropic"}

// moduleDocs are the docs/ files of nested modules: their snippets are
// type-checked by those modules' tests, which can import them.
var moduleDocs = map[string]bool{
	"docs/openai.md":     true, // saidexopenai
	"docs/anthropic.md":  true, // saidexanthropic
	"docs/mcp-server.md": true, // saidexmcp, saidexmcpgo
}

// TestREADMESnippetsTypeCheck type-checks every Go snippet of the README
// and of docs/*.md against the real packages (go/types, export data from
// go list -export), as the body of a function: a snippet calling an API
// that does not exist, or with a wrong type, fails. The snippets that use
// a nested module's package (nestedModules) are left to that module's
// test, which checks them; every other snippet is checked here.
func TestREADMESnippetsTypeCheck(t *testing.T) {
	files, err := readmecheck.DocFiles(".")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		if moduleDocs[filepath.ToSlash(f)] {
			continue
		}
		n += readmecheck.CheckFile(t, f, ".", readmeImports, readmeGivens, func(uses []string) bool {
			for _, m := range nestedModules {
				if slices.Contains(uses, m) {
					return false
				}
			}
			return true
		})
	}
	if n < 4 {
		t.Errorf("checked %d snippets, want at least 4", n)
	}
}

// TestREADMESnippetsHandleErrors fails on a call in a snippet of the
// README or docs/*.md whose result is assigned to the blank identifier: a
// snippet a user copies handles every error.
func TestREADMESnippetsHandleErrors(t *testing.T) {
	files, err := readmecheck.DocFiles(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		testSnippetsHandleErrors(t, file)
	}
}

func testSnippetsHandleErrors(t *testing.T, file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range readmecheck.Snippets(string(b)) {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "README.md", "package p\nfunc _() error {\n"+s.Code+"\n}\n", 0)
		if err != nil {
			t.Errorf("%s:%d: the snippet does not parse: %v", file, s.Line, err)
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
					t.Errorf("%s:%d: the snippet ignores a result of a call (its line %d):\n%s", file, s.Line, fset.Position(as.Pos()).Line-2, s.Code)
				}
			}
			return true
		})
	}
}

// TestPackageDocLoopTypeChecks type-checks the loop of the package doc
// (doc.go), as the README's snippets are: the loop `go doc` shows is a
// loop that compiles.
func TestPackageDocLoopTypeChecks(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "doc.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	// The code blocks of the comment are its tab-indented runs of lines;
	// the loop is the one that builds a ToolNode.
	var blocks []string
	var cur strings.Builder
	for line := range strings.Lines(f.Doc.Text() + "end\n") {
		if strings.HasPrefix(line, "\t") || (cur.Len() > 0 && strings.TrimSpace(line) == "") {
			cur.WriteString(strings.TrimPrefix(line, "\t"))
			continue
		}
		if cur.Len() > 0 {
			blocks = append(blocks, cur.String())
			cur.Reset()
		}
	}
	var code strings.Builder
	for _, b := range blocks {
		if strings.Contains(b, "NewToolNode") {
			code.WriteString(b)
		}
	}
	if !strings.Contains(code.String(), "node.Run") {
		t.Fatalf("doc.go's package doc has no loop calling node.Run:\n%s", code.String())
	}
	givens := map[string]string{"ctx": "context.Context", "model": "llms.Model"}
	c, err := readmecheck.NewChecker(".", readmeImports, givens)
	if err != nil {
		t.Fatal(err)
	}
	if src, errs := c.Check(readmecheck.Snippet{Code: code.String()}); len(errs) > 0 {
		t.Errorf("doc.go's loop does not type-check: %v\n%s", errs, src)
	}
}
