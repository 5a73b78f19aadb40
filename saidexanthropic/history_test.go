package saidexanthropic_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexanthropic"
	"github.com/saidex/saidex-go/saidexanthropic/anthropictest"
	"github.com/tmc/langchaingo/tools"
)

// The history given to Run is read: a call that repeats, unchanged, a call
// answered with feedback in an earlier turn is recognised, and with
// WithFeedbackLimit(1) the second turn of feedback in a row is the limit's
// final message.
func TestRunReadsTheHistory(t *testing.T) {
	ctx := context.Background()
	g, ran := newGuard(t, saidex.WithFeedbackLimit(1))
	bad := func(id string) anthropictest.Reply {
		return anthropictest.Reply{Content: []anthropictest.Block{
			anthropictest.Text("Checking."),
			anthropictest.ToolUse(id, "get_weather", `{"city":"Rome","days":30}`),
		}}
	}
	_, client := newServer(t, bad("toolu_1"), bad("toolu_2"), done)
	params := firstParams(g)
	var outcomes []saidex.Outcome
	var repeated []bool
	for range 3 {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			t.Fatal(err)
		}
		turn, err := g.Run(ctx, params.Messages, msg)
		if err != nil {
			t.Fatal(err)
		}
		params.Messages = append(params.Messages, turn.Messages()...)
		for _, c := range turn.Calls {
			outcomes = append(outcomes, c.Outcome)
			repeated = append(repeated, c.Repeated)
		}
	}
	if len(outcomes) != 2 || outcomes[0] != saidex.OutcomeFeedback || outcomes[1] != saidex.OutcomeFeedbackLimit || repeated[0] || !repeated[1] {
		t.Errorf("outcomes %v, repeated %v; want feedback then feedback_limit, the second repeated", outcomes, repeated)
	}
	if len(ran.all()) != 0 {
		t.Errorf("an invalid call ran: %v", ran.all())
	}
}

type loginArgs struct {
	User     string        `json:"user"`
	Password saidex.Secret `json:"password"`
}

// The assistant message sent back masks a secret argument; the tool
// receives it in clear.
func TestRunMasksSecretsInTheHistory(t *testing.T) {
	ctx := context.Background()
	var mu sync.Mutex
	var got string
	login := saidex.NewTool("login", "Log in.", func(_ context.Context, a loginArgs) (string, error) {
		mu.Lock()
		got = string(a.Password)
		mu.Unlock()
		return "logged in as " + a.User, nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{login})
	if err != nil {
		t.Fatal(err)
	}
	g, err := saidexanthropic.New(node)
	if err != nil {
		t.Fatal(err)
	}
	srv, client := newServer(t, anthropictest.Reply{Content: []anthropictest.Block{
		anthropictest.ToolUse("toolu_1", "login", `{"user":"ann","password":"hunter2"}`),
	}}, done)
	params := firstParams(g)
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := g.Run(ctx, params.Messages, msg)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, turn.Messages()...)
	if _, err := client.Messages.New(ctx, params); err != nil {
		t.Fatal(err)
	}
	checkNextRequest(t, srv, []wantCall{{"toolu_1", `{"password":"` + saidex.SecretMask + `","user":"ann"}`, false, "logged in as ann"}})
	if req, _ := srv.Last(); strings.Contains(string(req.Body), "hunter2") {
		t.Errorf("the next request carries the secret: %s", req.Body)
	}
	mu.Lock()
	defer mu.Unlock()
	if got != "hunter2" {
		t.Errorf("the tool received password %q", got)
	}
}

// Tools sends the node's schemas as the request's tool definitions.
func TestToolsOnTheWire(t *testing.T) {
	g, _ := newGuard(t)
	srv, client := newServer(t, done)
	if _, err := client.Messages.New(context.Background(), firstParams(g)); err != nil {
		t.Fatal(err)
	}
	req, _ := srv.Last()
	var body struct {
		Tools []struct {
			Name        string         `json:"name"`
			Description string         `json:"description"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if len(body.Tools) != 1 {
		t.Fatalf("tools %+v", body.Tools)
	}
	tool := body.Tools[0]
	schema, _ := json.Marshal(tool.InputSchema)
	for _, want := range []string{`"type":"object"`, `"additionalProperties":false`, `"required":["city"]`, `"maximum":14`} {
		if !strings.Contains(string(schema), want) {
			t.Errorf("input_schema %s lacks %s", schema, want)
		}
	}
	if tool.Name != "get_weather" || tool.Description != "Weather forecast for a city." {
		t.Errorf("tool %q %q", tool.Name, tool.Description)
	}
}

// One Guard serves concurrent conversations.
func TestRunConcurrent(t *testing.T) {
	ctx := context.Background()
	g, ran := newGuard(t, saidex.WithCoercion(saidex.CoercionLax))
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			srv := anthropictest.NewServer(brokenReply(), done)
			defer srv.Close()
			c := anthropicClient(srv.URL)
			params := firstParams(g)
			msg, err := c.Messages.New(ctx, params)
			if err != nil {
				t.Error(err)
				return
			}
			turn, err := g.Run(ctx, params.Messages, msg)
			if err != nil {
				t.Error(err)
				return
			}
			params.Messages = append(params.Messages, turn.Messages()...)
			if _, err := c.Messages.New(ctx, params); err != nil {
				t.Error(err)
				return
			}
			checkNextRequest(t, srv, brokenWant)
		})
	}
	wg.Wait()
	if n := len(ran.all()); n != 8 {
		t.Errorf("%d runs, want 8", n)
	}
}

// Check's Assistant masks the secret of a call that must not run: the
// caller sends it back as it is.
func TestCheckMasksTheSecretOfARefusedCall(t *testing.T) {
	ctx := context.Background()
	type strictLogin struct {
		User     string        `json:"user"`
		Password saidex.Secret `json:"password"`
		Days     int           `json:"days" jsonschema:"maximum=14"`
	}
	login := saidex.NewTool("login", "Log in.", func(context.Context, strictLogin) (string, error) { return "ok", nil })
	node, err := saidex.NewToolNode([]tools.Tool{login})
	if err != nil {
		t.Fatal(err)
	}
	g, err := saidexanthropic.New(node)
	if err != nil {
		t.Fatal(err)
	}
	_, client := newServer(t, anthropictest.Reply{Content: []anthropictest.Block{
		anthropictest.ToolUse("toolu_1", "login", `{"user":"ann","password":"sk-live-SUPERSECRET","days":30}`),
		anthropictest.ToolUse("toolu_2", "log_in", `{"user":"ann","password":"sk-live-SUPERSECRET"}`),
	}})
	params := firstParams(g)
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	checked, err := g.Check(ctx, params.Messages, msg)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range checked.Calls {
		if c.Ready() {
			t.Errorf("call %s is ready", c.ID)
		}
	}
	b, err := json.Marshal(checked.Assistant)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "SUPERSECRET") {
		t.Errorf("Check's Assistant carries the secret: %s", b)
	}
}

// A reply the model stopped with a refusal runs none of its calls.
func TestRefusalRunsNothing(t *testing.T) {
	ctx := context.Background()
	var runs int
	login := saidex.NewTool("login", "Log in.", func(context.Context, loginArgs) (string, error) { runs++; return "ok", nil })
	node, err := saidex.NewToolNode([]tools.Tool{login})
	if err != nil {
		t.Fatal(err)
	}
	g, err := saidexanthropic.New(node)
	if err != nil {
		t.Fatal(err)
	}
	_, client := newServer(t, anthropictest.Reply{StopReason: "refusal", Content: []anthropictest.Block{
		anthropictest.ToolUse("toolu_1", "login", `{"user":"ann","password":"pw-123456"}`),
	}})
	params := firstParams(g)
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.Run(ctx, params.Messages, msg); !errors.Is(err, saidexanthropic.ErrIncompleteReply) {
		t.Errorf("Run: %v, want ErrIncompleteReply", err)
	}
	if _, err := g.Check(ctx, params.Messages, msg); !errors.Is(err, saidexanthropic.ErrIncompleteReply) {
		t.Errorf("Check: %v, want ErrIncompleteReply", err)
	}
	if runs != 0 {
		t.Errorf("a refused reply ran %d calls", runs)
	}
	if !errors.Is(saidexanthropic.ErrIncompleteStream, saidexanthropic.ErrIncompleteReply) {
		t.Error("ErrIncompleteStream does not match ErrIncompleteReply")
	}
}
