package precheck

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestNumberIsParseFloat checks the fast scanner's conversion, the
// checks' only one, against its oracle, strconv.ParseFloat: the same
// float64 (sign of zero included) for every literal of at most 15 digits
// and no exponent, no value (the checks then parse it) for a longer one or
// one with an exponent, and nothing read as one number from a text that is
// not one.
func TestNumberIsParseFloat(t *testing.T) {
	fixed := []string{"48.85", "-0.5", "0.1", "0.0", "-0.0", "2.35", "123456789012.345",
		"0.00000000000001", "99999999999999.0", "900719925474.993", "-90.0", "1.7976931348",
		"0", "-0", "1", "-7", "42", "123456789012345", "-999999999999999"}
	unparsed := []string{"1e2", "1.5e3", "1.5E-3", "1234567890123456", "1234567890123456.0", "0.1234567890123456", "0.000000000000001"}
	notNumbers := []string{"", "-", ".5", "1.2.3", "01", "1.", "-x"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		digits := 1 + r.IntN(15)
		point := 1 + r.IntN(digits) // digits before the point, at least one
		if point == digits {
			point--
		}
		if point == 0 {
			continue
		}
		b := make([]byte, 0, digits+2)
		if r.IntN(2) == 0 {
			b = append(b, '-')
		}
		for i := range digits {
			if i == point {
				b = append(b, '.')
			}
			d := byte('0' + r.IntN(10))
			if i == 0 && point > 1 && d == '0' {
				d = '1' // no leading zero, as in JSON
			}
			b = append(b, d)
		}
		fixed = append(fixed, string(b))
	}
	for _, lit := range fixed {
		f := fscan{b: []byte(lit)}
		v, ok := f.number()
		want, err := strconv.ParseFloat(lit, 64)
		plainInt := !strings.ContainsRune(lit, '.')
		if !ok || err != nil || f.i != len(lit) || !v.parsed || math.Float64bits(v.x) != math.Float64bits(want) || v.plainInt != plainInt {
			t.Fatalf("fscan.number(%q) = %+v, %v; ParseFloat = %v, %v", lit, v, ok, want, err)
		}
	}
	for _, lit := range unparsed {
		f := fscan{b: []byte(lit)}
		if v, ok := f.number(); !ok || f.i != len(lit) || v.parsed || v.plainInt {
			t.Errorf("fscan.number(%q) = %+v, %v; want a number left to parse", lit, v, ok)
		}
	}
	for _, lit := range notNumbers {
		f := fscan{b: []byte(lit)}
		if v, ok := f.number(); ok && f.i == len(lit) {
			t.Errorf("fscan.number(%q) = %+v: read as one number", lit, v)
		}
	}
}
