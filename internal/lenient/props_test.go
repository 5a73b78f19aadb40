package lenient

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonread"
)

// randomValue returns a random JSON value, made of the characters the
// repairs look at: quotes of every kind, '+', braces, commas, colons,
// comments' slashes, invisible characters.
func randomValue(r *rand.Rand, depth int) any {
	k := r.IntN(7)
	if depth <= 0 {
		k = r.IntN(4)
	}
	switch k {
	case 0:
		return json.Number([]string{"0", "-1", "2.5", "1e3", "12345678901234567890"}[r.IntN(5)])
	case 1:
		return []any{true, false, nil}[r.IntN(3)]
	case 2, 3:
		return randomString(r)
	case 4, 5:
		m := map[string]any{}
		for range r.IntN(4) {
			m[randomString(r)] = randomValue(r, depth-1)
		}
		return m
	default:
		xs := []any{}
		for range r.IntN(4) {
			xs = append(xs, randomValue(r, depth-1))
		}
		return xs
	}
}

func randomString(r *rand.Rand) string {
	pieces := []string{"a", "b c", `"`, "'", "+", " + ", "{", "}", "{x}", "[", "]", ",", ":", "//", "/*", "#",
		"\u200b", "“", "”", "\\", "\n", "27\"", "é", "```", "None", "{{", "}}"}
	var b strings.Builder
	for range r.IntN(6) {
		b.WriteString(pieces[r.IntN(len(pieces))])
	}
	return b.String()
}

// Any input that is already valid JSON comes out of repair as the same
// value (a JSON string holding an object aside, whose encoding is undone).
func TestRepairKeepsValidJSONUnchanged(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 18))
	for i := range 3000 {
		v := randomValue(r, 4)
		if s, ok := v.(string); ok && strings.HasPrefix(strings.TrimSpace(s), "{") {
			continue
		}
		var raw []byte
		var err error
		if i%2 == 0 {
			raw, err = json.Marshal(v)
		} else {
			raw, err = json.MarshalIndent(v, " ", "\t")
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, opt := range []Options{fix, {}} {
			res, err := Repair(string(raw), opt)
			if err != nil {
				t.Fatalf("Repair(%s): %v", raw, err)
			}
			got, err := jsonread.Decode(res.JSON)
			if err != nil || !reflect.DeepEqual(got, v) || res.JSON != string(raw) || len(res.Steps) > 0 {
				t.Fatalf("Repair(%s) = %s %v, %v; want it unchanged", raw, res.JSON, res.Steps, err)
			}
		}
	}
}
