package nearest

import (
	"slices"
	"strings"
)

// Index answers Closest over a fixed list of candidates in time that
// depends on the target and k, not on the number of candidates: it keeps
// the candidates sorted by their lowercased text and by that text
// reversed, and ranks only the max(2k, 64) neighbours on each side of the
// target in each order (the candidates that share the longest prefix or
// suffix with it), by the edit distance Closest uses. One edit leaves the
// text before it and the text after it whole, so a near miss shares a
// prefix or a suffix of half its length with what was meant; it is found
// unless more than 64 candidates share a longer one with the target. So
// the result is Closest's for the near misses it is meant for, and a
// close candidate otherwise. Build it once with NewIndex; it is safe for
// concurrent use.
type Index struct {
	texts    []string // the candidates, lowercased (first maxRunes runes)
	reversed []string // texts reversed, by rune
	byText   []int32  // candidate indexes in the order of texts
	byRev    []int32  // candidate indexes in the order of reversed
	n        int
}

// window is how many neighbours on each side of the target, in each
// order, an Index ranks at least.
const window = 64

// NewIndex indexes candidates, in O(n log n).
func NewIndex(candidates []string) *Index {
	ix := &Index{n: len(candidates), texts: make([]string, len(candidates)), reversed: make([]string, len(candidates)),
		byText: make([]int32, len(candidates)), byRev: make([]int32, len(candidates))}
	var buf []rune
	for i, c := range candidates {
		buf = appendRunes(buf[:0], c)
		ix.texts[i] = string(buf)
		slices.Reverse(buf)
		ix.reversed[i] = string(buf)
		ix.byText[i], ix.byRev[i] = int32(i), int32(i)
	}
	slices.SortStableFunc(ix.byText, func(a, b int32) int { return strings.Compare(ix.texts[a], ix.texts[b]) })
	slices.SortStableFunc(ix.byRev, func(a, b int32) int { return strings.Compare(ix.reversed[a], ix.reversed[b]) })
	return ix
}

// Len returns the number of candidates.
func (ix *Index) Len() int { return ix.n }

// Closest returns the indexes of up to k candidates closest to target,
// closest first, ties in the order of the candidates, as [Closest] ranks
// them, among the candidates that share the longest prefix or suffix with
// target (see Index). Every index, in order, when there are at most k
// candidates.
func (ix *Index) Closest(target string, k int) []int {
	if k <= 0 {
		return nil
	}
	if ix.n <= k {
		out := make([]int, ix.n)
		for i := range out {
			out[i] = i
		}
		return out
	}
	t := appendRunes(nil, target)
	text := string(t)
	slices.Reverse(t)
	rev := string(t)
	var cand []int
	seen := map[int32]bool{}
	add := func(order []int32, keys []string, key string) {
		at, _ := slices.BinarySearchFunc(order, key, func(i int32, key string) int { return strings.Compare(keys[i], key) })
		w := max(2*k, window)
		for i := max(0, at-w); i < min(len(order), at+w); i++ {
			if c := order[i]; !seen[c] {
				seen[c] = true
				cand = append(cand, int(c))
			}
		}
	}
	add(ix.byText, ix.texts, text)
	add(ix.byRev, ix.reversed, rev)
	slices.Sort(cand) // ties in the order of the candidates
	names := make([]string, len(cand))
	for i, c := range cand {
		names[i] = ix.texts[c]
	}
	best := Closest(target, names, k)
	out := make([]int, len(best))
	for i, b := range best {
		out[i] = cand[b]
	}
	return out
}
