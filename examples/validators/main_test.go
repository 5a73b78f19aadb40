package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestValidators runs the example with the scripted agent and checks what
// happened to each call.
func TestValidators(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, scriptedAgent()); err != nil {
		t.Fatal(err)
	}
	// Each call's block, keyed by its header line.
	blocks := map[string]string{}
	for _, b := range strings.Split("\n"+out.String(), "\ncall_")[1:] {
		head, _, _ := strings.Cut(b, "\n")
		blocks["call_"+head] = b
	}
	for _, tc := range []struct {
		name string // what the example shows
		head string
		want []string
	}{
		{"a missing user_id is filled from the state", "call_1 salvaged",
			[]string{"salvaged:   the unresolved hook (fillUserID) rewrote the call, user_id from the session;",
				"the rewritten arguments were validated again, then run",
				`ran with:   {"order_id":"A-100","user_id":"u1"}`, "result:     cancelled A-100"}},
		{"another user's order is rejected", "call_2 feedback",
			[]string{"rejected:   /order_id: the user has no such order"}},
		{"a shipped order is flagged and still runs", "call_3 executed",
			[]string{"flagged:    /order_id: the order has shipped", "result:     cancelled A-101"}},
		{"a guessed user_id is replaced by the state's", "call_4 salvaged",
			[]string{"salvaged:   the unresolved hook (fillUserID) rewrote the call", `ran with:   {"order_id":"A-102","user_id":"u1"}`, "result:     cancelled A-102"}},
	} {
		b, ok := blocks[tc.head]
		if !ok {
			t.Errorf("%s: no %q in the output:\n%s", tc.name, tc.head, out.String())
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(b, w) {
				t.Errorf("%s: %q lacks %q:\n%s", tc.name, tc.head, w, b)
			}
		}
	}
	if strings.Count(out.String(), "salvaged:   the unresolved hook") != 2 {
		t.Errorf("the hook's rewrite is not explained exactly for the two salvaged calls:\n%s", out.String())
	}
	if strings.Contains(out.String(), "cancelled B-200") || strings.Count(out.String(), "flagged:") != 1 {
		t.Errorf("B-200 was cancelled, or a call other than the shipped order was flagged:\n%s", out.String())
	}
}
