package guardcore

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/saidex/saidex-go"
)

var quiet = func() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func schemaOf(s string) func() ([]byte, error) {
	return func() ([]byte, error) { return []byte(s), nil }
}

const needsN = `{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`

func mustNew(t *testing.T, opts ...saidex.Option) *Guard {
	t.Helper()
	g, err := New(opts, quiet)
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// TestCheck: the verdicts of Check for one call, by its arguments.
func TestCheck(t *testing.T) {
	tests := []struct {
		name, args    string
		ready         bool
		wantArguments string
	}{
		{"valid as sent", `{"n": 1}`, true, `{"n": 1}`},
		{"coerced", `{"n": "1"}`, true, `{"n":1}`},
		{"absent arguments are {}", ``, false, ""},
		{"wrong type", `{"n": "one"}`, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := mustNew(t, saidex.WithCoercion(saidex.CoercionLax))
			v, err := g.Check(context.Background(), "s", "t", nil, schemaOf(needsN), tt.args)
			if err != nil {
				t.Fatal(err)
			}
			if !v.Guarded || v.Ready != tt.ready || v.Arguments != tt.wantArguments {
				t.Fatalf("verdict %+v", v)
			}
			if !tt.ready && !strings.HasPrefix(v.Feedback, "Error: t was not executed") {
				t.Fatalf("feedback %q", v.Feedback)
			}
		})
	}
}

// TestSessions: refusals count per session until the tool runs; a call
// without a session remembers nothing.
func TestSessions(t *testing.T) {
	ctx := context.Background()
	g := mustNew(t, saidex.WithFeedbackLimit(1))
	check := func(sess any, args string) Verdict {
		t.Helper()
		v, err := g.Check(ctx, sess, "t", nil, schemaOf(needsN), args)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	first := check("a", `{}`)
	if limit := check("a", `{"m": 1}`); limit.Report.Outcome != saidex.OutcomeFeedbackLimit {
		t.Fatalf("second refusal in a: %s", limit.Report.Outcome)
	}
	if v := check("b", `{}`); v.Feedback != first.Feedback {
		t.Fatalf("b's first refusal %q", v.Feedback)
	}
	if v := check("a", `{"n": 2}`); !v.Ready {
		t.Fatal("valid call refused")
	}
	if v := check("a", `{}`); v.Report.Outcome != saidex.OutcomeFeedback {
		t.Fatalf("after a run: %s", v.Report.Outcome)
	}
	for range 3 {
		if v := check(nil, `{}`); v.Report.Outcome != saidex.OutcomeFeedback {
			t.Fatalf("without a session: %s", v.Report.Outcome)
		}
	}
	if n := g.Sessions(); n != 2 {
		t.Fatalf("%d sessions, want 2 (a and b)", n)
	}
	g.Forget("a")
	if n := g.Sessions(); n != 1 {
		t.Fatalf("%d sessions after Forget, want 1", n)
	}
}

// TestSchemaChanges: a tool is compiled again when its schema changes,
// and a schema saidex cannot use leaves the call unguarded.
func TestSchemaChanges(t *testing.T) {
	ctx := context.Background()
	g := mustNew(t)
	calls := 0
	schema := func(s string) func() ([]byte, error) {
		return func() ([]byte, error) { calls++; return []byte(s), nil }
	}
	v, _ := g.Check(ctx, nil, "t", 1, schema(needsN), `{"n": 1}`)
	if !v.Ready {
		t.Fatal("not ready")
	}
	if v, _ = g.Check(ctx, nil, "t", 1, schema(needsN), `{"n": 1}`); !v.Ready || calls != 1 {
		t.Fatalf("same identity: schema read %d times", calls)
	}
	v, _ = g.Check(ctx, nil, "t", 2, schema(`{"type":"object","required":["s"]}`), `{"n": 1}`)
	if v.Ready {
		t.Fatal("the new schema was not used")
	}
	v, _ = g.Check(ctx, nil, "t", 3, schema(`{"type":"object","properties":{"x":{"$ref":"#/nowhere"}}}`), `{}`)
	if v.Guarded {
		t.Fatal("a schema that does not compile is guarded")
	}
}

func TestUnknownToolText(t *testing.T) {
	many := make([]string, 30)
	for i := range many {
		many[i] = "tool_" + string(rune('a'+i%26)) + strings.Repeat("x", i)
	}
	tests := []struct {
		names []string
		want  string
	}{
		{nil, "the server has no tools"},
		{[]string{"write_file", "read_file"}, "try one of [write_file, read_file]"},
		{append(many, "write_file"), "did you mean one of [write_file"},
	}
	for _, tt := range tests {
		if got := UnknownToolText("write_fil", tt.names); !strings.Contains(got, tt.want) {
			t.Errorf("%d names: %q lacks %q", len(tt.names), got, tt.want)
		}
	}
}
