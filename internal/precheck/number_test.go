package precheck

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestShortDecimalIsParseFloat checks shortDecimal against its oracle,
// strconv.ParseFloat: the same float64 (sign of zero included) for every
// literal it converts, and a refusal of every literal outside its form.
func TestShortDecimalIsParseFloat(t *testing.T) {
	fixed := []string{"48.85", "-0.5", "0.1", "0.0", "-0.0", "2.35", "123456789012.345",
		"0.00000000000001", "99999999999999.0", "900719925474.993", "-90.0", "1.7976931348"}
	refused := []string{"1", "-7", "1e2", "1.5e3", "1.5E-3", "1234567890123456.0", "0.1234567890123456", "0.000000000000001", "", "-", ".5", "1.2.3"}
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
		got, ok := shortDecimal([]byte(lit))
		want, err := strconv.ParseFloat(lit, 64)
		if !ok || err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("shortDecimal(%q) = %v, %v; ParseFloat = %v, %v", lit, got, ok, want, err)
		}
	}
	for _, lit := range refused {
		if got, ok := shortDecimal([]byte(lit)); ok {
			t.Errorf("shortDecimal(%q) = %v, true; want a refusal", lit, got)
		}
	}
	// The fast scanner converts as it reads: the same value for every
	// literal shortDecimal converts and every plain integer, and no value
	// (the checks then parse it) for a number with an exponent or more
	// than 15 digits.
	for _, lit := range append(fixed, "0", "-0", "7", "-42", "123456789012345", "-999999999999999") {
		f := fscan{b: []byte(lit)}
		v, ok := f.number()
		want, _ := strconv.ParseFloat(lit, 64)
		if !ok || f.i != len(lit) || !v.parsed || math.Float64bits(v.x) != math.Float64bits(want) || v.plainInt != isPlainInteger([]byte(lit)) {
			t.Fatalf("fscan.number(%q) = %+v, %v; ParseFloat = %v", lit, v, ok, want)
		}
	}
	for _, lit := range []string{"1e2", "1.5E-3", "1234567890123456", "1234567890123456.0", "0.1234567890123456"} {
		f := fscan{b: []byte(lit)}
		if v, ok := f.number(); !ok || v.parsed || v.plainInt {
			t.Errorf("fscan.number(%q) = %+v, %v; want a number left to parse", lit, v, ok)
		}
	}
}
