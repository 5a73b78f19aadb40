package lenient

import "github.com/saidex/saidex-go/internal/jsonread"

// A text whose closing brackets are missing at its end is closed at its end
// (a stream cut off). Where a closer was dropped inside the text instead,
// that reading misplaces the members after it: {"a": {"b": 1, "c": 2 may be
// {"a": {"b": 1}, "c": 2}. Options.Choose, given every reading, may pick the
// one the tool's schema accepts.

// Bounds of the readings offered to Options.Choose, which keep repair
// linear: at most maxReadings of them, and at most maxReadingBytes of text
// in all. A text with more is closed at its end (or refused) as without
// Options.Choose.
const (
	maxReadings     = 32
	maxReadingBytes = 1 << 20
)

// readings returns the texts that out, the canonical text of a scan whose
// last closers bytes are the closers it added at the end, reads as when
// each of those closers may instead have been dropped where a member ends
// inside the text (before a comma, in a container nested in the root):
// out itself first, then each other placement of them that is one JSON
// value; out alone when no member ends inside a nested container. It
// returns nil when the placements are more than the bounds allow, or when
// one of the readings repeats a member name, which the caller would have
// to drop first (the text is then treated as having no other reading to
// choose from).
func readings(out string, closers int) []string {
	body := out[:len(out)-closers]
	var commas []int // in containers nested in the root, outside strings
	depth := 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '"':
			end, _ := stringEnd(body, i) // mask.go
			i = end - 1
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth >= 2 {
				commas = append(commas, i)
			}
		}
	}
	n, ok := placements(len(commas)+1, closers)
	if !ok || n > maxReadings || n*len(out) > maxReadingBytes {
		return nil
	}
	all := []string{out}
	count := make([]int, len(commas)) // closers placed before each comma
	var place func(k, left int)
	place = func(k, left int) {
		if k == len(commas) {
			if left == closers {
				return // out itself, first already
			}
			if r, ok := placed(body, commas, count, left); ok {
				all = append(all, r)
			}
			return
		}
		for c := 0; c <= left; c++ {
			count[k] = c
			place(k+1, left-c)
		}
		count[k] = 0
	}
	place(0, closers)
	for _, r := range all {
		if jsonread.RepeatsName(r) {
			return nil
		}
	}
	return all
}

// placements returns how many ways there are to place closers identical
// closers in slots slots, C(slots+closers-1, closers); ok is false when
// that is more than maxReadings.
func placements(slots, closers int) (n int, ok bool) {
	n = 1
	for i := 1; i <= closers; i++ {
		n = n * (slots - 1 + i) / i
		if n > maxReadings {
			return n, false
		}
	}
	return n, true
}

// placed returns body with count[k] closers inserted before each comma
// commas[k] and atEnd closers at its end, each the closer of the bracket
// open there; ok is false when the result is not one JSON value.
func placed(body string, commas, count []int, atEnd int) (string, bool) {
	b := make([]byte, 0, len(body)+len(commas)+atEnd)
	var stack []byte
	closeN := func(n int) bool {
		for ; n > 0; n-- {
			if len(stack) < 2 {
				return false // the root closes at the end of the text only
			}
			b = append(b, closerOf(stack[len(stack)-1]))
			stack = stack[:len(stack)-1]
		}
		return true
	}
	next := 0
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch c {
		case '"':
			end, _ := stringEnd(body, i)
			b = append(b, body[i:end]...)
			i = end - 1
			continue
		case '{', '[':
			stack = append(stack, c)
		case '}', ']':
			if len(stack) == 0 || closerOf(stack[len(stack)-1]) != c {
				return "", false
			}
			stack = stack[:len(stack)-1]
		case ',':
			if next < len(commas) && commas[next] == i {
				if !closeN(count[next]) {
					return "", false
				}
				next++
			}
		}
		b = append(b, c)
	}
	if len(stack) != atEnd {
		return "", false
	}
	for k := len(stack) - 1; k >= 0; k-- {
		b = append(b, closerOf(stack[k]))
	}
	r := string(b)
	return r, jsonread.Valid(r)
}

// closerOf returns the closing bracket of the opening bracket open.
func closerOf(open byte) byte {
	if open == '[' {
		return ']'
	}
	return '}'
}
