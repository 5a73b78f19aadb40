package saidex

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

var callIDPattern = regexp.MustCompile(`^call_[0-9a-f]{24}$`)

func TestTextToolCalls(t *testing.T) {
	weather, _ := countingWeather()
	echo := plainTool{name: "echo", fn: func(_ context.Context, in string) (string, error) { return in, nil }}
	node := mustNode(t, []tools.Tool{weather, echo}, WithTextToolCalls(true))
	const paris = `{"name": "get_weather", "arguments": {"city": "Paris"}}`
	tests := []struct {
		name, text string
		want       []string // "name args" per call; nil: the text stays
		rest       string
	}{
		{"hermes", "<tool_call>\n" + paris + "\n</tool_call>", []string{`get_weather {"city":"Paris"}`}, ""},
		{"hermes, two, prose before", "Let me check both.\n<tool_call>\n" + paris + "\n</tool_call>\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Rome\", \"days\": 2}}\n</tool_call>",
			[]string{`get_weather {"city":"Paris"}`, `get_weather {"city":"Rome","days":2}`}, "Let me check both."},
		{"hermes, last block unclosed", "<tool_call>" + paris, []string{`get_weather {"city":"Paris"}`}, ""},
		{"hermes, parameters", `<tool_call>{"name": "get_weather", "parameters": {"city": "Oslo"}}</tool_call>`, []string{`get_weather {"city":"Oslo"}`}, ""},
		{"hermes, arguments as a string", `<tool_call>{"name": "get_weather", "arguments": "{\"city\": \"Oslo\"}"}</tool_call>`, []string{`get_weather {"city": "Oslo"}`}, ""},
		{"hermes, envelope repaired", `<tool_call>{'name': 'get_weather', 'arguments': {'city': 'Oslo'},}</tool_call>`, []string{`get_weather {"city":"Oslo"}`}, ""},
		{"hermes, no arguments", `<tool_call>{"name": "get_weather"}</tool_call>`, []string{`get_weather {}`}, ""},
		{"qwen3-coder", "<tool_call>\n<function=get_weather>\n<parameter=city>\nParis\n</parameter>\n<parameter=days>\n3\n</parameter>\n</function>\n</tool_call>",
			[]string{`get_weather {"city":"Paris","days":3}`}, ""},
		{"qwen3-coder, a string-only field holding digits", "<tool_call><function=get_weather><parameter=city>123</parameter></function></tool_call>",
			[]string{`get_weather {"city":"123"}`}, ""},
		{"llama", `I'll look it up. <function=get_weather>{"city": "Paris"}</function>`, []string{`get_weather {"city": "Paris"}`}, "I'll look it up."},
		{"mistral array", `[TOOL_CALLS][{"name": "get_weather", "arguments": {"city": "Paris"}}, {"name": "echo", "arguments": {"text": "hi"}}]`,
			[]string{`get_weather {"city":"Paris"}`, `echo {"text":"hi"}`}, ""},
		{"mistral name and args", `[TOOL_CALLS]get_weather[ARGS]{"city": "Paris"}[TOOL_CALLS]echo[ARGS]{}`,
			[]string{`get_weather {"city": "Paris"}`, `echo {}`}, ""},
		{"whole reply", paris, []string{`get_weather {"city":"Paris"}`}, ""},
		{"whole reply in a fence", "```json\n" + paris + "\n```", []string{`get_weather {"city":"Paris"}`}, ""},
		{"reasoning first", "<think>The user wants Paris.</think>\n<tool_call>" + paris + "</tool_call>", []string{`get_weather {"city":"Paris"}`}, "<think>The user wants Paris.</think>"},

		{"prose naming a tool", "I can call get_weather for Paris if you like.", nil, ""},
		{"an unknown tool", `<tool_call>{"name": "teleport", "arguments": {"to": "Mars"}}</tool_call>`, nil, ""},
		{"a known and an unknown tool", "<tool_call>" + paris + `</tool_call><tool_call>{"name": "teleport", "arguments": {}}</tool_call>`, nil, ""},
		{"a sample in a fence inside an explanation", "To call a tool, write:\n```\n<tool_call>" + paris + "</tool_call>\n```\nand the server runs it.", nil, ""},
		{"an envelope inside prose", "Send " + paris + " to get the weather.", nil, ""},
		{"an envelope with another member", `{"name": "get_weather", "arguments": {"city": "Paris"}, "confidence": 0.9}`, nil, ""},
		{"an object that is no envelope", `{"city": "Paris"}`, nil, ""},
		{"a fence of another language", "```python\n" + paris + "\n```", nil, ""},
		{"a marker inside reasoning", "<think><tool_call>" + paris + "</tool_call></think>Paris is sunny.", nil, ""},
		{"a tag around garbage", "<tool_call>call the weather tool</tool_call>", nil, ""},
		{"a tag mentioned in prose", "Models write <tool_call> tags when they call tools.", nil, ""},
		{"a function tag of an unknown tool", `<function=teleport>{"to": "Mars"}</function>`, nil, ""},
		{"mistral of an unknown tool", `[TOOL_CALLS]teleport[ARGS]{}`, nil, ""},
		{"arguments that are no object", `<tool_call>{"name": "get_weather", "arguments": [1, 2]}</tool_call>`, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls, rest := node.TextToolCalls(tt.text)
			if tt.want == nil {
				if calls != nil || rest != tt.text {
					t.Fatalf("promoted %v, rest %q; want the text left alone", calls, rest)
				}
				return
			}
			var got []string
			for _, c := range calls {
				got = append(got, c.FunctionCall.Name+" "+c.FunctionCall.Arguments)
				if !callIDPattern.MatchString(c.ID) || c.Type != "function" {
					t.Errorf("call id %q, type %q", c.ID, c.Type)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") || rest != tt.rest {
				t.Errorf("got %q, rest %q; want %q, rest %q", got, rest, tt.want, tt.rest)
			}
			if len(calls) == 2 && calls[0].ID == calls[1].ID {
				t.Error("two calls share an id")
			}
		})
	}

	off := mustNode(t, []tools.Tool{weather})
	if calls, rest := off.TextToolCalls("<tool_call>" + paris + "</tool_call>"); calls != nil || rest == "" {
		t.Errorf("without the option: %v, %q", calls, rest)
	}
}

func TestWrapModelPromotesTextToolCalls(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather}, WithTextToolCalls(true))
	srv, llm := fakeprovider.NewOpenAI(t,
		fakeprovider.OpenAIReply{Text: "Checking.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2,}}\n</tool_call>"},
		fakeprovider.OpenAIReply{Text: "Paris is sunny."})
	ctx := context.Background()
	model := WrapModel(llm, node)
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	resp, err := model.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
	if err != nil {
		t.Fatal(err)
	}
	ch := resp.Choices[0]
	if len(ch.ToolCalls) != 1 || ch.Content != "Checking." {
		t.Fatalf("choice: content %q, calls %+v", ch.Content, ch.ToolCalls)
	}
	reps, _ := CheckedCalls(ch)
	if len(reps) != 1 || reps[0].Outcome != OutcomeReady {
		t.Fatalf("reports %+v", reps)
	}
	id := ch.ToolCalls[0].ID
	conv, err = node.Invoke(ctx, append(conv, AIMessageFromResponse(resp)))
	if err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 1 {
		t.Fatalf("the promoted call ran %d times", runs.Load())
	}
	if _, err := llm.GenerateContent(ctx, conv); err != nil {
		t.Fatalf("next turn: %v (rejected %v)", err, srv.Rejected())
	}
	// On the wire: the assistant message carries the call, with its fresh
	// id and the repaired arguments, and a tool message answers that id.
	var sawCall, sawAnswer bool
	for _, m := range srv.Requests()[1] {
		for _, tc := range m.ToolCalls {
			sawCall = sawCall || (tc.ID == id && string(tc.Function.Arguments) == `"{\"city\":\"Paris\",\"days\":2}"`)
		}
		sawAnswer = sawAnswer || (m.Role == "tool" && m.ToolCallID == id)
	}
	if !sawCall || !sawAnswer {
		t.Errorf("the next request lacks the promoted call (%t) or its answer (%t): %+v", sawCall, sawAnswer, srv.Requests()[1])
	}
}

func FuzzTextToolCalls(f *testing.F) {
	for _, s := range []string{
		"<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>",
		"<tool_call><function=get_weather><parameter=city>Paris</parameter></function></tool_call>",
		`[TOOL_CALLS][{"name": "get_weather", "arguments": {}}]`,
		`[TOOL_CALLS]get_weather[ARGS]{"city": "x"}`,
		"```json\n{\"name\": \"get_weather\", \"arguments\": {}}\n```",
		"<think><tool_call></think>",
		"plain prose",
	} {
		f.Add(s)
	}
	weather, _ := countingWeather()
	node := mustNode(f, []tools.Tool{weather}, WithTextToolCalls(true))
	f.Fuzz(func(t *testing.T, text string) {
		calls, rest := node.TextToolCalls(text)
		if calls == nil {
			if rest != text {
				t.Fatalf("no calls, but the text changed to %q", rest)
			}
			return
		}
		if len(rest) > len(text) {
			t.Fatalf("rest %q is longer than the text", rest)
		}
		seen := map[string]bool{}
		for _, c := range calls {
			if c.FunctionCall == nil || c.FunctionCall.Name != "get_weather" || !callIDPattern.MatchString(c.ID) || seen[c.ID] {
				t.Fatalf("call %+v", c)
			}
			seen[c.ID] = true
		}
	})
}
