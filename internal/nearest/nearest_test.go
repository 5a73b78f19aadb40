package nearest

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	for _, tt := range []struct {
		target     string
		candidates []string
		k          int
		want       []int
	}{
		{"x", []string{"a", "b"}, 5, []int{0, 1}},
		{"x", []string{"a", "b"}, 0, nil},
		{"celsius", []string{"kelvin", "fahrenheit", "Celsius", "celcius"}, 2, []int{2, 3}},
		{"get_wether", []string{"search", "get_weather", "get_forecast", "set_weather"}, 2, []int{1, 3}},
		{"b", []string{"aa", "a", "c", "bb"}, 3, []int{1, 2, 3}}, // ties in candidate order
		{"", []string{"abc", "a", "ab"}, 1, []int{1}},
		// beyond 32 runes nothing is compared
		{"0123456789012345678901234567890123456789x", []string{"0123456789012345678901234567890123456789y", "0"}, 1, []int{0}},
	} {
		if got := Closest(tt.target, tt.candidates, tt.k); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Closest(%q, %q, %d) = %v, want %v", tt.target, tt.candidates, tt.k, got, tt.want)
		}
	}
}

// plain is the edit distance by the full table, the oracle of within.
func plain(a, b []rune) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Closest agrees with sorting every candidate by its full edit distance.
func TestClosestAgreesWithAFullSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		b := make([]byte, rng.IntN(6))
		for i := range b {
			b[i] = "abcAB"[rng.IntN(5)]
		}
		return string(b)
	}
	for range 2000 {
		target := word()
		cands := make([]string, 1+rng.IntN(30))
		for i := range cands {
			cands[i] = word()
		}
		k := 1 + rng.IntN(6)
		idx := make([]int, len(cands))
		for i := range idx {
			idx[i] = i
		}
		slices.SortStableFunc(idx, func(a, b int) int {
			return plain(appendRunes(nil, target), appendRunes(nil, cands[a])) - plain(appendRunes(nil, target), appendRunes(nil, cands[b]))
		})
		want := idx[:min(k, len(idx))]
		if len(cands) <= k {
			want = want[:0]
			for i := range cands {
				want = append(want, i)
			}
		}
		if got := Closest(target, cands, k); !reflect.DeepEqual(got, want) {
			t.Fatalf("Closest(%q, %q, %d) = %v, want %v", target, cands, k, got, want)
		}
	}
}

// The work per candidate is bounded: at most 32×32 table entries, however
// long the strings, so ranking n candidates is linear in n.
func TestClosestComparesAtMost32Runes(t *testing.T) {
	long := make([]rune, 10000)
	for i := range long {
		long[i] = 'a'
	}
	if got := len(appendRunes(nil, string(long))); got != maxRunes {
		t.Fatalf("appendRunes kept %d runes, want %d", got, maxRunes)
	}
	cands := make([]string, 1000)
	for i := range cands {
		cands[i] = fmt.Sprintf("value-%d", i)
	}
	allocs := testing.AllocsPerRun(5, func() { Closest("value-12x", cands, 10) })
	if allocs > 2*float64(len(cands))+20 {
		t.Errorf("Closest of 1000 candidates allocates %v times", allocs)
	}
}
