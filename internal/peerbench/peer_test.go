package main

import (
	"context"
	"fmt"
	"testing"

	saidex "github.com/saidex/saidex-go"
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
	same, err := newSaidexSameTool()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, n := range []int{1, 8, 64} {
		em, sm := einoMessage(benchfixture.Valid, n), benchfixture.Conversation(benchfixture.Valid, n)
		b.Run(fmt.Sprintf("valid/%d/eino", n), benchEino(ctx, en, em))
		b.Run(fmt.Sprintf("valid/%d/saidex", n), benchSaidex(ctx, sn, sm))
		b.Run(fmt.Sprintf("valid/%d/saidex-same-tool", n), benchSaidex(ctx, same, sm))
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
	same, err := newSaidexSameTool()
	if err != nil {
		t.Fatal(err)
	}
	for _, node := range []*saidex.ToolNode{sn, same} {
		res, err := node.Run(context.Background(), benchfixture.Conversation(benchfixture.Valid, 3))
		if err != nil || len(res.ToolMessages) != 3 {
			t.Fatalf("saidex: %v", err)
		}
		for i := range out {
			if out[i].Content != res.Calls[i].Output || res.Calls[i].Outcome != saidex.OutcomeExecuted {
				t.Errorf("call %d: eino %q, saidex %q (%s)", i, out[i].Content, res.Calls[i].Output, res.Calls[i].Outcome)
			}
		}
	}
	// Both saidex tools are validated: an argument of the wrong type is
	// answered with feedback and never reaches the tool.
	bad := benchfixture.Conversation(benchfixture.Invalid, 1)
	for _, node := range []*saidex.ToolNode{sn, same} {
		res, err := node.Run(context.Background(), bad)
		if err != nil || res.Calls[0].Outcome != saidex.OutcomeFeedback {
			t.Errorf("invalid call: %v, %+v", err, res)
		}
	}
}
