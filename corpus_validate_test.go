package saidex

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

// corpusCase is the part of a shared corpus line the validation tests use.
type corpusCase struct {
	ID           string `json:"id"`
	Expect       string `json:"expect"`
	RawArguments string `json:"raw_arguments"`
	Tool         struct {
		Name       string          `json:"name"`
		Parameters json.RawMessage `json:"parameters"`
	} `json:"tool"`
	WantArguments json.RawMessage `json:"want_arguments"`
	WantIssues    []struct {
		Path string `json:"path"`
		Kind string `json:"kind"`
	} `json:"want_issues"`
}

func readCorpus(t *testing.T) []corpusCase {
	t.Helper()
	f, err := os.Open("../shared/corpus/dev.jsonl")
	if err != nil {
		t.Skipf("shared corpus not available: %v", err)
	}
	defer f.Close()
	var cases []corpusCase
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var c corpusCase
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("corpus line: %v", err)
		}
		cases = append(cases, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestCorpusIssueSetsMatch checks, on the shared corpus's invalid cases whose
// arguments parse as they are, that validation reports exactly the (path,
// kind) set the corpus lists, and that every valid or repaired case's
// intended arguments validate with no issue.
func TestCorpusIssueSetsMatch(t *testing.T) {
	cases := readCorpus(t)
	var invalid, agreed, valid, fastAccepted int
	for _, c := range cases {
		s, err := compileSchema(c.Tool.Name, c.Tool.Parameters)
		if err != nil {
			t.Errorf("%s: compile: %v", c.ID, err)
			continue
		}
		switch c.Expect {
		case "valid", "repaired":
			v, err := decodeJSON(string(c.WantArguments))
			if err != nil {
				t.Errorf("%s: want_arguments: %v", c.ID, err)
				continue
			}
			if issues := s.validate(v); len(issues) > 0 {
				t.Errorf("%s: intended arguments got issues %v", c.ID, issues)
			}
			if s.prechecked(string(c.WantArguments), false) {
				fastAccepted++
			}
			valid++
		case "invalid":
			v, err := decodeJSON(c.RawArguments)
			if err != nil {
				continue // needs the repair stage
			}
			invalid++
			var got, want []string
			for _, is := range s.validate(v) {
				got = append(got, is.Path+" "+string(is.Kind))
			}
			for _, is := range c.WantIssues {
				want = append(want, is.Path+" "+is.Kind)
			}
			slices.Sort(got)
			slices.Sort(want)
			if slices.Equal(got, want) {
				agreed++
			} else {
				t.Errorf("%s: issues %q, corpus lists %q", c.ID, got, want)
			}
		}
	}
	t.Logf("invalid cases that parse: %d, issue sets equal: %d; valid/repaired intended arguments: %d, accepted by the precheck alone: %d",
		invalid, agreed, valid, fastAccepted)
}
