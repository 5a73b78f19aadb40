package saidexopenai_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexopenai"
	"github.com/saidex/saidex-go/saidexopenai/openaitest"
)

// TestCorrectionModel corrects an invalid call with a model served through
// openai-go: the correction request forces the bound tool, the corrected
// arguments run, and the next turn sends them.
func TestCorrectionModel(t *testing.T) {
	ctx := context.Background()
	srv := openaitest.NewServer(
		openaitest.Reply{Calls: []openaitest.Call{{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris","days":"three"}`}}},
		openaitest.Reply{Calls: []openaitest.Call{{ID: "fix_1", Name: "get_weather", Arguments: `{"city":"Paris","days":3}`}}},
		openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	g, runs := newGuard(t, saidex.WithCorrectionModel(saidexopenai.CorrectionModel(client, "gpt-small")))
	params := userParams("weather in Paris for three days?")
	params.Tools = g.ChatTools()
	c, err := client.Chat.Completions.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := g.RunChat(ctx, params.Messages, c.Choices[0])
	if err != nil {
		t.Fatal(err)
	}
	rep := turn.Calls[0]
	if rep.Outcome != saidex.OutcomeCorrected || !rep.CorrectionAttempted {
		t.Fatalf("outcome %s (correction attempted %v, err %v), want corrected", rep.Outcome, rep.CorrectionAttempted, rep.CorrectionErr)
	}
	if u, ok := rep.Tokens["gpt-test"]; !ok || u.TotalTokens != 15 {
		t.Errorf("Tokens = %v, want 15 tokens under the completion's model name", rep.Tokens)
	}
	if got, want := runs.list(), []string{`{"city":"Paris","days":3}`}; !slices.Equal(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}

	// The correction request: the bound tool, forced.
	var corr struct {
		Model string `json:"model"`
		Tools []struct {
			Function struct {
				Name       string `json:"name"`
				Parameters struct {
					Properties struct {
						Days struct {
							Maximum any `json:"maximum"`
						} `json:"days"`
					} `json:"properties"`
				} `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		ToolChoice struct {
			Type     string `json:"type"`
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tool_choice"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &corr); err != nil {
		t.Fatal(err)
	}
	if corr.Model != "gpt-small" || len(corr.Tools) != 1 || corr.ToolChoice.Function.Name != corr.Tools[0].Function.Name {
		t.Errorf("correction request: model %q, tools %+v, tool_choice %+v; want gpt-small forcing its one tool", corr.Model, corr.Tools, corr.ToolChoice)
	}
	if max, ok := corr.Tools[0].Function.Parameters.Properties.Days.Maximum.(float64); !ok || max != 7 {
		t.Errorf("the correction tool's schema sent maximum %#v, want the number 7 (not the string the SDK writes for a json.Number)",
			corr.Tools[0].Function.Parameters.Properties.Days.Maximum)
	}

	params.Messages = append(params.Messages, turn.Messages...)
	if _, err := client.Chat.Completions.New(ctx, params); err != nil {
		t.Fatal(err)
	}
	checkWire(t, lastChat(t, srv), map[string]string{"call_1": `{"city":"Paris","days":3}`},
		map[string]string{"call_1": "Paris: sunny for 3 days"})
}
