package precheck

import (
	"math"
	"math/big"
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
		x, xok := v.float()
		if !ok || err != nil || f.i != len(lit) || !v.dec || !xok || math.Float64bits(x) != math.Float64bits(want) || v.plainInt() != plainInt {
			t.Fatalf("fscan.number(%q) = %+v (%v), %v; ParseFloat = %v, %v", lit, v, x, ok, want, err)
		}
	}
	for _, lit := range unparsed {
		f := fscan{b: []byte(lit)}
		v, ok := f.number()
		if !ok || f.i != len(lit) || v.dec || v.plainInt() {
			t.Errorf("fscan.number(%q) = %+v, %v; want a number left to parse", lit, v, ok)
		}
		x, xok := v.float()
		if want, err := strconv.ParseFloat(lit, 64); !xok || err != nil || x != want {
			t.Errorf("num(%q).float() = %v, %v; ParseFloat = %v, %v", lit, x, xok, want, err)
		}
	}
	for _, lit := range notNumbers {
		f := fscan{b: []byte(lit)}
		if v, ok := f.number(); ok && f.i == len(lit) {
			t.Errorf("fscan.number(%q) = %+v: read as one number", lit, v)
		}
	}
}

// TestPlaceIsExact checks bound.place, which compares a number read by
// fscan.number with an integer bound in integers, against exact rational
// arithmetic (math/big) over generated numbers and bounds: the same place
// whenever it answers, and an answer for every number of at most 15 digits
// against a bound that fits after scaling.
func TestPlaceIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	bounds := []int64{0, 1, -1, 14, 90, -90, 180, 1_000_000, math.MaxInt32, -1 << 53, 9_223, 9_224, math.MaxInt64, math.MinInt64}
	answered := 0
	for range 50000 {
		var bi int64
		if r.IntN(3) == 0 {
			bi = bounds[r.IntN(len(bounds))]
		} else {
			bi = r.Int64N(2001) - 1000
		}
		// a number near the bound: its integer part, and up to 15 digits
		// in all, at times exactly the bound
		lit := strconv.FormatInt(bi+r.Int64N(3)-1, 10)
		if bi > math.MaxInt64-2 || bi < math.MinInt64+2 {
			lit = strconv.FormatInt(bi, 10)
		}
		if r.IntN(2) == 0 {
			lit += "." + strconv.Itoa(r.IntN(1000))
		}
		f := fscan{b: []byte(lit)}
		v, ok := f.number()
		if !ok || f.i != len(lit) {
			t.Fatalf("fscan.number(%q) did not read it", lit)
		}
		b := bound{i: bi, isInt: true}
		p, ok := b.place(v)
		if !ok {
			if v.dec && bi <= maxScaled[v.frac] && bi >= -maxScaled[v.frac] {
				t.Fatalf("place(%q, %d) gave no answer", lit, bi)
			}
			continue
		}
		answered++
		x, _ := new(big.Rat).SetString(lit)
		want := [...]uint8{below, at, above}[x.Cmp(new(big.Rat).SetInt64(bi))+1]
		if p != want {
			t.Fatalf("place(%q, %d) = %b, want %b", lit, bi, p, want)
		}
	}
	if answered < 40000 {
		t.Fatalf("place answered %d of 50,000: the generator misses it", answered)
	}
}
