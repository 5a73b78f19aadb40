package saidex

import (
	"context"
	"testing"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
)

// TestExtractWithCallOptions pins WithCallOptions' doc: its options reach
// every model call of Extract, before the options extraction needs (tools,
// tool choice, JSON mode), which win; a model set with llms.WithModel names
// the model in token counts.
func TestExtractWithCallOptions(t *testing.T) {
	schema := map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"},
	}
	for _, mode := range []CorrectionMode{CorrectionToolCalling, CorrectionJSON} {
		t.Run(mode.String(), func(t *testing.T) {
			model := saidextest.NewModel(saidextest.WithUsage(saidextest.Usage(10, 2), saidextest.Sequence(
				saidextest.ForcedToolCall(`{"nom":"Ada"}`), saidextest.ForcedToolCall(`{"name":"Ada"}`))))
			h := &cxChainRecorder{}
			_, err := Extract(context.Background(), model, schema, "Ada.", WithCorrectionMode(mode), WithCallbacks(h),
				WithCallOptions(llms.WithModel("small-model"), llms.WithTemperature(0.25), llms.WithToolChoice("none"), llms.WithJSONMode()),
				WithCallOptions(llms.WithMaxTokens(64)))
			if err != nil {
				t.Fatal(err)
			}
			reqs := model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2", len(reqs))
			}
			for i, r := range reqs {
				o := r.Options
				if o.Model != "small-model" || o.Temperature != 0.25 || o.MaxTokens != 64 {
					t.Errorf("call %d: model %q, temperature %v, max tokens %d", i, o.Model, o.Temperature, o.MaxTokens)
				}
				if mode == CorrectionToolCalling && (r.ToolChoiceName() != DefaultExtractFunction || len(o.Tools) != 1) {
					t.Errorf("call %d: tool choice %v, %d tools: the extraction's own options must win", i, o.ToolChoice, len(o.Tools))
				}
			}
			usage, _ := h.output[0]["token_usage"].(map[string]TokenUsage)
			if u, ok := usage["small-model"]; !ok || u.InputTokens != 20 {
				t.Errorf("token usage %v, want 20 input tokens under small-model", h.output[0]["token_usage"])
			}
		})
	}
}
