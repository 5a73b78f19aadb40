package saidex

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// naiveScrub masks every byte some pattern covers, merging covered runs:
// the reference the automaton must match.
func naiveScrub(t string, patterns []string) string {
	covered := make([]bool, len(t))
	for _, p := range patterns {
		if len(p) < MinScrubbedSecretLen {
			continue
		}
		for i := 0; i+len(p) <= len(t); i++ {
			if t[i:i+len(p)] == p {
				for k := i; k < i+len(p); k++ {
					covered[k] = true
				}
			}
		}
	}
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		switch {
		case !covered[i]:
			b.WriteByte(t[i])
		case i == 0 || !covered[i-1]:
			b.WriteString(SecretMask)
		}
	}
	return b.String()
}

// The scrubber masks exactly the bytes its patterns cover, overlapping,
// nested or touching, as one mask per covered run; shorter patterns are
// ignored.
func TestScrubberMatchesNaive(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	word := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abc"[rng.IntN(3)]
		}
		return string(b)
	}
	for i := range 3000 {
		var patterns []string
		vals := map[string]bool{}
		for range 1 + rng.IntN(5) {
			p := word(3 + rng.IntN(8))
			patterns = append(patterns, p)
			vals[p] = true
		}
		text := word(rng.IntN(60))
		got, want := newScrubber(vals).text(text), naiveScrub(text, patterns)
		if got != want {
			t.Fatalf("case %d: patterns %q, text %q: got %q, want %q", i, patterns, text, got, want)
		}
	}
}

func TestScrubberEdges(t *testing.T) {
	if newScrubber(map[string]bool{"short": true}) != nil {
		t.Error("a scrubber of patterns below MinScrubbedSecretLen is not nil")
	}
	var none *scrubber
	if none.text("x") != "x" || none.err(errors.New("e")).Error() != "e" {
		t.Error("a nil scrubber changes text")
	}
	s := newScrubber(map[string]bool{"hunter22": true})
	text := "nothing here"
	if out := s.text(text); out != text {
		t.Errorf("text changed: %q", out)
	}
	if out := s.json(`{"a":"hunter22","hunter22":1}`); out != `{"a":"`+SecretMask+`","`+SecretMask+`":1}` {
		t.Errorf("json = %s", out)
	}
	// A JSON text stays JSON: a pattern that spans its punctuation is
	// searched for in its decoded keys and strings only.
	s = newScrubber(map[string]bool{`xy","bz`: true, `xy\",\"bz`: true})
	if out := s.json(`{"a":"xy","bz":"y","c":"xy\",\"bz"}`); out != `{"a":"xy","bz":"y","c":"`+SecretMask+`"}` {
		t.Errorf("json = %s", out)
	}
	pe := s.err(fmt.Errorf("wrapped: %w", &PanicError{Value: `xy","bz`}))
	var got *PanicError
	if !errors.As(pe, &got) || strings.Contains(pe.Error(), `xy","bz`) || strings.Contains(fmt.Sprint(got.Value), `xy","bz`) {
		t.Errorf("a panic's value is not scrubbed: %v / %v", pe, got)
	}
}
