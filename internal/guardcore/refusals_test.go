package guardcore

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/saidex/saidex-go"
)

// storedBytes returns the bytes of refused-call text g keeps for session
// sess, over all its tools.
func storedBytes(g *Guard, sess any) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := 0
	if st := g.sessions[sess]; st != nil {
		for _, tr := range st.refused {
			n += tr.size()
		}
	}
	return n
}

// maxStoredBytes is the most a session keeps per tool, by the rule of
// MaxKeptRefusals.
const maxStoredBytes = MaxKeptRefusals*(MaxKeptArgumentBytes+MaxKeptFeedbackBytes+32) + (MaxRefusals-MaxKeptRefusals)*32

// TestRefusalsAreBounded: a session sending many large invalid calls keeps
// a bounded amount of text, and a call it sends again, with the same
// text, is still found identical to one refused long before.
func TestRefusalsAreBounded(t *testing.T) {
	ctx := context.Background()
	g := mustNew(t)
	huge := func(i int) string { return fmt.Sprintf(`{"n":"%d%s"}`, i, strings.Repeat("x", 256<<10)) }
	for i := range 80 {
		v, err := g.Check(ctx, "s", "t", nil, schemaOf(needsN), huge(i))
		if err != nil {
			t.Fatal(err)
		}
		if v.Ready || v.Report.Repeated {
			t.Fatalf("call %d: ready %v, repeated %v", i, v.Ready, v.Report.Repeated)
		}
	}
	got := storedBytes(g, "s")
	t.Logf("80 refused calls of %d bytes: %d bytes kept", len(huge(0)), got)
	if got > maxStoredBytes || got > 64<<10 {
		t.Fatalf("the session keeps %d bytes, want at most %d", got, min(maxStoredBytes, 64<<10))
	}
	for _, tt := range []struct {
		call     int
		repeated bool
	}{
		{79, true}, // the latest, kept as a digest
		{20, true}, // long before: its digest only
		{80, false},
	} {
		v, err := g.Check(ctx, "s", "t", nil, schemaOf(needsN), huge(tt.call))
		if err != nil {
			t.Fatal(err)
		}
		if v.Report.Repeated != tt.repeated || strings.Contains(v.Feedback, "identical") != tt.repeated {
			t.Errorf("call %d sent again: repeated %v, want %v: %.200q", tt.call, v.Report.Repeated, tt.repeated, v.Feedback)
		}
	}
	if got := storedBytes(g, "s"); got > maxStoredBytes {
		t.Fatalf("the session keeps %d bytes, want at most %d", got, maxStoredBytes)
	}
}

// TestBoundedRefusalsDecideAsTheFullHistory: for long runs of calls (valid
// ones, invalid ones short and long, unreadable ones, calls sent again as
// they were or respaced, calls a hook answers with its own text), the
// verdicts and feedback of the guard are those the node gives with every
// refused call of the last MaxRefusals replayed in full, as the guard did
// before it bounded what it keeps: the feedback-limit streak and its count
// in the limit message, and the repeated-call message. (The runs send
// again only calls among the last 40 refused, and respaced only among the
// last MaxKeptRefusals, short ones: an older or longer call is found
// again only when sent with the same text, as MaxKeptRefusals states.)
func TestBoundedRefusalsDecideAsTheFullHistory(t *testing.T) {
	hook := saidex.WithUnresolvedHook(func(_ context.Context, c saidex.UnresolvedToolCall) (saidex.Resolution, error) {
		if strings.Contains(c.RawArguments, "hook") {
			return saidex.FeedbackText("Not now: the hook says so."), nil
		}
		return saidex.Resolution{}, nil
	})
	tests := []struct {
		name  string
		valid int // percent of the calls that are valid
		opts  []saidex.Option
	}{
		{"no limit", 2, nil},
		{"limit 3", 2, []saidex.Option{saidex.WithFeedbackLimit(3)}},
		{"limit 3, never valid", 0, []saidex.Option{saidex.WithFeedbackLimit(3)}},
		{"limit 20, a hook", 2, []saidex.Option{saidex.WithFeedbackLimit(20), hook}},
		{"limit 70, a hook", 2, []saidex.Option{saidex.WithFeedbackLimit(70), hook}},
		{"limit 64, never valid", 0, []saidex.Option{saidex.WithFeedbackLimit(MaxRefusals)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			g := mustNew(t, tt.opts...)
			ref := mustNew(t, tt.opts...)
			c := ref.compiledTool("t", nil, schemaOf(needsN))
			rng := rand.New(rand.NewPCG(1, uint64(len(tt.name))))
			var full []pastCall // every refused call since the tool last ran
			limitMessages, repeats := 0, 0
			for i := range 300 {
				var args string
				switch k := rng.IntN(100); {
				case k < tt.valid:
					args = `{"n": 1}`
				case k < 20 && len(full) > 0:
					args = full[len(full)-1-rng.IntN(min(len(full), 40))].args
				case k < 28 && len(full) > 0:
					// respaced: the same JSON value in another text
					p := full[len(full)-1-rng.IntN(min(len(full), MaxKeptRefusals))]
					if len(p.args) < MaxKeptArgumentBytes {
						args = " " + p.args + " "
					} else {
						args = p.args
					}
				case k < 40:
					args = fmt.Sprintf(`{"n": "long %d %s"}`, i, strings.Repeat("y", MaxKeptArgumentBytes))
				case k < 48:
					args = fmt.Sprintf(`{"n": "unreadable %d`, i)
				case k < 55:
					args = fmt.Sprintf(`{"n": "hook %d"}`, i)
				default:
					args = fmt.Sprintf(`{"n": "short %d"}`, i)
				}
				v, err := g.Check(ctx, "s", "t", nil, schemaOf(needsN), args)
				if err != nil {
					t.Fatal(err)
				}
				turns := make([][]pastCall, 0, MaxRefusals)
				for _, p := range full[max(0, len(full)-MaxRefusals):] {
					turns = append(turns, []pastCall{p})
				}
				want, err := check(ctx, c, args, turns)
				if err != nil {
					t.Fatal(err)
				}
				if v.Report.Outcome != want.Outcome || v.Feedback != want.Output || v.Report.Repeated != want.Repeated {
					t.Fatalf("call %d (%.60q, %d refused before): got %s repeated=%v %.300q\nwant %s repeated=%v %.300q",
						i, args, len(full), v.Report.Outcome, v.Report.Repeated, v.Feedback, want.Outcome, want.Repeated, want.Output)
				}
				switch want.Outcome {
				case saidex.OutcomeExecuted, saidex.OutcomeCorrected, saidex.OutcomeSalvaged:
					full = nil
				default:
					full = append(full, pastCall{args: args, feedback: want.Output})
				}
				if want.Outcome == saidex.OutcomeFeedbackLimit {
					limitMessages++
				}
				if want.Repeated {
					repeats++
				}
			}
			t.Logf("%d limit messages, %d repeated calls", limitMessages, repeats)
			if repeats == 0 {
				t.Error("no call was found repeated: the run tests nothing of it")
			}
			if got := storedBytes(g, "s"); got > maxStoredBytes {
				t.Fatalf("the session keeps %d bytes, want at most %d", got, maxStoredBytes)
			}
		})
	}
}
