// Package jsonvalue compares and encodes decoded JSON values: the values
// encoding/json decodes into any (map[string]any, []any, string, bool,
// nil, and numbers as json.Number or float64).
package jsonvalue

import (
	"encoding/json"
	"math/big"
	"strings"
)

// Encode returns the compact JSON text of v, the way a model writes
// arguments: object keys sorted, json.Number values as written, and
// "<", ">" and "&" not escaped (encoding/json's Marshal escapes them for
// HTML), with no trailing newline. It returns encoding/json's error for a
// value that does not encode, such as a NaN float64 or a channel.
func Encode(v any) (string, error) {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	s := b.String()
	return s[:len(s)-1], nil // Encode ends the value with a newline
}

// Equal reports whether two decoded JSON values (as encoding/json decodes
// them into any, numbers as json.Number or float64) are the same value:
// object key order does not matter and json.Number values compare
// numerically.
func Equal(a, b any) bool {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			w, ok := y[k]
			if !ok || !Equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !Equal(x[i], y[i]) {
				return false
			}
		}
		return true
	case json.Number:
		y, ok := b.(json.Number)
		if !ok {
			return false
		}
		ra, ok1 := new(big.Rat).SetString(string(x))
		rb, ok2 := new(big.Rat).SetString(string(y))
		return ok1 && ok2 && ra.Cmp(rb) == 0
	default:
		return a == b
	}
}

// HasLooseNumber reports whether the decoded JSON value v holds a
// json.Number written with a fraction or an exponent (saidex's CoercionLax
// may rewrite such a number as an integer).
func HasLooseNumber(v any) bool {
	switch x := v.(type) {
	case json.Number:
		return strings.ContainsAny(string(x), ".eE")
	case map[string]any:
		for _, e := range x {
			if HasLooseNumber(e) {
				return true
			}
		}
	case []any:
		for _, e := range x {
			if HasLooseNumber(e) {
				return true
			}
		}
	}
	return false
}

// DeeperThan reports whether the decoded JSON value v nests objects and
// arrays more than limit levels deep (a scalar is at depth 0, {} and []
// at depth 1). It stops as soon as it finds the answer, so its cost is at
// most linear in the size of v and its recursion at most limit+1 deep.
func DeeperThan(v any, limit int) bool {
	if limit < 0 {
		return true
	}
	switch x := v.(type) {
	case map[string]any:
		if limit == 0 {
			return true
		}
		for _, e := range x {
			if DeeperThan(e, limit-1) {
				return true
			}
		}
	case []any:
		if limit == 0 {
			return true
		}
		for _, e := range x {
			if DeeperThan(e, limit-1) {
				return true
			}
		}
	}
	return false
}
