package saidex

import (
	"context"
	"strings"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/saidex/saidex-go/internal/fakeprovider"
)

// A call answered before this run (by another executor, or by a run whose
// history was not sanitized) is not run again, but its arguments are
// sanitized like those of a call answered with feedback: langchaingo's
// Anthropic client unmarshals every past call's arguments, so one such call
// left as it was makes the next turn fail while its siblings are rewritten.
// The next turn goes through the real anthropic client to the fake server.
func TestSanitizeAnsweredCallsThroughAnthropic(t *testing.T) {
	ctx := context.Background()
	echo := plainTool{name: "echo", fn: func(_ context.Context, in string) (string, error) { return in, nil }}
	tests := []struct {
		name, tool, raw, want string
	}{
		{"repairable arguments are stored repaired", "get_weather", `{'city': 'Oslo', 'days': 1,}`, `{"city":"Oslo","days":1}`},
		{"unrepairable arguments become {}", "get_weather", `Oslo please`, `{}`},
		{"arguments cut inside a string become {}", "get_weather", `{"city": "Os`, `{}`},
		{"an unknown tool's text becomes {}", "teleport", `to Mars`, `{}`},
		{"a plain tool's clean repair is stored", "echo", `{'q': 'x',}`, `{"q":"x"}`},
		{"a plain tool's free text is stored as __arg1", "echo", `hello`, `{"__arg1":"hello"}`},
		{"a secret in a valid object is masked", "login", `{"user":"ann","password":"hunter2"}`, `{"password":"` + SecretMask + `","user":"ann"}`},
		{"a secret in repairable arguments is masked", "login", `{'user':'ann','password':'hunter2',}`, `{"password":"` + SecretMask + `","user":"ann"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			weather, runs := countingWeather()
			login := NewTool("login", "Log in.", func(_ context.Context, a sanLoginArgs) (string, error) { return "ok", nil })
			node := mustNode(t, []tools.Tool{weather, login, echo}, WithLogger(sanDiscard))
			srv, llm := fakeprovider.NewAnthropic(t, []map[string]any{{"type": "text", "text": "Done."}})
			conv := []llms.MessageContent{
				llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?"),
				{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
					tc("toolu_old", tt.tool, tt.raw),
					tc("toolu_new", "get_weather", `{'city': 'Paris',}`), // repaired: the message is rewritten
				}},
				{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{
					llms.ToolCallResponse{ToolCallID: "toolu_old", Name: tt.tool, Content: "answered by an earlier run"}}},
			}
			res, err := node.Run(ctx, conv)
			if err != nil {
				t.Fatal(err)
			}
			if res.Calls[0].Outcome != OutcomeAlreadyAnswered || runs.Load() != 1 {
				t.Fatalf("outcome %s, %d runs; want the old call skipped and the new one run", res.Calls[0].Outcome, runs.Load())
			}
			if got := toolCallsOf(res.AIMessage)[0].FunctionCall.Arguments; got != tt.want {
				t.Errorf("sanitized arguments of the answered call = %s, want %s", got, tt.want)
			}
			out, err := node.Invoke(ctx, conv)
			if err != nil {
				t.Fatal(err)
			}
			if len(out) != 4 {
				t.Fatalf("%d messages, want 4", len(out))
			}
			if _, err := llm.GenerateContent(ctx, SplitToolCalls(out)); err != nil {
				t.Fatalf("next turn rejected: %v", err)
			}
			for _, m := range srv.Requests()[0] {
				for _, b := range m.Content {
					if strings.Contains(string(b.Input), "hunter2") {
						t.Errorf("the provider received the secret: %s", b.Input)
					}
				}
			}
		})
	}
}
