package saidex_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"

	"github.com/saidex/saidex-go/internal/readmecheck"
)

// pendingDocs are docs/ files other branches add; links to them are
// allowed before they land. Remove a name once its file exists.
var pendingDocs = map[string]bool{}

var (
	mdLink   = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	codeSpan = regexp.MustCompile("`[^`\n]*`")
)

// TestDocLinksResolve: every relative link of the README and docs/*.md
// names a file of the repository and, for a link to a heading of a
// Markdown file, a heading that file has (GitHub's anchors).
func TestDocLinksResolve(t *testing.T) {
	files, err := readmecheck.DocFiles(".")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]map[string]bool{}
	anchorsOf := func(path string) map[string]bool {
		if a, ok := anchors[path]; ok {
			return a
		}
		a := map[string]bool{}
		if b, err := os.ReadFile(path); err == nil {
			inFence := false
			for line := range strings.Lines(string(b)) {
				if strings.HasPrefix(strings.TrimSpace(line), "```") {
					inFence = !inFence
				}
				if !inFence && strings.HasPrefix(line, "#") {
					a[slug(strings.TrimLeft(strings.TrimSpace(line), "# "))] = true
				}
			}
		}
		anchors[path] = a
		return a
	}
	for _, file := range files {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		text := codeSpan.ReplaceAllString(string(b), "``") // a link in code is code
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			link := m[1]
			if strings.Contains(link, "://") || strings.HasPrefix(link, "mailto:") {
				continue
			}
			target, anchor, _ := strings.Cut(link, "#")
			path := file
			if target != "" {
				path = filepath.Join(filepath.Dir(file), target)
			}
			if pendingDocs[filepath.ToSlash(path)] {
				continue
			}
			if _, err := os.Stat(path); err != nil {
				t.Errorf("%s: link %q: %v", file, link, err)
				continue
			}
			if anchor != "" && strings.HasSuffix(path, ".md") && !anchorsOf(path)[anchor] {
				t.Errorf("%s: link %q: %s has no heading with that anchor", file, link, path)
			}
		}
	}
}

// slug is GitHub's anchor of a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// TestREADMEIsAnIntroduction: the README stays short (the rest is in
// docs/) and its options table names every With… constructor of the
// package, with its default.
func TestREADMEIsAnIntroduction(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n > 300 {
		t.Errorf("README.md has %d lines, want at most 300: move details to docs/", n)
	}
	sources, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	fset := token.NewFileSet()
	for _, src := range sources {
		if strings.HasSuffix(src, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, src, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.IsExported() && strings.HasPrefix(fn.Name.Name, "With") {
				names = append(names, fn.Name.Name)
			}
		}
	}
	if len(names) < 20 {
		t.Fatalf("found %d With… constructors, want at least 20: %v", len(names), names)
	}
	for _, name := range names {
		if !strings.Contains(readme, "`"+name+"(") {
			t.Errorf("README.md does not list the option %s (as `%s(…)`)", name, name)
		}
	}
}
