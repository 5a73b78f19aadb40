package agent

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/fakeprovider"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"
)

func TestAgentInExecutorAnswersBrokenCallsWithoutAborting(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	model := script(
		callsResponse("Let me look.",
			tc("a", "get_weather", `{"city":"Paris","days":2}`),
			tc("b", "get_weather", `<<garbage>>`),
			tc("c", "get_weather", `{"days":3}`),
			tc("d", "teleport", `{"to":"Mars"}`),
			tc("e", "GET_WEATHER", `{"city":"Rome"}`),
		),
		callsResponse("", tc("f", "get_weather", `{"city":"Rome"}`)),
		textResponse("Paris and Rome are sunny."),
	)
	exec := agents.NewExecutor(mustAgent(t, model, node), agents.WithReturnIntermediateSteps())

	out, err := exec.Call(context.Background(), map[string]any{"input": "Weather in Paris and Rome?"})
	if err != nil {
		t.Fatalf("executor: %v", err)
	}
	if out["output"] != "Paris and Rome are sunny." {
		t.Errorf("output = %v", out["output"])
	}
	if got := runs.Load(); got != 2 {
		t.Errorf("weather ran %d times, want 2 (a and f)", got)
	}
	steps := out["intermediateSteps"].([]schema.AgentStep)
	want := []struct {
		id, tool, input, obs string
	}{
		{"a", "get_weather", `{"city":"Paris","days":2}`, "Paris: sunny for 2 days"},
		{"b", "get_weather", `{}`, "could not be read as one JSON object"},
		{"c", "get_weather", `{"days":3}`, "city"},
		{"d", "teleport", `{"to":"Mars"}`, "teleport is not a valid tool, try another one"},
		{"e", "GET_WEATHER", `{"city":"Rome"}`, "GET_WEATHER is not a valid tool, try one of [get_weather]"},
		{"f", "get_weather", `{"city":"Rome"}`, "Rome: sunny"},
	}
	if len(steps) != len(want) {
		t.Fatalf("got %d steps, want %d: %+v", len(steps), len(want), steps)
	}
	for i, w := range want {
		s := steps[i]
		if s.Action.ToolID != w.id || s.Action.Tool != w.tool || s.Action.ToolInput != w.input {
			t.Errorf("step %d action = %+v, want id %s tool %s input %s", i, s.Action, w.id, w.tool, w.input)
		}
		if !strings.Contains(s.Observation, w.obs) {
			t.Errorf("step %d observation = %q, want it to contain %q", i, s.Observation, w.obs)
		}
	}

	// Every turn after the first shows the model each call answered, with
	// arguments any provider accepts.
	received, opts := model.calls()
	if len(received) != 3 {
		t.Fatalf("model called %d times, want 3", len(received))
	}
	second := received[1]
	var ai llms.MessageContent
	for _, m := range second {
		if m.Role == llms.ChatMessageTypeAI {
			ai = m
		}
	}
	calls := toolCalls(ai)
	resps := toolResponses(second)
	if len(calls) != 5 || len(resps) != 5 {
		t.Fatalf("second turn has %d calls and %d tool messages, want 5 and 5", len(calls), len(resps))
	}
	for i := range calls {
		if calls[i].ID != resps[i].ToolCallID {
			t.Errorf("call %d id %q answered by %q", i, calls[i].ID, resps[i].ToolCallID)
		}
		if !isObject(calls[i].FunctionCall.Arguments) {
			t.Errorf("call %d history arguments %q are not a JSON object", i, calls[i].FunctionCall.Arguments)
		}
	}
	if ai.Parts[0] != llms.TextPart("Let me look.") {
		t.Errorf("AI text lost from history: %+v", ai.Parts[0])
	}
	// The third turn holds two AI messages, one per earlier turn.
	nAI := 0
	for _, m := range received[2] {
		if m.Role == llms.ChatMessageTypeAI {
			nAI++
		}
	}
	if nAI != 2 || len(toolResponses(received[2])) != 6 {
		t.Errorf("third turn has %d AI messages and %d tool messages, want 2 and 6", nAI, len(toolResponses(received[2])))
	}
	// The model saw the node's schema, not a single __arg1 string.
	if len(opts[0].Tools) != 1 || !strings.Contains(fmt.Sprint(opts[0].Tools[0].Function.Parameters), "city") {
		t.Errorf("tools sent = %+v", opts[0].Tools)
	}
}

func TestAgentCollectsToolCallsFromEveryChoice(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	// Anthropic's layout: each content block in its own choice.
	model := script(
		&llms.ContentResponse{Choices: []*llms.ContentChoice{
			{Content: "Two cities."},
			{ToolCalls: []llms.ToolCall{{ID: "t1", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Lima"}`}}}},
			{ToolCalls: []llms.ToolCall{{ID: "t2", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Quito"}`}}}},
		}},
		textResponse("done"),
	)
	a := mustAgent(t, model, node)
	actions, finish, err := a.Plan(context.Background(), nil, map[string]string{"input": "go"})
	if err != nil || finish != nil {
		t.Fatalf("Plan: %v, finish %v", err, finish)
	}
	if len(actions) != 2 || actions[0].ToolID != "t1" || actions[1].ToolID != "t2" {
		t.Fatalf("actions = %+v", actions)
	}
	if actions[0].Log != actions[1].Log || agentLogText(actions[0].Log) != "Two cities." {
		t.Errorf("actions of one message should share a log carrying its text: %q, %q", actions[0].Log, actions[1].Log)
	}
	if runs.Load() != 2 {
		t.Errorf("weather ran %d times, want 2", runs.Load())
	}
}

func TestAgentFinishesOnText(t *testing.T) {
	node := mustNode(t, nil)
	model := script(textResponse("Hello."))
	a := mustAgent(t, model, node, WithOutputKey("answer"), WithSystemMessage(""))
	out, err := chains.Call(context.Background(), agents.NewExecutor(a), map[string]any{"input": "hi"})
	if err != nil {
		t.Fatalf("executor: %v", err)
	}
	if out["answer"] != "Hello." {
		t.Errorf("out = %v", out)
	}
	received, _ := model.calls()
	if len(received[0]) != 1 || received[0][0].Role != llms.ChatMessageTypeHuman {
		t.Errorf("with no system message the model should get only the input: %+v", received[0])
	}
}

func TestAgentStopsOnConfiguredToolError(t *testing.T) {
	boom := errors.New("database down")
	failing := saidex.NewTool("lookup", "Look up.", func(ctx context.Context, a weatherArgs) (string, error) { return "", boom })
	node := mustNode(t, []tools.Tool{failing})
	model := script(callsResponse("", tc("a", "lookup", `{"city":"Paris"}`)))
	_, err := agents.NewExecutor(mustAgent(t, model, node)).Call(context.Background(), map[string]any{"input": "x"})
	var te *saidex.ToolError
	if !errors.As(err, &te) || !errors.Is(err, boom) {
		t.Fatalf("err = %v, want a *ToolError wrapping the tool's error", err)
	}
}

func TestAgentToolsRunThroughTheNodeOutsideAnExecutor(t *testing.T) {
	weather, runs := countingWeather()
	a := mustAgent(t, script(), mustNode(t, []tools.Tool{weather}))
	ts := a.GetTools()
	if len(ts) != 1 || ts[0].Name() != "get_weather" || ts[0].Description() != weather.Description() {
		t.Fatalf("GetTools = %+v", ts)
	}
	out, err := ts[0].Call(context.Background(), `{"city":"Rome"}`)
	if err != nil || !strings.Contains(out, "Rome: sunny") {
		t.Errorf("valid call: %q, %v", out, err)
	}
	out, err = ts[0].Call(context.Background(), `garbage`)
	if err != nil || !strings.HasPrefix(out, "Error:") {
		t.Errorf("broken call: %q, %v; want feedback and no error", out, err)
	}
	if runs.Load() != 1 {
		t.Errorf("weather ran %d times, want 1", runs.Load())
	}
}

func TestAgentConcurrentExecutors(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	model := &scriptModel{Model: saidextest.NewModel(func(_ context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		msgs := req.Messages
		last := msgs[len(msgs)-1]
		if last.Role == llms.ChatMessageTypeTool {
			return textResponse(toolResponses(msgs)[0].Content), nil
		}
		city := last.Parts[0].(llms.TextContent).Text
		return callsResponse("", tc("id-"+city, "get_weather", fmt.Sprintf(`{"city":%q}`, city)), tc("bad-"+city, "get_weather", "nope")), nil
	})}
	a := mustAgent(t, model, node)
	cities := []string{"Oslo", "Lima", "Kyiv", "Pune", "Baku", "Doha"}
	var wg sync.WaitGroup
	errs := make([]error, len(cities))
	outs := make([]any, len(cities))
	for i, c := range cities {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out, err := agents.NewExecutor(a).Call(context.Background(), map[string]any{"input": c})
			errs[i], outs[i] = err, out["output"]
		}()
	}
	wg.Wait()
	for i, c := range cities {
		if errs[i] != nil || !strings.HasPrefix(fmt.Sprint(outs[i]), c+": sunny") {
			t.Errorf("%s: output %v, err %v", c, outs[i], errs[i])
		}
	}
	if runs.Load() != int64(len(cities)) {
		t.Errorf("weather ran %d times, want %d", runs.Load(), len(cities))
	}
	if n := len(a.pending.m); n != 0 {
		t.Errorf("%d observations left pending", n)
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	node := mustNode(t, nil)
	m := script()
	tests := []struct {
		name string
		llm  llms.Model
		node *saidex.ToolNode
		opts []Option
	}{
		{"nil model", nil, node, nil},
		{"nil node", m, nil, nil},
		{"empty input key", m, node, []Option{WithInputKey("")}},
		{"empty output key", m, node, []Option{WithOutputKey("")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := New(tt.llm, tt.node, tt.opts...); !errors.Is(err, saidex.ErrInvalidConfig) {
				t.Errorf("err = %v, want ErrInvalidConfig", err)
			}
		})
	}
}

// The pending tool messages are first in first out per tool and input, and
// bounded: messages no executor asks for are evicted oldest first, and the
// bookkeeping of consumed messages does not grow either.
func TestPendingObservationsAreFIFOAndBounded(t *testing.T) {
	p := pendingObservations{m: map[pendingKey][]pendingObs{}}
	k := pendingKey{"T", "{}"}
	p.push(k, "first")
	p.push(k, "second")
	if got, _ := p.pop(k); got != "first" {
		t.Fatalf("pop = %q, want first", got)
	}
	if got, _ := p.pop(k); got != "second" {
		t.Fatalf("pop = %q, want second", got)
	}
	if _, ok := p.pop(k); ok {
		t.Fatal("pop of an empty queue succeeded")
	}

	// Leave maxPendingObservations+10 messages unconsumed: the 10 oldest go.
	for i := range maxPendingObservations + 10 {
		p.push(pendingKey{"T", strconv.Itoa(i % 3)}, strconv.Itoa(i))
	}
	if p.live != maxPendingObservations {
		t.Fatalf("%d messages held, want %d", p.live, maxPendingObservations)
	}
	if got, _ := p.pop(pendingKey{"T", "1"}); got != "10" { // 1, 4, 7 were evicted
		t.Errorf("oldest message left for input 1 = %q, want 10", got)
	}

	// Many Plans whose messages are all consumed: nothing accumulates.
	q := pendingObservations{m: map[pendingKey][]pendingObs{}}
	for i := range 10 * maxPendingObservations {
		k := pendingKey{"T", strconv.Itoa(i % 5)}
		q.push(k, "x")
		if _, ok := q.pop(k); !ok {
			t.Fatal("a pushed message was not found")
		}
	}
	if q.live != 0 || len(q.m) != 0 || len(q.order) > 2*maxPendingObservations {
		t.Errorf("after consuming everything: live %d, keys %d, order %d", q.live, len(q.m), len(q.order))
	}
}

// The executor runs against langchaingo's real clients and fake provider
// servers that reject a conversation breaking their tool-call rules.
func TestContractOpenAIExecutor(t *testing.T) {
	calls, wantRuns := fakeprovider.BrokenTurn()
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	srv, llm := fakeprovider.NewOpenAI(t, fakeprovider.OpenAIReply{Text: "Let me check.", Calls: calls}, fakeprovider.OpenAIReply{Text: "Paris is sunny."})
	out, err := agents.NewExecutor(mustAgent(t, llm, node)).Call(context.Background(), map[string]any{"input": "Weather in Paris?"})
	if err != nil {
		t.Fatalf("executor: %v (rejections: %v)", err, srv.Rejected())
	}
	if out["output"] != "Paris is sunny." || runs.Load() != wantRuns {
		t.Errorf("output %v, %d runs (want %d)", out["output"], runs.Load(), wantRuns)
	}
	// The unparseable call went back as "{}" and was answered.
	var sawBroken bool
	for _, m := range srv.Requests()[1] {
		for _, tc := range m.ToolCalls {
			if tc.ID == "call_broken" {
				sawBroken = string(tc.Function.Arguments) == `"{}"`
			}
		}
	}
	if !sawBroken {
		t.Error("the unparseable call was not sent back with {} arguments")
	}
}

func TestContractAnthropicExecutor(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	_, llm := fakeprovider.NewAnthropic(t,
		[]map[string]any{
			{"type": "text", "text": "Two cities."},
			{"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": map[string]any{"city": "Lima"}},
			{"type": "tool_use", "id": "toolu_2", "name": "get_weather", "input": map[string]any{"city": 5}},
		},
		[]map[string]any{{"type": "text", "text": "Lima is sunny."}},
	)
	a := mustAgent(t, llm, node, WithMessageTransform(saidex.SplitToolCalls))
	out, err := agents.NewExecutor(a).Call(context.Background(), map[string]any{"input": "Weather?"})
	if err != nil {
		t.Fatalf("executor: %v", err)
	}
	if out["output"] != "Lima is sunny." || runs.Load() != 1 {
		t.Errorf("output %v, %d runs", out["output"], runs.Load())
	}
}

func TestAgentRunsNoCallOfAResponseCutByTheOutputLimit(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather})
	cut := callsResponse("", tc("a", "get_weather", `{"city":"Paris"}`), tc("b", "get_weather", `{"city": "Ro`))
	cut.Choices[0].StopReason = "length"
	model := script(cut, textResponse("I could not finish."))
	exec := agents.NewExecutor(mustAgent(t, model, node), agents.WithReturnIntermediateSteps())

	out, err := exec.Call(context.Background(), map[string]any{"input": "Weather in Paris and Rome?"})
	if err != nil {
		t.Fatalf("executor: %v", err)
	}
	if runs.Load() != 0 {
		t.Errorf("weather ran %d times for a response cut by the output limit", runs.Load())
	}
	steps := out["intermediateSteps"].([]schema.AgentStep)
	if len(steps) != 2 {
		t.Fatalf("%d steps, want one per call", len(steps))
	}
	for _, s := range steps {
		if !strings.Contains(s.Observation, "cut off by the output-token limit") || strings.Contains(s.Observation, "missing") {
			t.Errorf("step %s observation %q", s.Action.ToolID, s.Observation)
		}
	}
}

func TestAgentRunsToolCallsWrittenAsText(t *testing.T) {
	weather, runs := countingWeather()
	node := mustNode(t, []tools.Tool{weather}, saidex.WithTextToolCalls(true))
	model := script(
		textResponse("<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\", \"days\": 2}}\n</tool_call>"),
		textResponse("Paris is sunny."),
	)
	exec := agents.NewExecutor(mustAgent(t, model, node), agents.WithReturnIntermediateSteps())
	out, err := exec.Call(context.Background(), map[string]any{"input": "Weather in Paris?"})
	if err != nil {
		t.Fatalf("executor: %v", err)
	}
	if out["output"] != "Paris is sunny." || runs.Load() != 1 {
		t.Errorf("output %v, runs %d; want the text call run, then the answer", out["output"], runs.Load())
	}
	steps := out["intermediateSteps"].([]schema.AgentStep)
	if len(steps) != 1 || steps[0].Action.Tool != "get_weather" || !strings.HasPrefix(steps[0].Action.ToolID, "call_") {
		t.Errorf("steps %+v", steps)
	}
}
