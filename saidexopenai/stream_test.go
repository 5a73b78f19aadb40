package saidexopenai_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexopenai"
	"github.com/saidex/saidex-go/saidexopenai/openaitest"
	"github.com/tmc/langchaingo/llms"
)

// streamTurn is a streamed turn of three calls: a valid one, a repairable
// one and an invalid one.
var streamTurn = []openaitest.Call{
	{ID: "call_valid", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`},
	{ID: "call_repairable", Name: "get_weather", Arguments: `{'city': 'Oslo', 'days': 1}`},
	{ID: "call_invalid", Name: "get_weather", Arguments: `{"city":"Rome","days":30}`},
}

func TestChatStream(t *testing.T) {
	wantArgs := map[string]string{
		"call_valid":      `{"city":"Paris","days":2}`,
		"call_repairable": `{"city":"Oslo","days":1}`,
		"call_invalid":    `{"city":"Rome","days":30}`,
	}
	wantOut := map[string]string{
		"call_valid":      "Paris: sunny for 2 days",
		"call_repairable": "Oslo: sunny for 1 days",
		"call_invalid":    "days",
	}
	for _, tt := range []struct {
		name       string
		interleave bool
		check      bool // Check and run the calls here, instead of Run
	}{
		{name: "calls one after the other"},
		{name: "interleaved deltas", interleave: true},
		{name: "check only", check: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx := context.Background()
			validated := make(chan string, 64) // the city of each call the validator saw
			g, runs := newGuard(t, saidex.WithValidator("get_weather", func(_ context.Context, args map[string]any, _ saidex.ValidatorContext) error {
				city, _ := args["city"].(string)
				validated <- city
				return nil
			}))
			srv := openaitest.NewServer(openaitest.Reply{Calls: streamTurn, Interleave: tt.interleave}, openaitest.Reply{Text: "done"})
			defer srv.Close()
			client := srv.Client()
			params := userParams("weather?")
			params.Tools = g.ChatTools()
			stream := client.Chat.Completions.NewStreaming(ctx, params)
			s := g.NewChatStream(ctx, nil, params.Messages)
			defer s.Close()
			waited := false
			for stream.Next() {
				chunk := stream.Current()
				s.AddChunk(chunk)
				if tt.interleave || waited || len(chunk.Choices) == 0 || len(chunk.Choices[0].Delta.ToolCalls) == 0 ||
					chunk.Choices[0].Delta.ToolCalls[0].Index != 1 {
					continue
				}
				// Call 1 started streaming: call 0 is complete and is
				// checked while the stream goes on.
				waited = true
				select {
				case city := <-validated:
					if city != "Paris" {
						t.Errorf("the first early check saw %q, want Paris", city)
					}
				case <-time.After(10 * time.Second):
					t.Fatal("call 0 was not checked before the stream went on")
				}
			}
			if err := stream.Err(); err != nil {
				t.Fatal(err)
			}
			if err := stream.Close(); err != nil {
				t.Fatal(err)
			}
			var msgs []openai.ChatCompletionMessageParamUnion
			var outcomes []saidex.Outcome
			if tt.check {
				chk, err := s.Check()
				if err != nil {
					t.Fatal(err)
				}
				outputs := map[string]string{}
				for _, r := range chk.Ready {
					outputs[r.ID] = wantOut[r.ID] + " (ran by the caller)"
				}
				if msgs, err = chk.Messages(outputs); err != nil {
					t.Fatal(err)
				}
				for _, rep := range chk.Calls {
					outcomes = append(outcomes, rep.Outcome)
				}
			} else {
				turn, err := s.Run()
				if err != nil {
					t.Fatal(err)
				}
				msgs = turn.Messages
				for _, rep := range turn.Calls {
					outcomes = append(outcomes, rep.Outcome)
				}
				if got, want := runs.list(), []string{wantArgs["call_repairable"], wantArgs["call_valid"]}; !slices.Equal(got, want) {
					t.Errorf("the tool ran with %q, want %q", got, want)
				}
			}
			if want := []saidex.Outcome{saidex.OutcomeExecuted, saidex.OutcomeExecuted, saidex.OutcomeFeedback}; !slices.Equal(outcomes, want) {
				t.Errorf("outcomes %v, want %v", outcomes, want)
			}
			params.Messages = append(params.Messages, msgs...)
			if _, err := client.Chat.Completions.New(ctx, params); err != nil {
				t.Fatalf("next request: %v", err)
			}
			checkWire(t, lastChat(t, srv), wantArgs, wantOut)
		})
	}
}

// TestChatStreamCut: a streamed reply cut by the output limit runs no call,
// whatever the early checks found.
func TestChatStreamCut(t *testing.T) {
	ctx := context.Background()
	g, runs := newGuard(t)
	srv := openaitest.NewServer(openaitest.Reply{Calls: streamTurn[:2], Finish: "length"}, openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	params := userParams("weather?")
	stream := client.Chat.Completions.NewStreaming(ctx, params)
	s := g.NewChatStream(ctx, nil, params.Messages)
	for stream.Next() {
		s.AddChunk(stream.Current())
	}
	if err := stream.Close(); err != nil {
		t.Fatal(err)
	}
	turn, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if len(runs.list()) != 0 {
		t.Errorf("a cut reply ran %v", runs.list())
	}
	for _, rep := range turn.Calls {
		if rep.Outcome != saidex.OutcomeOutputLimit {
			t.Errorf("call %s: outcome %s, want output_limit", rep.ID, rep.Outcome)
		}
	}
	params.Messages = append(params.Messages, turn.Messages...)
	if _, err := client.Chat.Completions.New(ctx, params); err != nil {
		t.Fatalf("next request: %v", err)
	}
}

// TestChatStreamClose: a stream given up before its end leaves no
// goroutine behind (goleak checks it in TestMain).
func TestChatStreamClose(t *testing.T) {
	ctx := context.Background()
	block := make(chan struct{})
	var once sync.Once
	g, _ := newGuard(t, saidex.WithValidator("get_weather", func(ctx context.Context, _ map[string]any, _ saidex.ValidatorContext) error {
		once.Do(func() { close(block) })
		<-ctx.Done()
		return ctx.Err()
	}))
	srv := openaitest.NewServer(openaitest.Reply{Calls: streamTurn})
	defer srv.Close()
	client := srv.Client()
	stream := client.Chat.Completions.NewStreaming(ctx, userParams("weather?"))
	s := g.NewChatStream(ctx, nil, nil)
	for stream.Next() {
		s.AddChunk(stream.Current())
	}
	_ = stream.Close()
	<-block
	s.Close() // cancels the validator's ctx and waits
}

// TestChatStreamCorrectsOnce: a call corrected by its early check runs with
// the corrected arguments, and the end of the stream does not correct it
// again (the correction server has one reply).
func TestChatStreamCorrectsOnce(t *testing.T) {
	ctx := context.Background()
	corr := openaitest.NewServer(openaitest.Reply{Calls: []openaitest.Call{{ID: "fix", Name: "get_weather", Arguments: `{"city":"Paris","days":3}`}}})
	defer corr.Close()
	started := make(chan struct{}, 4)
	m := signalModel{Model: saidexopenai.CorrectionModel(corr.Client(), "gpt-small"), started: started}
	g, runs := newGuard(t, saidex.WithCorrectionModel(m))
	srv := openaitest.NewServer(openaitest.Reply{Calls: []openaitest.Call{
		{ID: "call_1", Name: "get_weather", Arguments: `{"city":"Paris","days":"three"}`},
		{ID: "call_2", Name: "get_weather", Arguments: `{"city":"Rome","days":1}`},
	}}, openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	params := userParams("weather?")
	stream := client.Chat.Completions.NewStreaming(ctx, params)
	s := g.NewChatStream(ctx, nil, params.Messages)
	waited := false
	for stream.Next() {
		chunk := stream.Current()
		s.AddChunk(chunk)
		if !waited && len(chunk.Choices) > 0 && len(chunk.Choices[0].Delta.ToolCalls) > 0 && chunk.Choices[0].Delta.ToolCalls[0].Index == 1 {
			waited = true
			select { // call_1 is complete: its correction starts while the stream goes on
			case <-started:
			case <-time.After(10 * time.Second):
				t.Fatal("the correction of call_1 did not start before the stream went on")
			}
		}
	}
	if err := stream.Close(); err != nil {
		t.Fatal(err)
	}
	turn, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if n, rej := len(corr.Requests()), corr.Rejected(); n != 1 || len(rej) != 0 {
		t.Errorf("the correction server got %d requests (rejected %q), want 1", n, rej)
	}
	if rep := turn.Calls[0]; rep.Outcome != saidex.OutcomeCorrected || !rep.CorrectionAttempted {
		t.Errorf("call_1: outcome %s, correction attempted %v; want corrected", rep.Outcome, rep.CorrectionAttempted)
	}
	if got, want := runs.list(), []string{`{"city":"Paris","days":3}`, `{"city":"Rome","days":1}`}; !slices.Equal(got, want) {
		t.Errorf("runs %q, want %q", got, want)
	}
	params.Messages = append(params.Messages, turn.Messages...)
	if _, err := client.Chat.Completions.New(ctx, params); err != nil {
		t.Fatal(err)
	}
	checkWire(t, lastChat(t, srv), map[string]string{"call_1": `{"city":"Paris","days":3}`, "call_2": `{"city":"Rome","days":1}`},
		map[string]string{"call_1": "Paris: sunny for 3 days", "call_2": "Rome: sunny for 1 days"})
}

// signalModel reports each correction request on started.
type signalModel struct {
	llms.Model
	started chan<- struct{}
}

func (m signalModel) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	m.started <- struct{}{}
	return m.Model.GenerateContent(ctx, msgs, opts...)
}

// TestChatStreamWithoutFinishReason: a stream whose body ended before the
// finish chunk (openai-go's reader reports no error then) runs no call,
// even one whose arguments so far close into a valid object.
func TestChatStreamWithoutFinishReason(t *testing.T) {
	ctx := context.Background()
	g, runs := newGuard(t)
	var chunk openai.ChatCompletionChunk
	if err := json.Unmarshal([]byte(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4.1",
		"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function",
		"function":{"name":"get_weather","arguments":"{\"days\":2,\"city\":\"Paris\""}}]},"finish_reason":null}]}`), &chunk); err != nil {
		t.Fatal(err)
	}
	for _, check := range []bool{false, true} {
		s := g.NewChatStream(ctx, nil, userParams("weather?").Messages)
		s.AddChunk(chunk)
		var err error
		if check {
			_, err = s.Check()
		} else {
			_, err = s.Run()
		}
		if !errors.Is(err, saidexopenai.ErrIncompleteStream) {
			t.Errorf("check %t: err %v, want ErrIncompleteStream", check, err)
		}
	}
	if len(runs.list()) != 0 {
		t.Errorf("an incomplete stream ran %v", runs.list())
	}
}

// TestChatStreamStateReachesEveryCheck: the state of the stream's ctx (one
// a validator reads) reaches the check of every call, early or not.
func TestChatStreamStateReachesEveryCheck(t *testing.T) {
	ctx := saidex.ContextWithState(context.Background(), "user-7")
	var sawState atomic.Int64
	g, _ := newGuard(t, saidex.WithValidator("get_weather", func(ctx context.Context, args map[string]any, vc saidex.ValidatorContext) error {
		if vc.State == "user-7" {
			sawState.Add(1)
		}
		return nil
	}))
	srv := openaitest.NewServer(openaitest.Reply{Calls: streamTurn[:2]})
	defer srv.Close()
	client := srv.Client()
	params := userParams("weather?")
	stream := client.Chat.Completions.NewStreaming(ctx, params)
	s := g.NewChatStream(ctx, nil, params.Messages)
	for stream.Next() {
		s.AddChunk(stream.Current())
	}
	if err := stream.Close(); err != nil {
		t.Fatal(err)
	}
	turn, err := s.Run()
	if err != nil {
		t.Fatal(err)
	}
	if int(sawState.Load()) < len(turn.Calls) {
		t.Errorf("%d of %d calls were checked with the run's state", sawState.Load(), len(turn.Calls))
	}
}
