package providercontract

import (
	"context"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// A call answered before this run (a resumed history) whose argument
// string is cut: the node does not run it again, but sanitizes its
// arguments as it does its siblings', since googleai's client
// json.Unmarshals every past call's arguments.
func TestContractGeminiAnsweredCallIsSanitized(t *testing.T) {
	ctx := context.Background()
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	srv, llm := newFakeGemini(t, geminiTurn, geminiReply{Text: "Paris is sunny."})
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris, Rome and Oslo?")}
	resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatalf("first turn: %v", err)
	}
	ai := saidex.AIMessageFromResponse(resp)
	// The first call's arguments arrived cut, and an earlier run answered it.
	for i, p := range ai.Parts {
		if tc, ok := p.(llms.ToolCall); ok {
			fc := *tc.FunctionCall
			fc.Arguments = `{"city": "Par`
			tc.FunctionCall = &fc
			ai.Parts[i] = tc
			break
		}
	}
	conv = append(conv, ai, llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
		llms.ToolCallResponse{Name: "get_weather", Content: "answered by an earlier run"}}})
	out, err := node.Invoke(ctx, conv)
	if err != nil {
		t.Fatalf("Invoke: %v", err)
	}
	if len(out) != 5 || runs.Load() != 1 { // Oslo runs; Rome gets feedback
		t.Fatalf("%d messages, %d runs; want 5 messages and 1 run", len(out), runs.Load())
	}
	if args := toolCalls(out[1])[0].FunctionCall.Arguments; args != "{}" {
		t.Errorf("the answered call's arguments = %s, want {}", args)
	}
	if _, err := llm.GenerateContent(ctx, saidex.GroupToolResponses(out), llms.WithTools(node.Definitions())); err != nil {
		t.Fatalf("next turn rejected: %v", err)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("server received %d requests, want 2", n)
	}
}
