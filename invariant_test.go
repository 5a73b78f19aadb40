package saidex

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// invariantHarness is a node whose tools record which call ids ran.
type invariantHarness struct {
	node *ToolNode
	mu   sync.Mutex
	ran  map[string]int // "id|args" -> runs
}

func newInvariantHarness(t testing.TB) *invariantHarness {
	h := &invariantHarness{ran: map[string]int{}}
	record := func(ctx context.Context, in string) {
		info, _ := CallFromContext(ctx)
		h.mu.Lock()
		h.ran[info.ID]++
		h.mu.Unlock()
	}
	weather := NewTool("get_weather", "", func(ctx context.Context, a weatherArgs) (string, error) {
		record(ctx, a.City)
		switch a.City {
		case "error":
			return "", errors.New("tool failed")
		case "panic":
			panic("tool panicked")
		}
		return "ok " + a.City, nil
	})
	echo := plainTool{name: "echo", fn: func(ctx context.Context, in string) (string, error) {
		record(ctx, in)
		return in, nil
	}}
	// A correction model whose answers cycle through a valid correction, an
	// invalid one, a provider error and unparseable text.
	var turn atomic.Int64
	corrector := saidextest.NewModel(func(ctx context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		switch turn.Add(1) % 4 {
		case 0:
			return saidextest.ToolCallResponse(saidextest.Call("call", req.ToolChoiceName(), `{"city":"Fixed"}`)), nil
		case 1:
			return saidextest.ToolCallResponse(saidextest.Call("call", req.ToolChoiceName(), `{"city":5}`)), nil
		case 2:
			return nil, errors.New("HTTP 429: rate limited")
		default:
			return saidextest.TextResponse("I cannot help with that."), nil
		}
	})
	h.node = mustNode(t, []tools.Tool{weather, echo}, WithHandleToolErrors(true),
		WithCorrectionModel(corrector), WithLogger(slog.New(slog.DiscardHandler)))
	return h
}

// callKinds are the argument shapes the invariant tests mix.
var callKinds = []struct {
	name, args string
	valid      bool // the tool must run exactly once
}{
	{"get_weather", `{"city":"Paris"}`, true},
	{"get_weather", `{"city":"error"}`, true},
	{"get_weather", `{"city":"panic"}`, true},
	{"get_weather", `{"city":"Rome","days":3}`, true},
	{"get_weather", `{"city": "Rome",}`, true}, // repairable
	{"get_weather", `{"days":3}`, false},       // missing city
	{"get_weather", `{"city":"Oslo","unit":"kelvin"}`, false},
	{"get_weather", `<<<garbage>>>`, false},
	{"get_weather", ``, false},
	{"echo", `anything`, true},
	{"teleport", `{}`, false}, // unknown: the executor answers, no tool runs
	{"", `{}`, false},         // unknown, empty name
}

type genCall struct {
	part    llms.ContentPart
	id      string
	mustRun bool
}

// checkInvariant runs the node on calls and checks that every call whose
// id is not a repeat gets exactly one tool message, in order, and that
// every valid call ran exactly once.
//
// With cut, the run's reply was cut by the output limit: no call may run,
// and every answered call has outcome output_limit.
func (h *invariantHarness) checkInvariant(t testing.TB, calls []genCall, cut bool) *Result {
	t.Helper()
	h.mu.Lock()
	clear(h.ran)
	h.mu.Unlock()
	parts := make([]llms.ContentPart, len(calls))
	for i, c := range calls {
		parts[i] = c.part
	}
	var opts []RunOption
	if cut {
		opts = append(opts, WithFinishReason("length"))
	}
	res, err := h.node.Run(context.Background(), conversation(parts...), opts...)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(res.Calls) != len(calls) {
		t.Fatalf("%d reports for %d calls", len(res.Calls), len(calls))
	}
	seen := map[string]bool{}
	var wantIDs []string
	execs := map[string]int{}
	ranOnce := map[string]bool{} // corrected calls must have run exactly once
	for i, c := range calls {
		dup := c.id != "" && seen[c.id]
		seen[c.id] = true
		if dup != (res.Calls[i].Outcome == OutcomeDropped) {
			t.Fatalf("call %d (id %q, repeat %v) has outcome %s", i, c.id, dup, res.Calls[i].Outcome)
		}
		if dup {
			continue
		}
		wantIDs = append(wantIDs, c.id)
		if cut {
			if res.Calls[i].Outcome != OutcomeOutputLimit {
				t.Fatalf("call %d of a cut reply has outcome %s", i, res.Calls[i].Outcome)
			}
			continue
		}
		if c.mustRun {
			execs[c.id]++
		}
		if res.Calls[i].Outcome == OutcomeCorrected {
			ranOnce[c.id] = true
		}
	}
	if len(res.ToolMessages) != len(wantIDs) {
		t.Fatalf("%d tool messages for %d answerable calls", len(res.ToolMessages), len(wantIDs))
	}
	for i, m := range res.ToolMessages {
		if r := response(t, m); r.ToolCallID != wantIDs[i] {
			t.Fatalf("message %d answers %q, want %q", i, r.ToolCallID, wantIDs[i])
		}
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for id, n := range execs {
		if id != "" && h.ran[id] != n {
			t.Fatalf("call %q ran %d times, want %d", id, h.ran[id], n)
		}
	}
	for id := range ranOnce {
		if id != "" && h.ran[id] != 1 {
			t.Fatalf("corrected call %q ran %d times, want 1", id, h.ran[id])
		}
	}
	if cut && len(h.ran) > 0 {
		t.Fatalf("calls of a cut reply ran: %v", h.ran)
	}
	for id, n := range h.ran {
		if id != "" && n > 1 {
			t.Fatalf("call %q ran %d times", id, n)
		}
	}
	return res
}

func randomCalls(r *rand.Rand) []genCall {
	n := r.IntN(12)
	calls := make([]genCall, n)
	for i := range calls {
		k := callKinds[r.IntN(len(callKinds))]
		id := fmt.Sprintf("call_%d", i)
		switch r.IntN(6) {
		case 0:
			id = "" // Gemini style
		case 1:
			if i > 0 {
				id = fmt.Sprintf("call_%d", r.IntN(i)) // maybe a repeat
			}
		}
		var part llms.ContentPart = tc(id, k.name, k.args)
		if r.IntN(20) == 0 {
			part, k.valid = llms.ToolCall{ID: id}, false // nil FunctionCall
		}
		calls[i] = genCall{part: part, id: id, mustRun: k.valid}
	}
	return calls
}

func TestInvariantEveryCallAnsweredOnce(t *testing.T) {
	h := newInvariantHarness(t)
	iterations := 10000
	if testing.Short() {
		iterations = 500
	}
	r := rand.New(rand.NewPCG(1, 2))
	seen := map[Outcome]int{}
	for range iterations {
		for _, c := range h.checkInvariant(t, randomCalls(r), r.IntN(10) == 0).Calls {
			seen[c.Outcome]++
		}
	}
	// The mix must exercise every outcome the harness can produce.
	for _, o := range []Outcome{OutcomeExecuted, OutcomeCorrected, OutcomeFeedback, OutcomeDropped, OutcomeOutputLimit} {
		if seen[o] == 0 {
			t.Errorf("no call had outcome %s: %v", o, seen)
		}
	}
}

func FuzzToolNodeInvariant(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3}, `{"city":"x"`)
	f.Add([]byte{5, 5, 9, 200, 17}, `<think>{"city":"a"}</think>{"city":"b"}`)
	f.Add([]byte{0xff, 1, 2, 0x85}, `{"city": "Paris", "unit": "celsius"`)
	h := newInvariantHarness(f)
	f.Fuzz(func(t *testing.T, plan []byte, args string) {
		if len(plan) > 64 {
			plan = plan[:64]
		}
		var calls []genCall
		for i, b := range plan {
			id := fmt.Sprintf("id%d", b%8) // repeats are common
			if b%7 == 0 {
				id = ""
			}
			k := callKinds[int(b)%len(callKinds)]
			name, a, valid := k.name, k.args, k.valid
			if b&0x80 != 0 {
				// Fuzzed arguments: whether they run depends on repair and validation.
				a, valid = args, false
				if i%2 == 1 {
					name = "echo"
					valid = true
				}
			}
			calls = append(calls, genCall{part: tc(id, name, a), id: id, mustRun: valid && !strings.Contains(a, "\x00")})
		}
		h.checkInvariant(t, calls, len(plan) > 0 && plan[0] == 0xff) // a first byte of 255: the reply was cut
	})
}
