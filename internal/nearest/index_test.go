package nearest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// An Index ranks as Closest does whenever the candidates Closest picks
// are near misses: one edit (insertion, deletion, substitution) anywhere
// in the target leaves a long prefix or suffix, so they are among the
// neighbours the Index ranks.
func TestIndexFindsNearMisses(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var cands []string
	for i := range 5000 {
		cands = append(cands, fmt.Sprintf("item_%05d_%c", i, 'a'+rune(i%26)))
	}
	ix := NewIndex(cands)
	for range 500 {
		want := cands[rng.IntN(len(cands))]
		b := []byte(want)
		p := rng.IntN(len(b))
		switch rng.IntN(3) {
		case 0:
			b[p] = 'z'
		case 1:
			b = slices.Delete(b, p, p+1)
		default:
			b = slices.Insert(b, p, 'q')
		}
		target := string(b)
		got := ix.Closest(target, 1)
		full := Closest(target, cands, 1)
		if len(got) != 1 || !Within(target, cands[got[0]], 1) {
			t.Fatalf("%q: index gave %v, want a candidate within one edit such as %q", target, got, cands[full[0]])
		}
	}
}

func TestIndexSmall(t *testing.T) {
	ix := NewIndex([]string{"b", "a"})
	if got := ix.Closest("x", 5); !slices.Equal(got, []int{0, 1}) {
		t.Errorf("Closest = %v, want every index in order", got)
	}
	if ix.Closest("x", 0) != nil || ix.Len() != 2 {
		t.Errorf("k=0 or Len wrong")
	}
}
