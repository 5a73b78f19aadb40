package saidex

import (
	"bufio"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

// corpusRawArguments returns the raw argument strings of the shared corpus,
// or nil when it is absent.
func corpusRawArguments(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open("../shared/corpus/dev.jsonl")
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var c struct {
			Raw string `json:"raw_arguments"`
		}
		if json.Unmarshal(sc.Bytes(), &c) == nil {
			out = append(out, c.Raw)
		}
	}
	return out
}

// FuzzRepair checks that repair never panics, that what it returns is valid
// JSON holding the returned value, that every refusal wraps
// ErrMalformedArguments, and that arguments which already parse (and are not
// a JSON string holding an object) come back unchanged.
func FuzzRepair(f *testing.F) {
	for _, s := range []string{
		`{"a": 1}`, `{'a': 'b's'}`, "<think>x</think>{\"a\":1}", "```json\n{a: True,}\n```",
		`"{\"a\": 1}"`, `{"a": "x"`, `{"a": 1}{"a": 1}`, `{"a": 1}{"a": 2}`, `{"a": [1 2], // c
"b": None}`, `{“a”: “b”}`, `{"a": "say "hi" now"}`, `[1, 2]`, `""`, `{\"a\": 1}`, "", "{", "}{",
	} {
		f.Add(s)
	}
	for _, s := range corpusRawArguments(f) {
		f.Add(s)
	}
	opt := defaultRepairOptions()
	f.Fuzz(func(t *testing.T, raw string) {
		res, err := repairArguments(raw, opt)
		if err != nil {
			if !errors.Is(err, ErrMalformedArguments) {
				t.Fatalf("error %v does not wrap ErrMalformedArguments", err)
			}
			return
		}
		if !json.Valid([]byte(res.json)) {
			t.Fatalf("repairArguments(%q).json = %q: not valid JSON", raw, res.json)
		}
		v, err := decodeJSON(res.json)
		if err != nil || !sameJSON(v, res.value) {
			t.Fatalf("repairArguments(%q): json %q does not hold value %#v", raw, res.json, res.value)
		}
		if orig, err := decodeJSON(raw); err == nil {
			if _, isString := orig.(string); !isString {
				if res.json != raw || len(res.steps) > 0 {
					t.Fatalf("valid arguments %q changed to %q (steps %v)", raw, res.json, res.steps)
				}
			}
		}
		// Repairing the repaired JSON changes nothing.
		again, err := repairArguments(res.json, opt)
		if err != nil || again.json != res.json {
			t.Fatalf("repairing %q again gave %q, %v", res.json, again.json, err)
		}
	})
}
