package saidex_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"strings"
	"testing"
)

// goBlock matches a fenced Go block of the README, indented or not.
var goBlock = regexp.MustCompile("(?ms)^([ \t]*)```go\n(.*?)^[ \t]*```")

// TestREADMESnippetsParseAndHandleErrors parses every Go snippet of the
// README as a function body and fails on a call whose result is assigned
// to the blank identifier: a snippet a user copies handles every error.
func TestREADMESnippetsParseAndHandleErrors(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	blocks := goBlock.FindAllStringSubmatch(string(b), -1)
	if len(blocks) < 3 {
		t.Fatalf("found %d Go snippets in README.md, want at least 3", len(blocks))
	}
	for i, m := range blocks {
		indent, code := m[1], m[2]
		var body strings.Builder
		for line := range strings.Lines(code) {
			body.WriteString(strings.TrimPrefix(line, indent))
		}
		src := "package p\nfunc _() error {\n" + body.String() + "\n}\n"
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, "README.md", src, 0)
		if err != nil {
			t.Errorf("snippet %d does not parse: %v\n%s", i+1, err, body.String())
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
					t.Errorf("snippet %d ignores a result of a call (line %d):\n%s", i+1, fset.Position(as.Pos()).Line-2, body.String())
				}
			}
			return true
		})
	}
}
