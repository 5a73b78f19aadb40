package extract_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/invopop/jsonschema"
	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/extract"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
	"go.uber.org/goleak"
)

// A model call that ignores its context runs on a goroutine of its own:
// every test must leave none behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

type forecastArgs struct {
	City string `json:"city"`
	Days int    `json:"days"`
}

// chainEnd records the outputs of the chain runs reported to it.
type chainEnd struct {
	callbacks.SimpleHandler
	mu     sync.Mutex
	output []map[string]any
}

func (h *chainEnd) HandleChainEnd(_ context.Context, out map[string]any) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.output = append(h.output, out)
}

// TestExtractionErrorIssuesAreTheLastParsedAnswers pins saidex.ExtractionError's
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
		wantMalf   bool     // Err is a *saidex.MalformedArgumentsError
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
			_, err := extract.JSON(context.Background(), saidextest.NewModel(tt.reply), schema, "Ada, 36.", extract.WithMaxAttempts(tt.attempts))
			var ee *saidex.ExtractionError
			if !errors.As(err, &ee) {
				t.Fatalf("err = %v, want an *saidex.ExtractionError", err)
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
				if _, ok := errors.AsType[*saidex.MalformedArgumentsError](ee.Err); !ok {
					t.Errorf("Err = %v, want a *saidex.MalformedArgumentsError", ee.Err)
				}
			default:
				if ee.Err != nil {
					t.Errorf("Err = %v, want nil", ee.Err)
				}
			}
		})
	}
}

// TestWithCallOptions pins WithCallOptions' doc: its options reach
// every model call of JSON, before the options extraction needs (tools,
// tool choice, JSON mode), which win; a model set with llms.WithModel names
// the model in token counts.
func TestWithCallOptions(t *testing.T) {
	schema := map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"},
	}
	for _, mode := range []saidex.CorrectionMode{saidex.CorrectionToolCalling, saidex.CorrectionJSON} {
		t.Run(mode.String(), func(t *testing.T) {
			model := saidextest.NewModel(saidextest.WithUsage(saidextest.Usage(10, 2), saidextest.Sequence(
				saidextest.ForcedToolCall(`{"nom":"Ada"}`), saidextest.ForcedToolCall(`{"name":"Ada"}`))))
			h := &chainEnd{}
			_, err := extract.JSON(context.Background(), model, schema, "Ada.", extract.WithMode(mode), extract.WithCallbacks(h),
				extract.WithCallOptions(llms.WithModel("small-model"), llms.WithTemperature(0.25), llms.WithToolChoice("none"), llms.WithJSONMode()),
				extract.WithCallOptions(llms.WithMaxTokens(64)))
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
				if mode == saidex.CorrectionToolCalling && (r.ToolChoiceName() != "extract_data" || len(o.Tools) != 1) {
					t.Errorf("call %d: tool choice %v, %d tools: the extraction's own options must win", i, o.ToolChoice, len(o.Tools))
				}
			}
			usage, _ := h.output[0]["token_usage"].(map[string]saidex.TokenUsage)
			if u, ok := usage["small-model"]; !ok || u.InputTokens != 20 {
				t.Errorf("token usage %v, want 20 input tokens under small-model", h.output[0]["token_usage"])
			}
		})
	}
}

func TestJSON(t *testing.T) {
	schema := map[string]any{
		"type":                 "object",
		"properties":           map[string]any{"name": map[string]any{"type": "string"}, "age": map[string]any{"type": "integer"}},
		"required":             []any{"name", "age"},
		"additionalProperties": false,
	}
	errDown := errors.New("provider down")
	tests := []struct {
		name      string
		fn        saidextest.Reply
		opts      []extract.Option
		want      string
		wantErrIs error
		wantCalls int
	}{
		{"valid first answer", saidextest.ForcedToolCall(`{"name":"Ada","age":36}`), nil, `{"age":36,"name":"Ada"}`, nil, 1},
		{"repaired answer", saidextest.ForcedToolCall(`{"name":"Ada","age":36}`), []extract.Option{extract.WithMode(saidex.CorrectionJSON)}, `{"age":36,"name":"Ada"}`, nil, 1},
		{"retry then valid", saidextest.Sequence(saidextest.ForcedToolCall(`{"name":"Ada"}`), saidextest.ForcedToolCall(`{"name":"Ada","age":36}`)), nil, `{"age":36,"name":"Ada"}`, nil, 2},
		{"invalid answers", saidextest.ForcedToolCall(`{"name":"Ada"}`), []extract.Option{extract.WithMaxAttempts(3)}, "", saidex.ErrExtraction, 3},
		{"model error", saidextest.Fail(errDown), nil, "", errDown, 1},
		{"an unquoted string where the schema accepts only one", saidextest.ForcedToolCall(`{"name": Ada, "age": 36}`), nil, `{"age":36,"name":"Ada"}`, nil, 1},
		{"custom function name", func(_ context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
			return saidextest.ToolCallResponse(saidextest.Call("call", req.ToolChoiceName(), fmt.Sprintf(`{"name":%q,"age":1}`, req.ToolChoiceName()))), nil
		}, []extract.Option{extract.WithFunction("person", "A person.")}, `{"age":1,"name":"person"}`, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := saidextest.NewModel(tt.fn)
			got, err := extract.JSON(context.Background(), model, schema, "Ada Lovelace, 36.", tt.opts...)
			if tt.wantErrIs != nil {
				if !errors.Is(err, tt.wantErrIs) {
					t.Fatalf("err = %v, want %v", err, tt.wantErrIs)
				}
			} else if err != nil || string(got) != tt.want {
				t.Fatalf("JSON = %s, %v; want %s", got, err, tt.want)
			}
			if model.CallCount() != tt.wantCalls {
				t.Errorf("model called %d times, want %d", model.CallCount(), tt.wantCalls)
			}
		})
	}
	if _, err := extract.JSON(context.Background(), nil, schema, "x"); !errors.Is(err, saidex.ErrInvalidConfig) {
		t.Errorf("nil model: err = %v", err)
	}
	if _, err := extract.JSON(context.Background(), saidextest.NewModel(nil), "not a schema", "x"); !errors.Is(err, saidex.ErrInvalidConfig) {
		t.Errorf("bad schema: err = %v", err)
	}
	if _, err := extract.JSON(context.Background(), saidextest.NewModel(nil), schema, "x", extract.WithMaxAttempts(0)); !errors.Is(err, saidex.ErrInvalidConfig) {
		t.Errorf("zero attempts: err = %v", err)
	}
}

func TestIntoDecodesTypedValue(t *testing.T) {
	model := saidextest.NewModel(saidextest.ForcedToolCall(`{"city":"Oslo","days":"2"}`))
	_, err := extract.Into[forecastArgs](context.Background(), model, "Oslo, two days")
	var ee *saidex.ExtractionError
	if !errors.As(err, &ee) || ee.Attempts != 2 || len(ee.Issues) == 0 {
		t.Fatalf("err = %v, want an saidex.ExtractionError after 2 attempts with issues", err)
	}
	model = saidextest.NewModel(saidextest.ForcedToolCall(`{"city":"Oslo","days":2}`))
	got, err := extract.Into[forecastArgs](context.Background(), model, "Oslo, two days")
	if err != nil || got != (forecastArgs{"Oslo", 2}) {
		t.Fatalf("Into = %+v, %v", got, err)
	}
	if schema := model.Requests()[0].Options.Tools[0].Function.Parameters.(map[string]any); schema["required"] == nil {
		t.Errorf("bound schema %v lacks required", schema)
	}
}

// A type Into cannot describe is a configuration error, and the model is
// not called.
func TestIntoRefusesAnUndescribableType(t *testing.T) {
	type notify struct {
		Done chan struct{} `json:"done"`
	}
	model := saidextest.NewModel(saidextest.ForcedToolCall(`{}`))
	if _, err := extract.Into[notify](context.Background(), model, "x"); !errors.Is(err, saidex.ErrInvalidConfig) {
		t.Errorf("err = %v, want ErrInvalidConfig", err)
	}
	if n := model.CallCount(); n != 0 {
		t.Errorf("the model was called %d times, want 0", n)
	}
}

// openPerson's own schema allows members it has no field for.
type openPerson struct {
	Name string `json:"name"`
}

func (openPerson) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", Required: []string{"name"}}
}

// Into decodes a valid answer as a node decodes a NewTool tool's
// validated arguments: a member the schema allowed and T has no field for
// is ignored, not an error (a direct Tool.Call is stricter).
func TestIntoIgnoresMembersTheSchemaAllows(t *testing.T) {
	tests := []struct {
		name, answer string
		want         openPerson
	}{
		{"exact", `{"name":"Ada"}`, openPerson{"Ada"}},
		{"extra member", `{"name":"Ada","age":36}`, openPerson{"Ada"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			model := saidextest.NewModel(saidextest.ForcedToolCall(tt.answer))
			got, err := extract.Into[openPerson](context.Background(), model, "Ada Lovelace was 36.")
			if err != nil || got != tt.want {
				t.Fatalf("Into = %+v, %v; want %+v, nil", got, err, tt.want)
			}
		})
	}
}
