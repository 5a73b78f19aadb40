package saidex_test

import (
	"context"
	"errors"
	"reflect"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// TestResultMessagesIsInvoke: Result.Messages returns what Invoke returns
// on the same conversation, for every shape of conversation Invoke
// accepts, with and without sanitizing; it modifies neither the
// conversation nor the result, and returns a new slice each time.
func TestResultMessagesIsInvoke(t *testing.T) {
	human := llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Rome?")
	ai := saidextest.AIMessage(
		saidextest.Call("call_1", "get_weather", `{'city': 'Paris',}`),
		saidextest.Call("call_2", "get_weather", `{"city": "Rome"}`),
	)
	answered := saidextest.ToolMessage("call_2", "get_weather", "sunny in Rome")
	tests := []struct {
		name         string
		conversation []llms.MessageContent
		opts         []saidex.Option
		wantLen      int
	}{
		{"every call pending", []llms.MessageContent{human, ai}, nil, 4},
		{"every call pending, not sanitized", []llms.MessageContent{human, ai}, []saidex.Option{saidex.WithSanitizeMessages(false)}, 4},
		{"one call answered before", []llms.MessageContent{human, ai, answered}, nil, 4},
		{"every call answered", []llms.MessageContent{human, ai, saidextest.ToolMessage("call_1", "get_weather", "x"), answered}, nil, 4},
		{"no AI message with calls", []llms.MessageContent{human, llms.TextParts(llms.ChatMessageTypeAI, "Hello.")}, nil, 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			node := weatherNode(t, tt.opts...)
			before := deepCopy(t, tt.conversation)
			want, err := node.Invoke(ctx, tt.conversation)
			if err != nil {
				t.Fatal(err)
			}
			res, err := node.Run(ctx, tt.conversation)
			if err != nil {
				t.Fatal(err)
			}
			reportBefore := deepCopy(t, res.ToolMessages)
			got := res.Messages()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Messages:\n got %v\nwant %v (Invoke)", got, want)
			}
			if len(got) != tt.wantLen {
				t.Errorf("Messages has %d messages, want %d", len(got), tt.wantLen)
			}
			if again := res.Messages(); len(again) > 0 && &again[0] == &got[0] {
				t.Error("Messages returned the same slice twice")
			}
			if !reflect.DeepEqual(tt.conversation, before) || !reflect.DeepEqual(res.ToolMessages, reportBefore) {
				t.Error("Messages modified the conversation or the result")
			}
		})
	}
}

// TestPartialMessagesKeepTheAnsweredCalls: without WithHandleToolErrors a
// tool error stops the run; the Partial result's Messages hold the answered
// sibling's tool message and not the failed call's, so running the node
// again on them runs the failed call only.
func TestPartialMessagesKeepTheAnsweredCalls(t *testing.T) {
	ctx := context.Background()
	var ran []string
	down := true
	tool := saidex.NewTool("get_weather", "Weather.", func(ctx context.Context, a WeatherArgs) (string, error) {
		ran = append(ran, a.City)
		if a.City == "Oslo" && down {
			return "", errors.New("service down")
		}
		return "sunny in " + a.City, nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{tool}, saidex.WithMaxConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	conversation := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather?"),
		saidextest.AIMessage(
			saidextest.Call("call_1", "get_weather", `{"city": "Paris"}`),
			saidextest.Call("call_2", "get_weather", `{"city": "Oslo"}`),
		),
	}
	msgs, err := node.Invoke(ctx, conversation)
	var toolErr *saidex.ToolError
	if msgs != nil || !errors.As(err, &toolErr) || toolErr.Partial == nil {
		t.Fatalf("Invoke = %v, %v; want no messages and a *ToolError with a Partial result", msgs, err)
	}
	kept := toolErr.Partial.Messages()
	if len(kept) != 3 || kept[2].Role != llms.ChatMessageTypeTool {
		t.Fatalf("Partial.Messages() = %v; want the human and AI messages and call_1's tool message", kept)
	}
	if resp := kept[2].Parts[0].(llms.ToolCallResponse); resp.ToolCallID != "call_1" || resp.Content != "sunny in Paris" {
		t.Errorf("kept tool message = %+v", resp)
	}
	down = false
	ran = nil
	next, err := node.Invoke(ctx, kept)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ran, []string{"Oslo"}) || len(next) != 4 {
		t.Errorf("second run ran %v and returned %d messages; want only Oslo and 4 messages", ran, len(next))
	}
}

// TestZeroResultMessages: a Result not made by Run returns nil.
func TestZeroResultMessages(t *testing.T) {
	var r saidex.Result
	if got := r.Messages(); got != nil {
		t.Errorf("zero Result's Messages() = %v, want nil", got)
	}
}

func weatherNode(t *testing.T, opts ...saidex.Option) *saidex.ToolNode {
	t.Helper()
	tool := saidex.NewTool("get_weather", "Weather.", func(ctx context.Context, a WeatherArgs) (string, error) {
		return "sunny in " + a.City, nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{tool}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return node
}

// deepCopy copies messages and their parts, so a later change shows.
func deepCopy(t *testing.T, msgs []llms.MessageContent) []llms.MessageContent {
	t.Helper()
	if msgs == nil {
		return nil
	}
	out := make([]llms.MessageContent, len(msgs))
	for i, m := range msgs {
		out[i] = llms.MessageContent{Role: m.Role, Parts: append([]llms.ContentPart(nil), m.Parts...)}
	}
	return out
}
