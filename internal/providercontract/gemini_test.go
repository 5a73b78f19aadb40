package providercontract

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/stategraph"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// geminiTurn is a model turn of three calls of one tool: a valid one, one
// whose arguments break the schema, and one the test breaks (see
// breakThird).
var geminiTurn = geminiReply{Calls: []geminiCall{
	{Name: "get_weather", Args: map[string]any{"city": "Paris", "days": 2}},
	{Name: "get_weather", Args: map[string]any{"city": "Rome", "days": "three"}},
	{Name: "get_weather", Args: map[string]any{"city": "Oslo"}},
}}

// breakThird cuts the third call's argument string inside a value. Gemini's
// wire format carries args as an object, so the googleai client never
// returns an unparseable argument string itself; such a call reaches a
// Gemini conversation from elsewhere (a hand-built or replayed turn, a
// history started on another provider), and googleai's client then
// json.Unmarshals it on every later request.
func breakThird(ai llms.MessageContent) llms.MessageContent {
	n := 0
	for i, p := range ai.Parts {
		tc, ok := p.(llms.ToolCall)
		if !ok {
			continue
		}
		if n++; n == 3 {
			fc := *tc.FunctionCall
			fc.Arguments = `{"city": "Os`
			tc.FunctionCall = &fc
			ai.Parts[i] = tc
		}
	}
	return ai
}

func TestContractGeminiMultiCallTurn(t *testing.T) {
	ctx := context.Background()
	invoke := func(node *saidex.ToolNode, conv []llms.MessageContent) ([]llms.MessageContent, error) {
		return node.Invoke(ctx, conv)
	}
	// stateNode is a state graph's tool node: the conversation under
	// "messages", the update the node returns applied by replacement.
	stateNode := func(node *saidex.ToolNode, conv []llms.MessageContent) ([]llms.MessageContent, error) {
		out, err := stategraph.Node(node, "messages")(ctx, map[string]any{"messages": conv, "user": "u1"})
		if err != nil {
			return nil, err
		}
		msgs, _ := out.(map[string]any)["messages"].([]llms.MessageContent)
		return msgs, nil
	}
	tests := []struct {
		name    string
		opts    []saidex.Option
		execute func(*saidex.ToolNode, []llms.MessageContent) ([]llms.MessageContent, error)
		send    func([]llms.MessageContent) []llms.MessageContent // what the model node sends
		wantErr string                                            // "" when the next turn must be accepted
		wantReq int                                               // requests the server received
	}{
		{name: "Invoke, then GroupToolResponses before the model call", execute: invoke, send: saidex.GroupToolResponses, wantReq: 2},
		{name: "stategraph.Node, then GroupToolResponses in the model node", execute: stateNode, send: saidex.GroupToolResponses, wantReq: 2},
		{
			name: "ungrouped, one Content per tool message is rejected", execute: invoke,
			send:    func(m []llms.MessageContent) []llms.MessageContent { return m },
			wantErr: geminiCountError, wantReq: 2,
		},
		{
			name: "unsanitized, the client cannot send the broken call", execute: invoke,
			opts:    []saidex.Option{saidex.WithSanitizeMessages(false)},
			send:    saidex.GroupToolResponses,
			wantErr: "unexpected end of JSON input", wantReq: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			node := mustNode(t, []tools.Tool{weather}, tt.opts...)
			srv, llm := newFakeGemini(t, geminiTurn, geminiReply{Text: "Paris is sunny; which days for Rome, and which city?"})

			conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris, Rome and Oslo?")}
			resp, err := llm.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
			if err != nil {
				t.Fatalf("first turn: %v", err)
			}
			ai := breakThird(saidex.AIMessageFromResponse(resp))
			if n := len(toolCalls(ai)); n != 3 {
				t.Fatalf("first turn has %d calls, want 3", n)
			}
			conv, err = tt.execute(node, append(conv, ai))
			if err != nil {
				t.Fatalf("node: %v", err)
			}
			if len(conv) != 5 {
				t.Fatalf("node returned %d messages, want human, AI and 3 tool messages", len(conv))
			}
			resp, err = llm.GenerateContent(ctx, tt.send(conv), llms.WithTools(node.Definitions()))
			if got := len(srv.Requests()); got != tt.wantReq {
				t.Errorf("server received %d requests, want %d", got, tt.wantReq)
			}
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("second turn: err = %v, want it to contain %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("second turn rejected: %v", err)
			}
			if !strings.HasPrefix(resp.Choices[0].Content, "Paris is sunny") {
				t.Errorf("second turn = %q", resp.Choices[0].Content)
			}
			if runs.Load() != 1 {
				t.Errorf("get_weather ran %d times, want 1 (the valid call)", runs.Load())
			}
			checkGeminiSecondRequest(t, srv.Requests()[1])
		})
	}
}

// checkGeminiSecondRequest checks what Gemini received after the turn: the
// model turn with the broken call's args as an object, then one user turn
// with the three responses in call order.
func checkGeminiSecondRequest(t *testing.T, contents []geminiContent) {
	t.Helper()
	if len(contents) != 3 {
		t.Fatalf("second request has %d contents, want user, model, user", len(contents))
	}
	model, answers := contents[1], contents[2]
	if model.Role != "model" || len(model.Parts) != 3 {
		t.Fatalf("contents[1] = role %q with %d parts, want the model turn of 3 calls", model.Role, len(model.Parts))
	}
	if args := string(model.Parts[2].FunctionCall.Args); args != "" && args != "{}" {
		t.Errorf("broken call's past args = %s, want {} (sanitized)", args)
	}
	want := []string{
		"Paris: sunny for 2 days",
		"days",        // the invalid call's feedback names the field
		`"city": "Os`, // the broken call's feedback quotes what was received
	}
	if answers.Role != "user" || len(answers.Parts) != len(want) {
		t.Fatalf("contents[2] = role %q with %d parts, want one user turn of %d responses", answers.Role, len(answers.Parts), len(want))
	}
	for k, w := range want {
		fr := answers.Parts[k].FunctionResponse
		if fr == nil || fr.Name != "get_weather" {
			t.Fatalf("part %d is not a get_weather function response: %+v", k, answers.Parts[k])
		}
		var body struct {
			Response string `json:"response"`
		}
		_ = json.Unmarshal(fr.Response, &body)
		if !strings.Contains(body.Response, w) {
			t.Errorf("response %d = %q, want it to contain %q", k, body.Response, w)
		}
	}
}
