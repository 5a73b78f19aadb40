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
	t := appendRunes(nil, target)
	type ranked struct{ i, d int }
	best := make([]ranked, 0, k+1) // sorted by (d, i)
	var (
		d   distance
		buf []rune
	)
	for i, c := range candidates {
		limit := maxRunes
		if len(best) == k {
			limit = best[k-1].d - 1 // to enter, a candidate must be strictly closer
			if limit < 0 {
				break // k candidates as close as can be: the first ones win ties
			}
		}
		buf = appendRunes(buf[:0], c)
		dist, ok := d.within(t, buf, limit)
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

// Within reports whether the edit distance of a and b, measured as Closest
// measures it (on the first 32 runes, ignoring case), is at most limit.
func Within(a, b string, limit int) bool {
	if limit < 0 {
		return false
	}
	var d distance
	_, ok := d.within(appendRunes(nil, a), appendRunes(nil, b), limit)
	return ok
}

// appendRunes appends the first maxRunes runes of s, lowercased, to buf.
func appendRunes(buf []rune, s string) []rune {
	for n := 0; len(s) > 0 && n < maxRunes; n++ {
		r, size := utf8.DecodeRuneInString(s)
		if r < utf8.RuneSelf {
			if 'A' <= r && r <= 'Z' {
				r += 'a' - 'A'
			}
		} else {
			r = unicode.ToLower(r)
		}
		buf = append(buf, r)
		s = s[size:]
	}
	return buf
}

// distance holds the rows of the edit-distance table, reused across calls.
type distance struct{ prev, cur []int }

// within returns the edit distance of a and b, and whether it is at most
// limit. It fills only the cells within limit of the diagonal (a cell
// farther away holds more than limit), and gives up as soon as a row holds
// nothing within limit: about (2·limit+1)·len(a) steps.
func (d *distance) within(a, b []rune, limit int) (int, bool) {
	if diff := len(a) - len(b); diff > limit || -diff > limit {
		return 0, false
	}
	far := limit + 1 // stands for any distance beyond limit
	d.prev = slices.Grow(d.prev[:0], len(b)+1)[:len(b)+1]
	d.cur = slices.Grow(d.cur[:0], len(b)+1)[:len(b)+1]
	for j := range d.prev {
		d.prev[j] = min(j, far)
	}
	for i := 1; i <= len(a); i++ {
		lo, hi := max(1, i-limit), min(len(b), i+limit)
		if lo-1 == 0 {
			d.cur[0] = min(i, far)
		} else {
			d.cur[lo-1] = far
		}
		rowMin := d.cur[lo-1]
		for j := lo; j <= hi; j++ {
			sub := d.prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			v := min(sub, d.prev[j]+1, d.cur[j-1]+1, far)
			d.cur[j] = v
			rowMin = min(rowMin, v)
		}
		if hi+1 <= len(b) {
			d.cur[hi+1] = far
		}
		if rowMin > limit {
			return 0, false
		}
		d.prev, d.cur = d.cur, d.prev
	}
	return d.prev[len(b)], d.prev[len(b)] <= limit
}
