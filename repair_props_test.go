package saidex

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
)

// wrappings put one object (%s) into the noise models put around it.
var wrappings = []string{
	"Sure, here are the arguments: %s",
	"%s\n\nLet me know if you need anything else.",
	"```json\n%s\n```",
	"Calling the tool now.\n```\n%s\n```\nDone.",
	"<think>\nThe user wants this; I will fill it in.\n</think>\n%s",
	"the opening tag was in the prompt\n</think>\n\n%s",
	"<|python_tag|>%s<|eom_id|>",
	"[TOOL_CALLS]%s",
	"%s</tool_call>",
	"%s<|im_end|>",
	"%s}",
	"%s\n%[1]s",
}

// joinings glue two objects (%s, %s) the ways streams merge them.
var joinings = []string{"%s%s", "%s %s", "%s\n%s", "%s\n\n%s", "Options: %s or %s", "```json\n%s\n%s\n```"}

func checkObjectProperties(t *testing.T, objects []string) {
	t.Helper()
	opt := defaultRepairOptions()
	for i, obj := range objects {
		want := mustDecode(t, obj)
		for _, w := range wrappings {
			raw := sprintf(w, obj)
			res, err := repairArguments(raw, opt)
			if err != nil && w == "%s}" && nestedObjectBeforeMember(obj) {
				// An extra brace after an object whose nested object has
				// members after it may be that object's brace, closed too
				// early: refused (issue 21's oracle).
				continue
			}
			if err != nil {
				t.Errorf("%q: %v", raw, err)
				continue
			}
			if !sameJSON(res.value, want) {
				t.Errorf("%q repaired to %s, want %s", raw, res.json, obj)
			}
		}
		enc, _ := json.Marshal(obj)
		for _, w := range []string{"%s", "%s\n", "Arguments: %s", "```json\n%s\n```", "<think>x</think>%s"} {
			raw := sprintf(w, enc)
			res, err := repairArguments(raw, opt)
			if err != nil && escapesOtherThanQuote(obj) {
				// "{\"a\": \"x\\ny\"}" is also "x\ny" with the object's
				// backslash not doubled, and "C:\\\\temp" also C:\\temp:
				// two readings, refused (issue 21).
				continue
			}
			if err != nil || !sameJSON(res.value, want) {
				t.Errorf("double-encoded %q: %s, %v", raw, res.json, err)
			}
		}
		other := objects[(i+1)%len(objects)]
		if sameJSON(mustDecode(t, other), want) {
			continue
		}
		for _, j := range joinings {
			raw := sprintf(j, obj, other)
			if res, err := repairArguments(raw, opt); err == nil {
				t.Errorf("two different objects %q repaired to %s, want a refusal", raw, res.json)
			}
		}
	}
}

// nestedObjectBeforeMember reports whether the compact text of obj has a
// nested object followed by another member or item.
func nestedObjectBeforeMember(obj string) bool {
	v := mustDecodeAny(obj)
	c, _ := json.Marshal(v)
	return strings.Contains(string(c), "},")
}

// escapesOtherThanQuote reports whether the JSON text s holds an escape
// other than \".
func escapesOtherThanQuote(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '\\' {
			if s[i+1] != '"' {
				return true
			}
			i++
		}
	}
	return false
}

func mustDecodeAny(s string) any {
	var v any
	_ = json.Unmarshal([]byte(s), &v)
	return v
}

func sprintf(format string, args ...any) string {
	return fmt.Sprintf(format, args...)
}

func TestRepairExtractsOneObjectFromAnyNoiseAndRefusesTwo(t *testing.T) {
	checkObjectProperties(t, []string{
		`{"city": "Oslo", "days": 3}`,
		`{"q": "a {braced} \"quoted\" value", "n": [1, 2, {"x": null}]}`,
		`{"path": "C:\\temp", "ok": false, "note": "it's fine"}`,
		`{}`,
		`{"nested": {"deep": {"deeper": ["x", "y"]}}}`,
	})
}

func TestRepairExtractsCorpusValuesFromAnyNoiseAndRefusesTwo(t *testing.T) {
	objects := corpusWantArguments(t)
	if objects == nil {
		t.Skip("corpus not present")
	}
	if len(objects) < 100 {
		t.Fatalf("read only %d objects from the corpus", len(objects))
	}
	checkObjectProperties(t, objects)
}

// corpusWantArguments returns the intended argument objects of the shared
// corpus, or nil when it is absent.
func corpusWantArguments(tb testing.TB) []string {
	tb.Helper()
	f, err := os.Open("../shared/corpus/dev.jsonl")
	if err != nil {
		return nil
	}
	defer f.Close()
	var objects []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var c struct {
			Want json.RawMessage `json:"want_arguments"`
		}
		if json.Unmarshal(sc.Bytes(), &c) == nil && len(c.Want) > 0 && c.Want[0] == '{' {
			objects = append(objects, string(c.Want))
		}
	}
	return objects
}
