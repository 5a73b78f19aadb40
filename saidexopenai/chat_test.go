package saidexopenai_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexopenai"
	"github.com/saidex/saidex-go/saidexopenai/openaitest"
)

// TestStockLoopLeavesIDsUnanswered shows the server's rule, which the guard
// is tested against: a loop that answers only the calls it can decode gets
// HTTP 400 with OpenAI's error text on its next request.
func TestStockLoopLeavesIDsUnanswered(t *testing.T) {
	ctx := context.Background()
	srv := openaitest.NewServer(openaitest.Reply{Calls: brokenTurn}, openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	params := userParams("weather?")
	c, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	msg := c.Choices[0].Message
	params.Messages = append(params.Messages, msg.ToParam())
	for _, tc := range msg.ToolCalls {
		if strings.HasPrefix(tc.Function.Arguments, `{"city"`) { // what decodes
			params.Messages = append(params.Messages, openai.ToolMessage("sunny", tc.ID))
		}
	}
	_, err = client.Chat.Completions.New(ctx, params)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 {
		t.Fatalf("err = %v, want HTTP 400", err)
	}
	want := "The following tool_call_ids did not have response messages: call_broken, call_invalid, call_unknown, call_repairable"
	if !strings.Contains(apiErr.Message, want) {
		t.Errorf("error message %q, want it to contain %q", apiErr.Message, want)
	}
}

func TestRunChat(t *testing.T) {
	tests := []struct {
		name      string
		reply     openaitest.Reply
		wantRuns  []string          // the arguments the tool ran with, in order
		wantArgs  map[string]string // call id -> arguments sent back on the wire
		wantOut   map[string]string // call id -> a substring of its tool message
		wantCalls []saidex.Outcome
	}{{
		name:     "broken turn",
		reply:    openaitest.Reply{Calls: brokenTurn},
		wantRuns: []string{`{"city":"Oslo","days":1}`, `{"city":"Paris","days":2}`}, // sorted
		wantArgs: map[string]string{
			"call_valid":      `{"city":"Paris","days":2}`,
			"call_broken":     `{}`,
			"call_invalid":    `{"days":"three"}`,
			"call_unknown":    `{"to":"Mars"}`,
			"call_repairable": `{"city":"Oslo","days":1}`,
		},
		wantOut: map[string]string{
			"call_valid":      "Paris: sunny for 2 days",
			"call_broken":     "nothing was executed",
			"call_invalid":    "city",
			"call_unknown":    "teleport is not a valid tool",
			"call_repairable": "Oslo: sunny for 1 days",
		},
		wantCalls: []saidex.Outcome{saidex.OutcomeExecuted, saidex.OutcomeFeedback, saidex.OutcomeFeedback,
			saidex.OutcomeUnknownTool, saidex.OutcomeExecuted},
	}, {
		name: "cut by the output limit",
		reply: openaitest.Reply{Finish: "length", Calls: []openaitest.Call{
			{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`},
			{ID: "call_b", Name: "get_weather", Arguments: `{"city":"Os`},
		}},
		wantArgs:  map[string]string{"call_a": `{"city":"Paris","days":2}`, "call_b": `{}`},
		wantOut:   map[string]string{"call_a": "output-token limit", "call_b": "output-token limit"},
		wantCalls: []saidex.Outcome{saidex.OutcomeOutputLimit, saidex.OutcomeOutputLimit},
	}, {
		name: "repeated id",
		reply: openaitest.Reply{Calls: []openaitest.Call{
			{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`},
			{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Rome","days":2}`},
		}},
		wantRuns:  []string{`{"city":"Paris","days":2}`},
		wantArgs:  map[string]string{"call_a": `{"city":"Paris","days":2}`},
		wantOut:   map[string]string{"call_a": "Paris"},
		wantCalls: []saidex.Outcome{saidex.OutcomeExecuted, saidex.OutcomeDropped},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			g, runs := newGuard(t)
			srv := openaitest.NewServer(tt.reply, openaitest.Reply{Text: "done"})
			defer srv.Close()
			client := srv.Client()
			params := userParams("weather?")
			params.Tools = g.ChatTools()
			c, err := client.Chat.Completions.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			turn, err := g.RunChat(ctx, params.Messages, c.Choices[0])
			if err != nil {
				t.Fatal(err)
			}
			params.Messages = append(params.Messages, turn.Messages...)
			if _, err := client.Chat.Completions.New(ctx, params); err != nil {
				t.Fatalf("next request: %v", err)
			}

			if got := runs.list(); !slices.Equal(got, tt.wantRuns) {
				t.Errorf("the tool ran with %q, want %q", got, tt.wantRuns)
			}
			var outcomes []saidex.Outcome
			for _, rep := range turn.Calls {
				outcomes = append(outcomes, rep.Outcome)
			}
			if !slices.Equal(outcomes, tt.wantCalls) {
				t.Errorf("outcomes %v, want %v", outcomes, tt.wantCalls)
			}
			checkWire(t, lastChat(t, srv), tt.wantArgs, tt.wantOut)
		})
	}
}

// checkWire asserts on the messages of the next request: the assistant
// message (index 1) carries wantArgs, in call order, and each call id is
// answered once, by a tool message containing wantOut[id].
func checkWire(t *testing.T, msgs []openaitest.ChatMessage, wantArgs, wantOut map[string]string) {
	t.Helper()
	if len(msgs) != 2+len(wantOut) {
		t.Fatalf("the request has %d messages, want %d", len(msgs), 2+len(wantOut))
	}
	asst := msgs[1]
	if asst.Role != "assistant" || len(asst.ToolCalls) != len(wantArgs) {
		t.Fatalf("message 1: role %s with %d calls, want assistant with %d", asst.Role, len(asst.ToolCalls), len(wantArgs))
	}
	for _, tc := range asst.ToolCalls {
		if got := tc.ArgumentsText(); got != wantArgs[tc.ID] {
			t.Errorf("call %s sent back with arguments %s, want %s", tc.ID, got, wantArgs[tc.ID])
		}
	}
	for k, m := range msgs[2:] {
		id := asst.ToolCalls[k].ID
		if m.Role != "tool" || m.ToolCallID != id {
			t.Errorf("message %d: role %s answering %q, want the tool message of %s", 2+k, m.Role, m.ToolCallID, id)
		}
		if !strings.Contains(m.ContentText(), wantOut[id]) {
			t.Errorf("the answer of %s is %q, want it to contain %q", id, m.ContentText(), wantOut[id])
		}
	}
}

func TestCheckChat(t *testing.T) {
	ctx := context.Background()
	g, runs := newGuard(t)
	srv := openaitest.NewServer(openaitest.Reply{Calls: brokenTurn}, openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	params := userParams("weather?")
	params.Tools = g.ChatTools()
	c, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	chk, err := g.CheckChat(ctx, params.Messages, c.Choices[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(runs.list()) != 0 {
		t.Fatalf("CheckChat ran the tool: %v", runs.list())
	}
	want := []saidexopenai.ReadyCall{
		{Index: 0, ID: "call_valid", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`},
		{Index: 4, ID: "call_repairable", Name: "get_weather", Arguments: `{"city":"Oslo","days":1}`},
	}
	if !slices.Equal(chk.Ready, want) {
		t.Errorf("Ready = %+v, want %+v", chk.Ready, want)
	}
	var answered []string
	for _, a := range chk.Answered {
		answered = append(answered, a.ID)
	}
	if want := []string{"call_broken", "call_invalid", "call_unknown"}; !slices.Equal(answered, want) {
		t.Errorf("Answered = %v, want %v", answered, want)
	}

	// Every ready call must be answered.
	if _, err := chk.Messages(map[string]string{"call_valid": "sunny"}); !errors.Is(err, saidexopenai.ErrNoOutput) {
		t.Errorf("Messages without call_repairable's output: err = %v, want ErrNoOutput", err)
	}
	outputs := map[string]string{}
	for _, r := range chk.Ready {
		outputs[r.ID] = "ran " + r.Arguments
	}
	msgs, err := chk.Messages(outputs)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, msgs...)
	if _, err := client.Chat.Completions.New(ctx, params); err != nil {
		t.Fatalf("next request: %v", err)
	}
	checkWire(t, lastChat(t, srv), map[string]string{
		"call_valid":      `{"city":"Paris","days":2}`,
		"call_broken":     `{}`,
		"call_invalid":    `{"days":"three"}`,
		"call_unknown":    `{"to":"Mars"}`,
		"call_repairable": `{"city":"Oslo","days":1}`,
	}, map[string]string{
		"call_valid":      `ran {"city":"Paris","days":2}`,
		"call_broken":     "nothing was executed",
		"call_invalid":    "city",
		"call_unknown":    "teleport is not a valid tool",
		"call_repairable": `ran {"city":"Oslo","days":1}`,
	})
}

// TestRunChatHistory runs two turns: the second request carries the
// first turn's messages, converted for the node, and the guard answers the
// second turn's calls too.
func TestRunChatHistory(t *testing.T) {
	ctx := context.Background()
	g, runs := newGuard(t)
	srv := openaitest.NewServer(
		openaitest.Reply{Calls: []openaitest.Call{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris"}`}}},
		openaitest.Reply{Calls: []openaitest.Call{{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Paris","days":3}`}}},
		openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	params := userParams("weather?")
	params.Tools = g.ChatTools()
	for range 2 {
		c, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		turn, err := g.RunChat(ctx, params.Messages, c.Choices[0])
		if err != nil {
			t.Fatal(err)
		}
		params.Messages = append(params.Messages, turn.Messages...)
	}
	c, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if c.Choices[0].Message.Content != "done" {
		t.Errorf("last reply %q", c.Choices[0].Message.Content)
	}
	if got, want := runs.list(), []string{`{"city":"Paris","days":3}`}; !slices.Equal(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}
	if turn, err := g.RunChat(ctx, params.Messages, c.Choices[0]); err != nil || len(turn.Messages) != 0 {
		t.Errorf("a choice without calls: %d messages, err %v; want none", len(turn.Messages), err)
	}
}

func TestNewNilNode(t *testing.T) {
	if _, err := saidexopenai.New(nil); !errors.Is(err, saidex.ErrInvalidConfig) {
		t.Errorf("New(nil): err = %v, want ErrInvalidConfig", err)
	}
}

// TestCheckChatCut: a choice cut by the output limit has no ready call;
// every call is answered with the output-limit notice.
func TestCheckChatCut(t *testing.T) {
	ctx := context.Background()
	g, _ := newGuard(t)
	srv := openaitest.NewServer(openaitest.Reply{Finish: "length", Calls: []openaitest.Call{
		{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`},
		{ID: "call_b", Name: "get_weather", Arguments: `{"city":"Os`},
	}}, openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	params := userParams("weather?")
	c, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	chk, err := g.CheckChat(ctx, params.Messages, c.Choices[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(chk.Ready) != 0 || len(chk.Answered) != 2 {
		t.Fatalf("%d ready, %d answered; want 0 and 2", len(chk.Ready), len(chk.Answered))
	}
	msgs, err := chk.Messages(nil)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, msgs...)
	if _, err := client.Chat.Completions.New(ctx, params); err != nil {
		t.Fatal(err)
	}
	checkWire(t, lastChat(t, srv), map[string]string{"call_a": `{"city":"Paris","days":2}`, "call_b": `{}`},
		map[string]string{"call_a": "output-token limit", "call_b": "output-token limit"})
}
