package saidexopenai_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/saidex/saidex-go/saidexopenai/openaitest"
)

// TestToolSchemasOnTheWire checks the tool definitions as the SDK sends
// them: numbers of the schema are JSON numbers ("maximum": 7), not the
// strings the SDK's encoder writes for a json.Number.
func TestToolSchemasOnTheWire(t *testing.T) {
	g, _ := newGuard(t)
	srv := openaitest.NewServer(openaitest.Reply{Text: "ok"}, openaitest.Reply{Text: "ok"})
	defer srv.Close()
	client := srv.Client()
	ctx := context.Background()
	if _, err := client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
		Model: "gpt-4.1", Tools: g.ChatTools(),
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("Weather?")},
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Responses.New(ctx, responses.ResponseNewParams{
		Model: "gpt-4.1", Tools: g.ResponseTools(),
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather?")},
	}); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	for i, find := range []func(body map[string]any) any{
		func(b map[string]any) any {
			return b["tools"].([]any)[0].(map[string]any)["function"].(map[string]any)["parameters"]
		},
		func(b map[string]any) any { return b["tools"].([]any)[0].(map[string]any)["parameters"] },
	} {
		var body map[string]any
		if err := json.Unmarshal(reqs[i].Body, &body); err != nil {
			t.Fatal(err)
		}
		params := find(body).(map[string]any)
		days := params["properties"].(map[string]any)["days"].(map[string]any)
		if max, ok := days["maximum"].(float64); !ok || max != 7 {
			t.Errorf("request %d sent maximum %#v, want the number 7", i, days["maximum"])
		}
	}
}
