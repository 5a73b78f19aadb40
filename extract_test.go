package saidex

import (
	"context"
	"errors"
	"testing"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
)

// TestExtractionErrorIssuesAreTheLastParsedAnswers pins ExtractionError's
// doc: Issues are those of the last answer that parsed, whatever came after
// it (an answer that did not parse, a model error), and nil when no answer
// parsed; Err is the model's error or why the last answer did not parse.
func TestExtractionErrorIssuesAreTheLastParsedAnswers(t *testing.T) {
	schema := map[string]any{
		"type":       "object",
		"properties": map[string]any{"name": map[string]any{"type": "string"}, "age": map[string]any{"type": "integer"}},
		"required":   []any{"name", "age"},
	}
	errDown := errors.New("HTTP 429")
	missingAge := saidextest.ForcedToolCall(`{"name":"Ada"}`)         // parses, lacks age
	wrongAge := saidextest.ForcedToolCall(`{"name":"Ada","age":"x"}`) // parses, age a string
	unparsed := saidextest.ForcedToolCall(`the person is Ada`)        // does not parse
	tests := []struct {
		name       string
		reply      saidextest.Reply
		attempts   int
		wantIssues []string // the issues' paths and kinds, "" for none
		wantErr    error    // errors.Is target of Err, nil for no Err
		wantMalf   bool     // Err is a *MalformedArgumentsError
	}{
		{"invalid answers", saidextest.Sequence(missingAge, wrongAge), 2, []string{"/age type"}, nil, false},
		{"invalid, then a model error", saidextest.Sequence(missingAge, saidextest.Fail(errDown)), 3, []string{"/age required"}, errDown, false},
		{"invalid, then unparsed", saidextest.Sequence(wrongAge, unparsed), 2, []string{"/age type"}, nil, true},
		{"invalid, unparsed, then a model error", saidextest.Sequence(wrongAge, unparsed, saidextest.Fail(errDown)), 3, []string{"/age type"}, errDown, false},
		{"unparsed answers", unparsed, 2, nil, nil, true},
		{"a model error first", saidextest.Fail(errDown), 3, nil, errDown, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Extract(context.Background(), saidextest.NewModel(tt.reply), schema, "Ada, 36.", WithMaxCorrectionRetries(tt.attempts))
			var ee *ExtractionError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %v, want an *ExtractionError", err)
			}
			var got []string
			for _, is := range ee.Issues {
				got = append(got, is.Path+" "+string(is.Kind))
			}
			if len(got) != len(tt.wantIssues) || (len(got) > 0 && got[0] != tt.wantIssues[0]) {
				t.Errorf("Issues = %v, want %v", got, tt.wantIssues)
			}
			if tt.wantIssues == nil && ee.Issues != nil {
				t.Errorf("Issues = %#v, want nil", ee.Issues)
			}
			switch {
			case tt.wantErr != nil:
				if !errors.Is(ee.Err, tt.wantErr) {
					t.Errorf("Err = %v, want %v", ee.Err, tt.wantErr)
				}
			case tt.wantMalf:
				if _, ok := errors.AsType[*MalformedArgumentsError](ee.Err); !ok {
					t.Errorf("Err = %v, want a *MalformedArgumentsError", ee.Err)
				}
			default:
				if ee.Err != nil {
					t.Errorf("Err = %v, want nil", ee.Err)
				}
			}
		})
	}
}

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
