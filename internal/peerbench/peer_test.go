package main

import (
	"context"
	"fmt"
	"testing"

	"github.com/saidex/saidex-go/internal/benchfixture"
)

// BenchmarkPeer runs valid messages through both nodes; compare the pairs.
func BenchmarkPeer(b *testing.B) {
	en, err := newEino()
	if err != nil {
		b.Fatal(err)
	}
	sn, err := newSaidex()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range []int{1, 8, 64} {
		em, sm := einoMessage(benchfixture.Valid, n), benchfixture.Conversation(benchfixture.Valid, n)
		b.Run(fmt.Sprintf("valid/%d/eino", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := en.Invoke(ctx, em); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("valid/%d/saidex", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := sn.Run(ctx, sm); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func TestBothNodesAnswerValidCalls(t *testing.T) {
	en, err := newEino()
	if err != nil {
		t.Fatal(err)
	}
	sn, err := newSaidex()
	if err != nil {
		t.Fatal(err)
	}
	out, err := en.Invoke(context.Background(), einoMessage(benchfixture.Valid, 3))
	if err != nil || len(out) != 3 {
		t.Fatalf("eino: %d messages, %v", len(out), err)
	}
	res, err := sn.Run(context.Background(), benchfixture.Conversation(benchfixture.Valid, 3))
	if err != nil || len(res.ToolMessages) != 3 {
		t.Fatalf("saidex: %v", err)
	}
	for i := range out {
		if out[i].Content != res.Calls[i].Output {
			t.Errorf("call %d: eino %q, saidex %q", i, out[i].Content, res.Calls[i].Output)
		}
	}
}
