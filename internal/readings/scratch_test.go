package readings

import "testing"

func TestScratch(t *testing.T) {
	for _, s := range []string{"\"\\\"{\\\\\\\"{x}35\\\\\\\": \\\\\\\"'+'\\\\\\\\/\\\\\\\\/\\\\\\\"}\\\"\""} {
		w := Read(s)
		r, v := w.Decide()
		t.Logf("%q -> %v %q min %d over %v", s, v, r.Text, w.Min, w.Over)
		for _, x := range w.Readings {
			t.Logf("     eng cost %d %v %v %q unknown %v", x.Cost, x.Ops, x.At, x.Text, x.Unknown)
		}
	}
}
