// Package nearest ranks strings by how close they are to a target, for
// messages that name a few of many allowed values ("did you mean …")
// instead of listing them all.
package nearest

import (
	"cmp"
	"slices"
	"unicode"
	"unicode/utf8"
)

// maxRunes is how much of each string is compared: the edit distance of
// the first maxRunes runes (lowercased). Comparing more costs more and
// rarely changes which values are closest.
const maxRunes = 32

// Closest returns the indexes in candidates of the k strings closest to
// target, closest first: by the edit distance (Levenshtein, on the first 32
// runes, ignoring case) and, at equal distance, in the order of
// candidates. It returns every index, in order, when len(candidates) <= k.
// Its cost is linear in len(candidates): at most 32×32 steps each, fewer as
// the k-th best distance found so far bounds the rest.
func Closest(target string, candidates []string, k int) []int {
	if k <= 0 {
		return nil
	}
	if len(candidates) <= k {
		out := make([]int, len(candidates))
		for i := range out {
			out[i] = i
		}
		return out
	}
	t := runesOf(target)
	type ranked struct{ i, d int }
	best := make([]ranked, 0, k+1) // sorted by (d, i)
	var d distance
	for i, c := range candidates {
		limit := maxRunes + 1
		if len(best) == k {
			limit = best[k-1].d - 1 // to enter, a candidate must be strictly closer
			if limit < 0 {
				continue
			}
		}
		dist, ok := d.within(t, runesOf(c), limit)
		if !ok {
			continue
		}
		at, _ := slices.BinarySearchFunc(best, ranked{i, dist}, func(a, b ranked) int {
			return cmp.Or(cmp.Compare(a.d, b.d), cmp.Compare(a.i, b.i))
		})
		best = slices.Insert(best, at, ranked{i, dist})
		if len(best) > k {
			best = best[:k]
		}
	}
	out := make([]int, len(best))
	for j, r := range best {
		out[j] = r.i
	}
	return out
}

// runesOf returns the first maxRunes runes of s, lowercased.
func runesOf(s string) []rune {
	out := make([]rune, 0, min(len(s), maxRunes))
	for len(s) > 0 && len(out) < maxRunes {
		r, n := utf8.DecodeRuneInString(s)
		out = append(out, unicode.ToLower(r))
		s = s[n:]
	}
	return out
}

// distance holds the rows of the edit-distance table, reused across calls.
type distance struct{ prev, cur []int }

// within returns the edit distance of a and b, and whether it is at most
// limit; it gives up as soon as every entry of a row exceeds limit.
func (d *distance) within(a, b []rune, limit int) (int, bool) {
	if diff := len(a) - len(b); diff > limit || -diff > limit {
		return 0, false
	}
	d.prev = slices.Grow(d.prev[:0], len(b)+1)[:len(b)+1]
	d.cur = slices.Grow(d.cur[:0], len(b)+1)[:len(b)+1]
	for j := range d.prev {
		d.prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		d.cur[0] = i
		rowMin := i
		for j := 1; j <= len(b); j++ {
			sub := d.prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			d.cur[j] = min(sub, d.prev[j]+1, d.cur[j-1]+1)
			rowMin = min(rowMin, d.cur[j])
		}
		if rowMin > limit {
			return 0, false
		}
		d.prev, d.cur = d.cur, d.prev
	}
	return d.prev[len(b)], d.prev[len(b)] <= limit
}
