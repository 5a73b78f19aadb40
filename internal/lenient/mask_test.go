package lenient

import (
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/jsonread"
)

// keys marks the members named in it secret, at any depth.
type keys map[string]bool

func (k keys) Secret() bool { return false }
func (k keys) Member(name string) Secrets {
	if k[name] {
		return secretHere{}
	}
	return k
}
func (k keys) Item(int) Secrets { return k }

type secretHere struct{}

func (secretHere) Secret() bool          { return true }
func (secretHere) Member(string) Secrets { return nil }
func (secretHere) Item(int) Secrets      { return nil }

func TestMaskShowsOnlyWhatItPlaces(t *testing.T) {
	const M = "***"
	tests := []struct {
		name, in, want string
		values         []SecretValue
	}{
		{"valid JSON keeps its text", `{"user": "bob", "password": "hunter2"}`, `{"user": "bob", "password": ***}`,
			[]SecretValue{{"/password", `"hunter2"`}}},
		{"cut after the secret", `{"user":"bob","password":"hunter2","note":"ab`, `{"user":"bob","password":***,"note":"ab`,
			[]SecretValue{{"/password", `"hunter2"`}}},
		{"cut inside the secret", `{"user":"bob","password":"hunt`, `{"user":"bob","password":***`, nil},
		{"two objects", `{"password":"a1"} {"password":"b2"}`, `{"password":***} {"password":***}`,
			[]SecretValue{{"/password", `"a1"`}, {"/password", `"b2"`}}},
		{"prose around a cut object", `my password is hunter2: {"password": 'hunter2', "n`, `[24 bytes not shown]{"password": ***, "n`,
			[]SecretValue{{"/password", `'hunter2'`}}},
		{"placeholders are prose", `use {hunter2} {"a":1}`, `[14 bytes not shown]{"a":1}`, nil},
		{"nested secret and arrays", `{"a":[{"password":["x","y"]},{"password":{"k":"v"}}],"b":true}`, `{"a":[{"password":***},{"password":***}],"b":true}`,
			[]SecretValue{{"/a/0/password", `["x","y"]`}, {"/a/1/password", `{"k":"v"}`}}},
		{"bare keys and single quotes", `{password: 'hunter2', user: 'bob',}`, `{password: ***, user: 'bob',}`,
			[]SecretValue{{"/password", `'hunter2'`}}},
		{"escaped key", `{"pass\u0077ord": "hunter2"}`, `{"pass\u0077ord": ***}`, []SecretValue{{"/password", `"hunter2"`}}},
		{"an inner quote hides the rest", `{"password": "hun"ter2", "user": "x"}`, `{"password": ***[19 bytes not shown]`,
			[]SecretValue{{"/password", `"hun"`}}},
		{"an apostrophe hides the rest", `{'note': 'it's', 'password': 'hunter2'}`, `{'note': 'it'[26 bytes not shown]`, nil},
		{"a comment hides the rest", `{"a": 1 /* hunter2 */}`, `{"a": 1 [14 bytes not shown]`, nil},
		{"a string join hides the rest", `{"password": 'hun' + 'ter2'}`, `{"password": *** [9 bytes not shown]`,
			[]SecretValue{{"/password", `'hun'`}}},
		{"typographic quotes hide the secret", `{"password": “hunter2”}`, `{"password": ***[` + "14" + ` bytes not shown]`, nil},
		{"double encoding is hidden", `"{\"password\": \"hunter2\"}"`, `[1 bytes not shown]{[27 bytes not shown]`, nil},
		{"bare text", `hunter2`, `[7 bytes not shown]`, nil},
		{"a repeated key masks both", `{"password":"a","password":"b"}`, `{"password":***,"password":***}`,
			[]SecretValue{{"/password", `"a"`}, {"/password", `"b"`}}},
		{"a missing comma hides the rest", `{"a": "x" "password": "hunter2"}`, `{"a": "x" [22 bytes not shown]`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Mask(tt.in, keys{"password": true}, M)
			if got.Text != tt.want {
				t.Errorf("Mask(%s)\n = %s\nwant %s", tt.in, got.Text, tt.want)
			}
			if strings.Contains(got.Text, "hunter2") || strings.Contains(got.Text, "ter2") {
				t.Errorf("the secret shows: %s", got.Text)
			}
			if len(got.Values) != len(tt.values) {
				t.Fatalf("values %v, want %v", got.Values, tt.values)
			}
			for i := range tt.values {
				if got.Values[i] != tt.values[i] {
					t.Errorf("value %d = %v, want %v", i, got.Values[i], tt.values[i])
				}
			}
		})
	}
}

// Nesting deeper than the reader goes is hidden, not read recursively.
func TestMaskDeepNestingIsHidden(t *testing.T) {
	in := strings.Repeat("[", 20000) + `"hunter2"`
	got := Mask(`{"a":`+in+`}`, keys{}, "***")
	if strings.Contains(got.Text, "hunter2") || got.Hidden == 0 {
		t.Errorf("deep nesting: hidden %d bytes, text ends %q", got.Hidden, got.Text[len(got.Text)-40:])
	}
}

// FuzzMask: for a text that holds one JSON object (a reading every
// reader agrees on), no string value under a "password" member shows in
// the masked text, and a text Mask shows whole equals the input with only
// the secret values replaced.
func FuzzMask(f *testing.F) {
	for _, s := range []string{`{"password":"hunter2"}`, `{"a": [1, {"password": "y1234"}], "b": "c"}`, `x {"a": "b"} {"password": "zzzz`,
		`{"password": {"k": ["v1234", "\"q"]}}`, `{"pass\u0077ord": "e5678"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Mask(s, keys{"password": true}, "\x00")
		if got.Hidden == 0 && got.Masked == 0 && got.Text != s {
			t.Fatalf("nothing masked or hidden, yet Mask(%q) = %q", s, got.Text)
		}
		v, err := jsonread.Decode(s)
		if err != nil {
			return
		}
		var secrets []string
		var walk func(v any, secret bool)
		walk = func(v any, secret bool) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					walk(e, secret || k == "password")
				}
			case []any:
				for _, e := range x {
					walk(e, secret)
				}
			case string:
				if secret && len(x) >= 4 {
					secrets = append(secrets, x)
				}
			}
		}
		walk(v, false)
		for _, sec := range secrets {
			if strings.Count(s, sec) == 1 && strings.Contains(got.Text, sec) {
				t.Fatalf("secret %q shows in Mask(%q) = %q", sec, s, got.Text)
			}
		}
	})
}
