package saidexanthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/saidex/saidex-go/saidexanthropic"
	"github.com/saidex/saidex-go/saidexanthropic/anthropictest"
)

// stream sends params as a streaming request and accumulates the reply
// with both Message.Accumulate and an Accumulator.
func stream(t *testing.T, client anthropic.Client, params anthropic.MessageNewParams) (anthropic.Message, *saidexanthropic.Accumulator) {
	t.Helper()
	s := client.Messages.NewStreaming(context.Background(), params)
	defer s.Close()
	var stock anthropic.Message
	acc := &saidexanthropic.Accumulator{}
	for s.Next() {
		ev := s.Current()
		if err := stock.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
		if err := acc.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	return stock, acc
}

func TestStream(t *testing.T) {
	tests := []struct {
		name      string
		reply     anthropictest.Reply
		check     bool
		want      wantCall
		wantRuns  []weatherArgs
		forbidden []string // in the tool_result
	}{
		{
			name: "a call cut by max_tokens never runs and is not missing fields",
			reply: anthropictest.Reply{StopReason: "max_tokens", Content: []anthropictest.Block{
				anthropictest.ToolUse("toolu_cut", "get_weather", `{"days": 2, "city": "Par`)}},
			want:      wantCall{"toolu_cut", `{}`, true, "cut off by the output-token limit"},
			forbidden: []string{"missing", "required"},
		},
		{
			name: "a cut call, check only",
			reply: anthropictest.Reply{StopReason: "max_tokens", Content: []anthropictest.Block{
				anthropictest.ToolUse("toolu_cut", "get_weather", `{"days": 2, "city": "Par`)}},
			check:     true,
			want:      wantCall{"toolu_cut", `{}`, true, "cut off by the output-token limit"},
			forbidden: []string{"missing", "required"},
		},
		{
			name: "malformed input is repaired from the deltas, not read as {}",
			reply: anthropictest.Reply{Content: []anthropictest.Block{
				anthropictest.ToolUse("toolu_bad", "get_weather", `{'city': 'Oslo', 'days': 1,}`)}},
			want:     wantCall{"toolu_bad", `{"city":"Oslo","days":1}`, false, "Oslo: sunny for 1 days"},
			wantRuns: []weatherArgs{{"Oslo", 1}},
		},
		{
			name: "a valid streamed call runs with its input",
			reply: anthropictest.Reply{Content: []anthropictest.Block{
				anthropictest.Text("Checking."),
				anthropictest.ToolUse("toolu_ok", "get_weather", `{"city": "Paris", "days": 3}`)}},
			want:     wantCall{"toolu_ok", `{"city":"Paris","days":3}`, false, "Paris: sunny for 3 days"},
			wantRuns: []weatherArgs{{"Paris", 3}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			g, ran := newGuard(t)
			srv, client := newServer(t, tt.reply, done)
			params := firstParams(g)
			stock, acc := stream(t, client, params)
			if !acc.Complete() {
				t.Fatal("the accumulator did not see message_stop")
			}
			if tt.check {
				c, err := g.CheckStream(ctx, params.Messages, acc)
				if err != nil {
					t.Fatal(err)
				}
				params.Messages = append(params.Messages, c.Assistant, c.Results(func(c saidexanthropic.CheckedCall) (string, bool) {
					t.Errorf("call %s is ready", c.ID)
					return "", false
				}))
			} else {
				turn, err := g.RunStream(ctx, params.Messages, acc)
				if err != nil {
					t.Fatal(err)
				}
				params.Messages = append(params.Messages, turn.Messages()...)
			}
			if _, err := client.Messages.New(ctx, params); err != nil {
				t.Fatalf("the next request failed: %v", err)
			}
			checkNextRequest(t, srv, []wantCall{tt.want})
			req, _ := srv.Last()
			for _, f := range tt.forbidden {
				if text := req.Messages[2].Content[0].ResultText(); strings.Contains(text, f) {
					t.Errorf("the tool_result holds %q: %s", f, text)
				}
			}
			if got := ran.all(); len(got) != len(tt.wantRuns) || (len(got) > 0 && got[0] != tt.wantRuns[0]) {
				t.Errorf("runs %v, want %v", got, tt.wantRuns)
			}
			// What the Accumulator works around: Message.Accumulate reads
			// a tool_use input that is not valid JSON as {}.
			i := len(stock.Content) - 1
			in, _ := acc.Input(i)
			want := in
			if !json.Valid([]byte(in)) {
				want = "{}"
			}
			if got := string(stock.Content[i].Input); got != want {
				t.Errorf("Message.Accumulate holds %s for the streamed input %s, want %s", got, in, want)
			}
		})
	}
}

func TestStreamIncomplete(t *testing.T) {
	g, _ := newGuard(t)
	var acc saidexanthropic.Accumulator
	if _, err := g.RunStream(context.Background(), nil, &acc); !errors.Is(err, saidexanthropic.ErrIncompleteStream) {
		t.Errorf("RunStream on an empty accumulator: %v, want ErrIncompleteStream", err)
	}
	if _, err := g.CheckStream(context.Background(), nil, nil); !errors.Is(err, saidexanthropic.ErrNoMessage) {
		t.Errorf("CheckStream(nil): %v, want ErrNoMessage", err)
	}
}
