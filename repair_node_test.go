package saidex_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// recorder is a tool that records its inputs.
type recorder struct {
	mu     sync.Mutex
	inputs []string
}

func (r *recorder) Name() string        { return "lookup" }
func (r *recorder) Description() string { return "looks a city up" }
func (r *recorder) Call(_ context.Context, in string) (string, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.inputs = append(r.inputs, in)
	return "found", nil
}

var lookupSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"city": map[string]any{"type": "string"},
		"days": map[string]any{"type": "integer"},
	},
	"required":             []any{"city"},
	"additionalProperties": false,
}

func aiCall(args string) []llms.MessageContent {
	return []llms.MessageContent{
		{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{llms.TextContent{Text: "weather in Oslo"}}},
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "lookup", Arguments: args},
		}}},
	}
}

func TestRunRepairsBrokenArgumentsBeforeTheToolRuns(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		opts     []saidex.Option
		want     string // the tool's input
		steps    []saidex.RepairStep
		repaired bool
	}{
		{name: "valid arguments reach the tool unchanged", raw: `{"city": "Oslo",  "days": 2}`, want: `{"city": "Oslo",  "days": 2}`},
		{name: "python dict repr", raw: `{'city': 'Oslo', 'days': 2}`, want: `{"city":"Oslo","days":2}`,
			steps: []saidex.RepairStep{saidex.RepairJSON}, repaired: true},
		{name: "reasoning and a fence", raw: "<think>Oslo</think>```json\n{\"city\": \"Oslo\"}\n```", want: `{"city": "Oslo"}`,
			steps: []saidex.RepairStep{saidex.RepairStripThinking, saidex.RepairCodeFence}, repaired: true},
		{name: "extraction still runs without JSON repair", raw: `Arguments: {"city": "Oslo"}`, opts: []saidex.Option{saidex.WithJSONRepair(false)},
			want: `{"city": "Oslo"}`, steps: []saidex.RepairStep{saidex.RepairExtractObject}, repaired: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, cr := runRecorded(t, tt.raw, tt.opts...)
			if cr.Outcome != saidex.OutcomeExecuted || cr.Err != nil {
				t.Fatalf("outcome %s, err %v; want executed", cr.Outcome, cr.Err)
			}
			if len(rec.inputs) != 1 || rec.inputs[0] != tt.want {
				t.Errorf("tool inputs = %q, want [%q]", rec.inputs, tt.want)
			}
			if string(cr.Arguments) != tt.want {
				t.Errorf("Arguments = %s, want %s", cr.Arguments, tt.want)
			}
			if cr.Repaired != tt.repaired || !slices.Equal(cr.RepairSteps, tt.steps) {
				t.Errorf("Repaired = %v, RepairSteps = %v; want %v, %v", cr.Repaired, cr.RepairSteps, tt.repaired, tt.steps)
			}
		})
	}
}

// runRecorded runs one lookup call with arguments raw through a node with
// opts, and returns the tool's recorder and the call's report.
func runRecorded(t *testing.T, raw string, opts ...saidex.Option) (*recorder, saidex.CallReport) {
	t.Helper()
	rec := &recorder{}
	node, err := saidex.NewToolNode([]tools.Tool{saidex.WithSchema(rec, lookupSchema)}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	res, err := node.Run(context.Background(), aiCall(raw))
	if err != nil {
		t.Fatal(err)
	}
	return rec, res.Calls[0]
}

func TestRunAnswersUnrepairableArgumentsWithFeedback(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		opts   []saidex.Option
		reason string
	}{
		{name: "empty", raw: "", reason: "the arguments are empty"},
		{name: "string cut mid-value", raw: `{"city": "Os`, reason: "cut off inside a string value"},
		{name: "two different objects", raw: `{"city": "Oslo"}{"city": "Rome"}`, reason: "two different JSON objects"},
		{name: "json repair disabled", raw: `{'city': 'Oslo'}`, opts: []saidex.Option{saidex.WithJSONRepair(false)}, reason: "JSON repair is disabled"},
		{name: "repair size limit", raw: `{'city': 'Oslo'}`, opts: []saidex.Option{saidex.WithMaxRepairBytes(8)}, reason: "too large to repair"},
		{name: "argument size limit", raw: `{"city": "Oslo"}`, opts: []saidex.Option{saidex.WithMaxArgumentBytes(8)}, reason: "more than the limit of 8 bytes"},
		{name: "reasoning kept when stripping is off", raw: "<think>x</think>{\"city\": \"Oslo\"}", opts: []saidex.Option{saidex.WithStripThinking(false)},
			reason: "stripping reasoning is disabled"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec, cr := runRecorded(t, tt.raw, tt.opts...)
			if cr.Outcome != saidex.OutcomeFeedback || !cr.IsError || cr.Arguments != nil {
				t.Fatalf("outcome %s, IsError %v, Arguments %s; want feedback without arguments", cr.Outcome, cr.IsError, cr.Arguments)
			}
			if len(rec.inputs) != 0 {
				t.Errorf("the tool ran with %q", rec.inputs)
			}
			var me *saidex.MalformedArgumentsError
			if !errors.As(cr.Err, &me) || !errors.Is(cr.Err, saidex.ErrMalformedArguments) {
				t.Fatalf("Err = %v, want a *MalformedArgumentsError", cr.Err)
			}
			if !strings.Contains(me.Reason, tt.reason) || !strings.Contains(cr.Output, tt.reason) {
				t.Errorf("reason %q / output %q, want both to contain %q", me.Reason, cr.Output, tt.reason)
			}
		})
	}
}
