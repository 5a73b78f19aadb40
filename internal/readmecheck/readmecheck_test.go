package readmecheck

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDocFiles: the README first, then docs/*.md, in name order.
func TestDocFiles(t *testing.T) {
	files, err := DocFiles("../..")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 2 || files[0] != filepath.Join("../..", "README.md") {
		t.Fatalf("DocFiles = %v, want README.md first and docs/*.md after it", files)
	}
	if !slices.IsSorted(files[1:]) || !slices.Contains(files, filepath.Join("../..", "docs", "soundness.md")) {
		t.Errorf("DocFiles = %v, want docs/*.md sorted, soundness.md among them", files)
	}
}

func TestSnippetsAndCheck(t *testing.T) {
	md := "# T\n\n```go\nfmt.Println(greeting)\n```\n\n- item:\n\n  ```go\n  err := errors.New(greeting)\n  if err != nil {\n  \treturn err\n  }\n  ```\n\n```sh\nls\n```\n" +
		"```go\nfmt.Printn(greeting)\n```\n```go\nvar n int = greeting\n_ = n\n```\n```go\nunused := 1\nf := func() error { return nil }\n_ = f\n```\n"
	snippets := Snippets(md)
	if len(snippets) != 5 || snippets[0].Line != 3 || snippets[1].Line != 9 || snippets[1].Code != "err := errors.New(greeting)\nif err != nil {\n\treturn err\n}\n" {
		t.Fatalf("Snippets = %+v", snippets)
	}
	c, err := NewChecker(".", map[string]string{"fmt": "fmt", "errors": "errors", "strings": "strings"}, map[string]string{"greeting": "string", "other": "strings.Builder"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"", "", "undefined: fmt.Printn", "cannot use greeting", ""} {
		src, errs := c.Check(snippets[i])
		switch {
		case want == "" && len(errs) > 0:
			t.Errorf("snippet %d: %v\n%s", i, errs, src)
		case want != "" && (len(errs) == 0 || !strings.Contains(errs[0].Error(), want)):
			t.Errorf("snippet %d: errors %v, want %q\n%s", i, errs, want, src)
		}
	}
	// Only the givens and packages a snippet uses are declared and imported.
	src, _ := c.Check(snippets[1])
	if !strings.Contains(src, `errors "errors"`) || strings.Contains(src, `"fmt"`) || strings.Contains(src, "strings") ||
		!strings.Contains(src, "func _(greeting string) error {") {
		t.Errorf("source:\n%s", src)
	}
	if src, _ := c.Check(snippets[4]); !strings.Contains(src, "func _() {") {
		t.Errorf("a snippet returning only in a closure is not a function returning error:\n%s", src)
	}
}
