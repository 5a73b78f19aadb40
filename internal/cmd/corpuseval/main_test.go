package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// line returns one synthetic corpus case (a one-field tool) as JSONL.
func line(id, expect, raw, want string) string {
	return `{"id":"` + id + `","category":"test","expect":"` + expect + `",` +
		`"tool":{"name":"t","parameters":{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"],"additionalProperties":false}},` +
		`"raw_arguments":` + quote(raw) + `,"want_arguments":` + want + `}` + "\n"
}

func quote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// TestExitStatus pins what CI relies on: corpuseval exits non-zero as soon
// as one case does not pass (a silent corruption or an over-strict
// refusal), and when the files hold fewer cases than -min.
func TestExitStatus(t *testing.T) {
	pass := line("p1", "valid", `{"a":1}`, `{"a":1}`) + line("p2", "repaired", `{'a': 2,}`, `{"a":2}`)
	tests := []struct {
		name     string
		corpus   string
		args     []string
		want     int
		wantLine string
		wantErr  string
	}{
		{"every case passes", pass, nil, 0, "corpus: 2 cases, 2 passed, 0 silent corruptions, 0 over-strict, 0 wrong issue sets", ""},
		{"enough cases", pass, []string{"-min", "2"}, 0, "2 passed", ""},
		{"fewer cases than -min", pass, []string{"-min", "3"}, 1, "2 passed", "fewer than -min 3"},
		{"a silent corruption", pass + line("s", "valid", `{"a":1}`, `{"a":3}`), nil, 1, "1 silent corruptions", "1 of 3 cases did not pass (1 silent corruptions)"},
		{"an over-strict case", pass + line("o", "valid", `{"a":"x"}`, `{"a":1}`), nil, 1, "1 over-strict", "1 of 3 cases did not pass (0 silent corruptions)"},
		{"an empty file", "", nil, 1, "corpus: 0 cases", "fewer than -min 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.jsonl")
			if err := os.WriteFile(path, []byte(tt.corpus), 0o600); err != nil {
				t.Fatal(err)
			}
			var stdout, stderr strings.Builder
			got := run(append(tt.args, path), &stdout, &stderr)
			if got != tt.want {
				t.Errorf("exit status %d, want %d; stderr: %s", got, tt.want, stderr.String())
			}
			lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
			if last := lines[len(lines)-1]; !strings.Contains(last, tt.wantLine) {
				t.Errorf("last line %q, want it to contain %q", last, tt.wantLine)
			}
			if !strings.Contains(stderr.String(), tt.wantErr) {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.wantErr)
			}
		})
	}
	var stderr strings.Builder
	if got := run(nil, &strings.Builder{}, &stderr); got != 2 {
		t.Errorf("no file: exit status %d, want 2", got)
	}
}
