// Package readmecheck type-checks the Go snippets of a Markdown file
// (fenced "```go" blocks, indented or not) against the real packages, with
// go/types and the export data `go list -export` writes: a snippet that
// calls an API that does not exist or passes a value of the wrong type
// fails the check.
//
// Each snippet is checked as the body of a function, which returns error
// when the snippet returns a value (outside its closures), in a file that
// imports the packages its selectors name and receives as
// parameters the free names it uses (agentModel, ctx, ...), with the types
// the caller gives them.
package readmecheck

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// DocFiles returns the Markdown files of the repository at root whose
// claims the tests keep true: README.md, then every docs/*.md in name
// order.
func DocFiles(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	slices.Sort(docs)
	return append([]string{filepath.Join(root, "README.md")}, docs...), nil
}

// CheckDocs runs [CheckFile] on every file of [DocFiles](root) and returns
// the number of snippets checked in all of them.
func CheckDocs(t TB, root, dir string, imports, givens map[string]string, selected func(uses []string) bool) int {
	t.Helper()
	files, err := DocFiles(root)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, f := range files {
		n += CheckFile(t, f, dir, imports, givens, selected)
	}
	return n
}

// Snippet is one Go block of a Markdown file.
type Snippet struct {
	Line int    // the 1-based line of its opening fence
	Code string // its text, the fence's indentation removed
}

var goBlock = regexp.MustCompile("(?ms)^([ \t]*)```go\n(.*?)^[ \t]*```")

// Snippets returns the Go blocks of a Markdown text, in order.
func Snippets(markdown string) []Snippet {
	var out []Snippet
	for _, m := range goBlock.FindAllStringSubmatchIndex(markdown, -1) {
		indent, code := markdown[m[2]:m[3]], markdown[m[4]:m[5]]
		var body strings.Builder
		for line := range strings.Lines(code) {
			body.WriteString(strings.TrimPrefix(line, indent))
		}
		out = append(out, Snippet{Line: 1 + strings.Count(markdown[:m[0]], "\n"), Code: body.String()})
	}
	return out
}

// Checker type-checks snippets against the packages of one module.
type Checker struct {
	imports map[string]string // package name -> import path
	givens  map[string]string // free name -> Go type, in terms of those packages
	exports map[string]string // import path -> export data file
}

// NewChecker runs `go list -export -deps` in dir (a directory of the
// module whose packages the snippets use) for the import paths of imports,
// a map from the package names snippets use to their paths. givens maps
// the free names snippets may use to their Go types, written with those
// package names.
func NewChecker(dir string, imports, givens map[string]string) (*Checker, error) {
	paths := make([]string, 0, len(imports))
	for _, p := range imports {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	cmd := exec.Command("go", append([]string{"list", "-export", "-deps", "-f", "{{.ImportPath}}={{.Export}}"}, paths...)...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export: %v: %s", err, stderr.String())
	}
	exports := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if path, file, ok := strings.Cut(line, "="); ok && file != "" {
			exports[path] = file
		}
	}
	return &Checker{imports: imports, givens: givens, exports: exports}, nil
}

// Uses returns the package names s's selectors name (x in x.Y) that are
// not declared in it, sorted; an error when s does not parse.
func Uses(s Snippet) ([]string, error) {
	f, _, err := parseBody(s.Code)
	if err != nil {
		return nil, err
	}
	return freeSelectorNames(f), nil
}

func parseBody(code string) (*ast.File, *token.FileSet, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "snippet.go", "package p\nfunc _() error {\n"+code+"\n}\n", parser.SkipObjectResolution)
	return f, fset, err
}

// freeSelectorNames returns the x of every x.Y selector in f.
func freeSelectorNames(f *ast.File) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				out = append(out, id.Name)
			}
		}
		return true
	})
	slices.Sort(out)
	return slices.Compact(out)
}

// identNames returns every identifier of f.
func identNames(f *ast.File) map[string]bool {
	out := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			out[id.Name] = true
		}
		return true
	})
	return out
}

// Source returns the file Check type-checks for s: the imports of the
// packages it (and the types of the givens it uses) names, and a function
// whose parameters are those givens and whose body is s.
func (c *Checker) Source(s Snippet) (string, error) {
	f, _, err := parseBody(s.Code)
	if err != nil {
		return "", err
	}
	idents := identNames(f)
	var params []string
	pkgs := map[string]bool{}
	names := make([]string, 0, len(c.givens))
	for name := range c.givens {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		if !idents[name] {
			continue
		}
		params = append(params, name+" "+c.givens[name])
		tf, _, err := parseBody("var _ " + c.givens[name])
		if err != nil {
			return "", fmt.Errorf("given %s: %v", name, err)
		}
		for _, p := range freeSelectorNames(tf) {
			pkgs[p] = true
		}
	}
	for _, p := range freeSelectorNames(f) {
		if _, ok := c.imports[p]; ok {
			pkgs[p] = true
		}
	}
	var src strings.Builder
	src.WriteString("package p\n\nimport (\n")
	pkgNames := make([]string, 0, len(pkgs))
	for p := range pkgs {
		pkgNames = append(pkgNames, p)
	}
	slices.Sort(pkgNames)
	for _, p := range pkgNames {
		fmt.Fprintf(&src, "\t%s %q\n", p, c.imports[p])
	}
	result := ""
	ast.Inspect(f.Decls[0].(*ast.FuncDecl).Body, func(n ast.Node) bool {
		if r, ok := n.(*ast.ReturnStmt); ok && len(r.Results) > 0 {
			result = " error"
		}
		_, lit := n.(*ast.FuncLit) // a closure's returns are its own
		return !lit
	})
	end := ""
	if result != "" {
		end = "panic(\"the snippet continues\")\n" // a fragment need not end with a return
	}
	fmt.Fprintf(&src, ")\n\nfunc _(%s)%s {\n%s\n%s}\n", strings.Join(params, ", "), result, s.Code, end)
	return src.String(), nil
}

// Check type-checks s and returns every error go/types reports (an
// undefined name, a wrong type, an unused import, ...) but for a variable
// declared and not used (a fragment may declare what the code after it
// uses), with the file it checked.
func (c *Checker) Check(s Snippet) (src string, errs []error) {
	src, err := c.Source(s)
	if err != nil {
		return src, []error{err}
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "snippet.go", src, 0)
	if err != nil {
		return src, []error{err}
	}
	conf := types.Config{
		Importer: importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
			file, ok := c.exports[path]
			if !ok {
				return nil, fmt.Errorf("no export data for %s (not among the checker's imports or their dependencies)", path)
			}
			return os.Open(file)
		}),
		Error: func(err error) {
			// A fragment may declare what the code after it uses.
			if te, ok := err.(types.Error); ok && te.Soft && strings.HasPrefix(te.Msg, "declared and not used") {
				return
			}
			errs = append(errs, err)
		},
	}
	_, _ = conf.Check("p", fset, []*ast.File{f}, nil)
	return src, errs
}

// TB is the part of testing.TB that CheckFile uses.
type TB interface {
	Helper()
	Errorf(format string, args ...any)
	Fatal(args ...any)
}

// CheckFile type-checks the snippets of the Markdown file at path for
// which selected (given the package names the snippet's selectors use)
// reports true, with a Checker for dir, imports and givens, and reports
// each failure on t. It returns the number of snippets it checked; a
// snippet that does not parse is reported whatever selected says.
func CheckFile(t TB, path, dir string, imports, givens map[string]string, selected func(uses []string) bool) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c, err := NewChecker(dir, imports, givens)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, s := range Snippets(string(b)) {
		uses, err := Uses(s)
		if err != nil {
			t.Errorf("%s:%d: the snippet does not parse: %v\n%s", path, s.Line, err, s.Code)
			continue
		}
		if !selected(uses) {
			continue
		}
		checked++
		if src, errs := c.Check(s); len(errs) > 0 {
			t.Errorf("%s:%d: the snippet does not type-check: %v\n%s", path, s.Line, errs, src)
		}
	}
	return checked
}
