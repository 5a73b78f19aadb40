package saidex

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/saidex/saidex-go/saidextest"
)

// FuzzInvokeHistory builds histories from the fuzzer's bytes — an AI
// message of calls (with ids, repeated ids, or none, as Gemini sends),
// some already answered, in any order, and maybe a message after them —
// and checks the node's contract on each: a refused history runs nothing
// and is refused only for a non-tool message after pending calls; an
// accepted one runs exactly the pending calls, answers every call exactly
// once, and a second Invoke changes nothing and runs nothing.
func FuzzInvokeHistory(f *testing.F) {
	f.Add([]byte{3, 0, 0b010, 0, 0})
	f.Add([]byte{4, 1, 0b1111, 2, 0})
	f.Add([]byte{2, 2, 0b01, 1, 1})
	f.Add([]byte{5, 0, 0b10101, 3, 2})
	f.Fuzz(func(t *testing.T, data []byte) {
		at := func(i int) int {
			if i < len(data) {
				return int(data[i])
			}
			return 0
		}
		n, idMode, answeredMask, rotate, tail := at(0)%6+1, at(1)%3, at(2), at(3), at(4)%3
		var runs atomic.Int64
		mk := func(name string) tools.Tool {
			return NewTool(name, "", func(context.Context, struct{}) (string, error) { runs.Add(1); return "ok", nil })
		}
		node := mustNode(t, []tools.Tool{mk("a"), mk("b")}, WithLogger(sanDiscard))

		calls := make([]llms.ToolCall, n)
		for i := range calls {
			id := fmt.Sprintf("c%d", i)
			switch idMode {
			case 1: // no ids
				id = ""
			case 2: // an id repeated: the later call is dropped
				id = fmt.Sprintf("c%d", i/2)
			}
			calls[i] = saidextest.Call(id, []string{"a", "b"}[at(5+i)%2], `{}`)
		}
		ai := saidextest.AIMessage(calls...)
		var answers []llms.MessageContent
		seen := map[string]bool{}
		pending := 0
		for i, c := range calls {
			if c.ID != "" && seen[c.ID] {
				continue // dropped
			}
			seen[c.ID] = c.ID != ""
			if answeredMask&(1<<i) != 0 {
				answers = append(answers, saidextest.ToolMessage(c.ID, c.FunctionCall.Name, "before"))
			} else {
				pending++
			}
		}
		if len(answers) > 0 {
			k := rotate % len(answers)
			answers = append(answers[k:], answers[:k]...)
		}
		conv := append([]llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "go")}, ai)
		conv = append(conv, answers...)
		switch tail {
		case 1:
			conv = append(conv, llms.TextParts(llms.ChatMessageTypeHuman, "next"))
		case 2:
			conv = append(conv, llms.TextParts(llms.ChatMessageTypeAI, "done"))
		}

		out, err := node.Invoke(context.Background(), conv)
		if err != nil {
			if !errors.Is(err, ErrMisplacedMessage) || tail == 0 || pending == 0 || runs.Load() != 0 {
				t.Fatalf("Invoke: %v (tail %d, pending %d, runs %d)", err, tail, pending, runs.Load())
			}
			return
		}
		if tail != 0 && pending > 0 {
			t.Fatalf("a %d-call history with %d pending and a message after them was accepted", n, pending)
		}
		if runs.Load() != int64(pending) {
			t.Fatalf("ran %d calls, want the %d pending", runs.Load(), pending)
		}
		if pending == 0 && !reflect.DeepEqual(out, conv) {
			t.Fatal("nothing pending, but the conversation changed")
		}
		// Every call not dropped is answered exactly once, right after the AI message.
		block := out[2:]
		for len(block) > 0 && block[len(block)-1].Role != llms.ChatMessageTypeTool {
			block = block[:len(block)-1]
		}
		used := map[int]bool{}
		seen = map[string]bool{}
		kept := toolCallsOf(out[1]) // the sanitized message: dropped calls removed
		for i, k := range matchResponses(out[1], block) {
			c := kept[i]
			if c.ID != "" && seen[c.ID] {
				continue
			}
			seen[c.ID] = c.ID != ""
			if k < 0 || used[k] {
				t.Fatalf("call %d (%q) answered %d, used %v", i, c.ID, k, used[k])
			}
			used[k] = true
		}
		if len(toolResponses(block)) != len(used) {
			t.Fatalf("%d responses for %d calls", len(toolResponses(block)), len(used))
		}
		again, err := node.Invoke(context.Background(), out)
		if err != nil || !reflect.DeepEqual(again, out) || runs.Load() != int64(pending) {
			t.Fatalf("second Invoke: err %v, changed %v, runs %d", err, !reflect.DeepEqual(again, out), runs.Load())
		}
	})
}
