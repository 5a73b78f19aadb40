// Package corpusfile reads the malformed tool-call corpus files
// (shared/corpus/*.jsonl). It imports nothing of saidex, so the tests of
// every package, the engines' included, can read the corpus with it.
package corpusfile

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
)

// Case is one line of a corpus file.
type Case struct {
	ID       string `json:"id"`
	Category string `json:"category"`
	Source   string `json:"source"`
	Tool     struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"tool"`
	RawArguments  string          `json:"raw_arguments"`
	Expect        string          `json:"expect"`
	WantArguments json.RawMessage `json:"want_arguments"`
	WantIssues    []IssueKey      `json:"want_issues"`
	Note          string          `json:"note"`
}

// IssueKey is the (path, kind) pair issues are compared on.
type IssueKey struct {
	Path string `json:"path"`
	Kind string `json:"kind"`
}

// Load reads a JSONL corpus file.
func Load(path string) ([]Case, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Read(f)
}

// Read reads JSONL corpus cases from r.
func Read(r io.Reader) ([]Case, error) {
	var cases []Case
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	line := 0
	for sc.Scan() {
		line++
		b := strings.TrimSpace(sc.Text())
		if b == "" {
			continue
		}
		var c Case
		if err := json.Unmarshal([]byte(b), &c); err != nil {
			return nil, fmt.Errorf("line %d: %w", line, err)
		}
		cases = append(cases, c)
	}
	return cases, sc.Err()
}

// RawArguments returns the raw argument strings of the corpus file at
// path, or nil when it cannot be read (tests skip the corpus when
// ../shared is absent).
func RawArguments(path string) []string {
	cases, err := Load(path)
	if err != nil {
		return nil
	}
	out := make([]string, len(cases))
	for i, c := range cases {
		out[i] = c.RawArguments
	}
	return out
}
