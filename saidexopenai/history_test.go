package saidexopenai_test

import (
	"context"
	"testing"

	"github.com/openai/openai-go/v3/responses"
	"github.com/saidex/saidex-go/saidexopenai/openaitest"
)

// The node recognises its own feedback in the history the program passes:
// a call repeated unchanged after feedback is reported Repeated, in both
// APIs, which proves the history reaches the node.
var repeated = openaitest.Reply{Calls: []openaitest.Call{{ID: "call_x", Name: "get_weather", Arguments: `{"days":"three"}`}}}

func TestChatHistoryRecall(t *testing.T) {
	ctx := context.Background()
	g, _ := newGuard(t)
	again := repeated
	again.Calls = []openaitest.Call{{ID: "call_y", Name: "get_weather", Arguments: `{"days":"three"}`}}
	srv := openaitest.NewServer(repeated, again, openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	params := userParams("weather?")
	for turn := range 2 {
		c, err := client.Chat.Completions.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		tr, err := g.RunChat(ctx, params.Messages, c.Choices[0])
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.Calls[0].Repeated; got != (turn == 1) {
			t.Errorf("turn %d: Repeated = %v, want %v", turn, got, turn == 1)
		}
		params.Messages = append(params.Messages, tr.Messages...)
	}
	if _, err := client.Chat.Completions.New(ctx, params); err != nil {
		t.Fatal(err)
	}
}

func TestResponseHistoryRecall(t *testing.T) {
	ctx := context.Background()
	g, _ := newGuard(t)
	again := repeated
	again.Calls = []openaitest.Call{{ID: "call_y", Name: "get_weather", Arguments: `{"days":"three"}`}}
	srv := openaitest.NewServer(repeated, again, openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	input := []responses.ResponseInputItemUnionParam{userItem}
	for turn := range 2 {
		resp, err := client.Responses.New(ctx, responseParams(input...))
		if err != nil {
			t.Fatal(err)
		}
		tr, err := g.RunResponse(ctx, input, resp)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.Calls[0].Repeated; got != (turn == 1) {
			t.Errorf("turn %d: Repeated = %v, want %v", turn, got, turn == 1)
		}
		input = append(input, tr.Input()...)
	}
	if _, err := client.Responses.New(ctx, responseParams(input...)); err != nil {
		t.Fatal(err)
	}
}
