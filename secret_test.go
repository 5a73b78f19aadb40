package saidex

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"

	"github.com/saidex/saidex-go/saidextest"
)

// The secret every input of TestSecretsNeverLeaveTheNode carries.
const leak = "hunter2"

type secretLogin struct {
	User     string `json:"user"`
	Password Secret `json:"password"`
	Note     string `json:"note,omitempty"`
	Days     int    `json:"days,omitempty" jsonschema:"minimum=1"`
}

// vaultSchema keeps secrets the two other ways: writeOnly, and
// format: password nested in an object.
const vaultSchema = `{"type": "object", "properties": {
	"n": {"type": "integer"},
	"token": {"type": "string", "writeOnly": true},
	"auth": {"type": "object", "properties": {"pin": {"type": "string", "format": "password"}}}},
	"required": ["n"]}`

// secretInputs are argument strings carrying the secret, parseable or not.
// restored marks those whose correction (the correction model keeps the
// masks) must reach the tool with the real value: the secret could be
// located and read.
var secretInputs = []struct {
	name, tool, raw string
	restored        bool
}{
	{"cut after the secret", "login", `{"user":"bob","password":"hunter2","note":"ab`, true},
	{"cut inside the secret", "login", `{"user":"bob","password":"hunter2`, false},
	{"two different objects", "login", `{"user":"bob","password":"hunter2"} {"user":"eve","password":"hunter2"}`, false}, // merged calls: never corrected (merged.go)
	{"prose around a cut object", "login", `My password is hunter2, so: {"user":"bob","password":"hunter2","note":"ab`, true},
	{"reasoning before a cut object", "login", `<think>use hunter2</think>{"user":"bob","password":"hunter2","note":"ab`, true},
	{"over WithMaxArgumentBytes", "login", `{"user":"bob","password":"hunter2","note":"` + strings.Repeat("x", 2000) + `"}`, false},
	{"valid", "login", `{"user":"bob","password":"hunter2"}`, false},
	{"repairable", "login", `{'user': 'bob', 'password': 'hunter2',}`, false},
	{"double encoded", "login", `"{\"user\":\"bob\",\"password\":\"hunter2\"}"`, false},
	{"breaks the schema", "login", `{"user":"bob","password":"hunter2","days":0}`, true},
	{"misses a required field", "login", `{"password":"hunter2"}`, false},
	{"inner quotes before the secret", "login", `{"user":"bob","note":"say "hi" now","password":"hunter2"}`, false},
	{"an apostrophe in single quotes", "login", `{'user': 'bob', 'note': 'it's', 'password': 'hunter2'`, false},
	{"typographic quotes", "login", `{"user":"bob","password":“hunter2”,"note":"ab`, false},
	{"a comment", "login", `{"user":"bob", /* hunter2 */ "password":"hunter2"`, false},
	{"an unquoted secret", "login", `{"user":"bob","password":hunter2}`, false},
	{"a repeated key", "login", `{"user":"bob","password":"hunter2","password":"hunter2"`, false},
	{"a misnamed secret key", "login", `{"user":"bob","passwd":"hunter2"}`, true},
	{"a misnamed secret key, cut", "login", `{"user":"bob","pwd":"hunter2","note":"ab`, true},
	{"bare text", "login", `hunter2`, false},
	{"key=value text", "login", `user=bob password=hunter2`, false},
	{"writeOnly and format password, invalid", "vault", `{"n":"x","token":"hunter2","auth":{"pin":"hunter2"}}`, true},
	{"writeOnly and format password, cut", "vault", `{"n":1,"token":"hunter2","auth":{"pin":"hunter2"`, false},
	{"cut inside a string after the secrets", "vault", `{"token":"hunter2","auth":{"pin":"hunter2"},"n":"1`, true},
	{"writeOnly and format password, valid", "vault", `{"n":1,"token":"hunter2","auth":{"pin":"hunter2"}}`, false},
}

// texts collects every text the node produced, by where it came from.
type texts struct {
	mu  sync.Mutex
	all []string
}

func (x *texts) add(from string, v ...any) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range v {
		x.all = append(x.all, from+": "+fmt.Sprintf("%+v", e))
		if err, ok := e.(error); ok && err != nil {
			x.all = append(x.all, from+": "+err.Error())
		}
	}
}

// chainTexts records the correction's callbacks.
type chainTexts struct {
	callbacks.SimpleHandler
	x *texts
}

func (h chainTexts) HandleChainStart(_ context.Context, in map[string]any) {
	h.x.add("callback start", in)
}
func (h chainTexts) HandleChainEnd(_ context.Context, out map[string]any) {
	h.x.add("callback end", out)
}
func (h chainTexts) HandleChainError(_ context.Context, err error) { h.x.add("callback error", err) }

// TestSecretsNeverLeaveTheNode runs every input through every path that
// quotes or reports arguments — feedback for unparseable arguments and
// for arguments over WithMaxArgumentBytes, field feedback, correction
// prompts (the call's arguments and the earlier calls of the context, in
// both correction modes) and their callbacks, the raise policy's error,
// WrapModel's reports, CallReports (of a dropped call and of a call
// answered before the run too), events and log lines — and asserts the
// secret appears in none of them. When the correction model keeps the
// masks, the tool still receives the real value, and never the mask.
func TestSecretsNeverLeaveTheNode(t *testing.T) {
	// The reply of a correction model that keeps every mask it was shown.
	answers := map[string]string{
		"login": `{"user":"bob","password":"` + SecretMask + `"}`,
		"vault": `{"n":1,"token":"` + SecretMask + `","auth":{"pin":"` + SecretMask + `"}}`,
	}
	corrector := func(x *texts) *saidextest.Model {
		return saidextest.NewModel(func(_ context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
			x.add("correction prompt", req.Text())
			tool := "login"
			if strings.Contains(req.Text(), `tool "vault"`) {
				tool = "vault"
			}
			if name := req.ToolChoiceName(); name != "" {
				return saidextest.ToolCallResponse(saidextest.Call("fix", name, answers[tool])), nil
			}
			return saidextest.TextResponse(answers[tool]), nil
		})
	}
	modes := []struct {
		name     string
		opts     func(x *texts) []Option
		wrap     bool // through WrapModel instead of Run
		corrects bool
	}{
		{name: "feedback", opts: func(*texts) []Option { return nil }},
		{name: "correction", corrects: true, opts: func(x *texts) []Option {
			return []Option{WithCorrectionModel(corrector(x)), WithCallbacks(chainTexts{x: x})}
		}},
		{name: "correction in JSON mode", corrects: true, opts: func(x *texts) []Option {
			return []Option{WithCorrectionModel(corrector(x)), WithCorrectionMode(CorrectionJSON)}
		}},
		{name: "raise", opts: func(*texts) []Option { return []Option{WithOnUnresolved(UnresolvedRaise)} }},
		{name: "WrapModel", wrap: true, opts: func(x *texts) []Option { return []Option{WithCorrectionModel(corrector(x))} }},
	}
	// An earlier turn whose calls carry the secret, unsanitized: the
	// correction prompt quotes it as context.
	history := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Log me in."),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			tc("old_1", "login", `{"user":"bob","password":"hunter2"}`),
			tc("old_2", "vault", `{'n': 1, 'token': 'hunter2'`),
		}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "old_1", Name: "login", Content: "wrong user"}}},
		{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "old_2", Name: "vault", Content: "error"}}},
	}
	for _, mode := range modes {
		for _, in := range secretInputs {
			t.Run(mode.name+"/"+in.name, func(t *testing.T) {
				x := &texts{}
				var got sync.Map // the secrets the tools received
				login := NewTool("login", "Log in.", func(_ context.Context, a secretLogin) (string, error) {
					got.Store(string(a.Password), true)
					return "logged in", nil
				})
				vault := ToolWithSchema(plainTool{name: "vault", fn: func(_ context.Context, in string) (string, error) {
					got.Store(in, true)
					return "opened", nil
				}}, vaultSchema)
				var logs bytes.Buffer
				opts := append(mode.opts(x),
					WithMaxArgumentBytes(1024),
					WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
					WithObserver(func(ev ToolNodeEvent) { x.add("event", ev) }))
				node := mustNode(t, []tools.Tool{login, vault}, opts...)
				ctx := context.Background()
				// Beside the call: one answered before this run, whose
				// arguments do not parse (sanitized all the same), and one
				// repeating its id (dropped, but reported).
				ai := llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
					tc("c0", "login", `{"user":"bob","password":"hunter2"`),
					tc("c1", in.tool, in.raw),
					tc("c1", in.tool, in.raw),
				}}
				conv := append(append([]llms.MessageContent(nil), history...), llms.TextParts(llms.ChatMessageTypeHuman, "Again."), ai,
					llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: "c0", Name: "login", Content: "done"}}})

				if mode.wrap {
					agent := saidextest.NewModel(saidextest.ToolCalls(saidextest.Call("c1", in.tool, in.raw), saidextest.Call("c1", in.tool, in.raw)))
					resp, err := WrapModel(agent, node).GenerateContent(ctx, conv[:len(history)+1])
					x.add("WrapModel error", err)
					if resp != nil {
						for _, ch := range resp.Choices {
							reps, _ := CheckedCalls(ch)
							x.add("CheckedCalls", reps)
						}
					}
					// Check's reports hold the arguments to run in clear
					// (the caller runs them); everything else is masked.
					reps, err := node.Check(ctx, append(conv[:len(history)+1:len(history)+1], ai))
					x.add("Check error", err)
					for _, r := range reps {
						x.add("Check report", r.RawArguments, r.Output, r.Issues, r.Err, r.CorrectionErr)
					}
				} else {
					res, err := node.Run(ctx, conv)
					x.add("Run error", err)
					if ve, ok := errors.AsType[*ToolCallValidationError](err); ok {
						for _, c := range ve.Calls { // Messages is the caller's own conversation
							x.add("raised call", c.ToolName, c.CallID, c.RawArguments, c.Args, c.Issues, c.Error)
						}
					}
					if res != nil {
						x.add("tool messages", res.ToolMessages)
						x.add("sanitized AI message", res.AIMessage)
						x.add("reports", res.Calls)
						for _, r := range res.Calls {
							x.add("report error", r.Err, r.CorrectionErr)
						}
					}
					out, err := node.Invoke(ctx, conv)
					x.add("Invoke error", err)
					if len(out) > len(history)+1 {
						x.add("Invoke conversation", out[len(history)+1:]) // what the node wrote, not the input history
					}
				}
				x.add("logs", logs.String())
				for _, s := range x.all {
					if strings.Contains(s, leak) {
						t.Errorf("the secret leaks through %.2000s", s)
					}
				}
				if _, ok := got.Load(SecretMask); ok {
					t.Errorf("a tool received the mask instead of the secret")
				}
				got.Range(func(k, _ any) bool {
					if strings.Contains(k.(string), SecretMask) {
						t.Errorf("a tool received the mask: %s", k)
					}
					return true
				})
				if mode.corrects && in.restored {
					received := false
					got.Range(func(k, _ any) bool {
						received = received || strings.Contains(k.(string), leak)
						return true
					})
					if !received {
						t.Errorf("the corrected call did not reach the tool with the real secret")
					}
				}
				if mode.corrects && !strings.Contains(strings.Join(x.all, "\n"), "correction prompt") && in.restored {
					t.Errorf("the correction model was not asked")
				}
			})
		}
	}
}

// The correction model sees the mask in place of each secret value and
// must keep it: the real value is put back before validation, so the tool
// receives it. A mask standing where the assistant sent no value (or sent
// two different ones) is an issue of that answer, which is retried; a
// call whose masks cannot all be restored never reaches the tool with one.
func TestCorrectionRestoresMaskedSecrets(t *testing.T) {
	mask := `"` + SecretMask + `"`
	tests := []struct {
		name    string
		raw     string
		answers []string
		want    string // the password the tool receives; "" when it must not run
		retried string // a text the retry prompt must hold
	}{
		{name: "the answer keeps the mask", raw: `{"user":"bob","password":"hunter2","days":0}`,
			answers: []string{`{"user":"bob","password":` + mask + `,"days":1}`}, want: leak},
		{name: "unparseable arguments", raw: `{"user": 'bob', "password": 'hunter2', "note": "cut`,
			answers: []string{`{"user":"bob","password":` + mask + `}`}, want: leak},
		{name: "a mask where no value was sent is retried", raw: `{"user":"bob","days":0}`,
			answers: []string{`{"user":"bob","password":` + mask + `}`, `{"user":"bob","password":"typed"}`}, want: "typed",
			retried: "holds the placeholder"},
		{name: "a misnamed secret is masked and follows the rename", raw: `{"user":"bob","passwd":"hunter2"}`,
			answers: []string{`{"user":"bob","password":` + mask + `}`}, want: leak},
		{name: "two different values cannot be restored", raw: `{"user":"bob","password":"hunter2"} {"user":"bob","password":"hunter3"}`,
			answers: []string{`{"user":"bob","password":` + mask + `}`, `{"user":"bob","password":` + mask + `}`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var replies []saidextest.Reply
			for _, a := range tt.answers {
				replies = append(replies, saidextest.ForcedToolCall(a))
			}
			model := saidextest.NewModel(saidextest.Sequence(replies...))
			var got []string
			var mu sync.Mutex
			login := NewTool("login", "Log in.", func(_ context.Context, a secretLogin) (string, error) {
				mu.Lock()
				defer mu.Unlock()
				got = append(got, string(a.Password))
				return "ok", nil
			})
			node := mustNode(t, []tools.Tool{login}, WithCorrectionModel(model), WithCorrectMissingFields(true), WithLogger(sanDiscard))
			res, err := node.Run(context.Background(), conversation(tc("c1", "login", tt.raw)))
			if err != nil {
				t.Fatal(err)
			}
			for _, req := range model.Requests() {
				if strings.Contains(req.Text(), "hunter") {
					t.Errorf("the correction model saw the secret:\n%s", req.Text())
				}
				if strings.Contains(tt.raw, "hunter") && !strings.Contains(req.Text(), mask) {
					t.Errorf("the prompt shows no mask:\n%s", req.Text())
				}
			}
			if tt.retried != "" {
				reqs := model.Requests()
				if len(reqs) < 2 || !strings.Contains(reqs[1].Text(), tt.retried) {
					t.Errorf("the retry prompt does not say %q", tt.retried)
				}
			}
			switch {
			case tt.want != "":
				if len(got) != 1 || got[0] != tt.want {
					t.Fatalf("the tool received %q, want [%q] (outcome %s)", got, tt.want, res.Calls[0].Outcome)
				}
				if res.Calls[0].Outcome != OutcomeCorrected {
					t.Errorf("outcome %s, want corrected", res.Calls[0].Outcome)
				}
				if strings.Contains(string(res.Calls[0].Arguments), "hunter") {
					t.Errorf("the report's Arguments hold the secret: %s", res.Calls[0].Arguments)
				}
			default:
				if len(got) != 0 || res.Calls[0].Outcome != OutcomeFeedback {
					t.Errorf("the tool ran with %q (outcome %s); want feedback", got, res.Calls[0].Outcome)
				}
			}
		})
	}
}

// TestScrubLeavesKeysAlone checks that the names of a secret object's
// members, and of a root writeOnly schema's members, are not scrubbed from
// other texts: they are the schema's vocabulary, not secret values.
func TestScrubLeavesKeysAlone(t *testing.T) {
	connect := ToolWithSchema(plainTool{name: "connect", fn: func(context.Context, string) (string, error) { return "connected", nil }},
		map[string]any{"type": "object", "properties": map[string]any{
			"credentials": map[string]any{"type": "object", "writeOnly": true}}})
	vault := ToolWithSchema(plainTool{name: "vault", fn: func(context.Context, string) (string, error) { return "stored", nil }},
		map[string]any{"type": "object", "writeOnly": true})
	search := plainTool{name: "search", fn: func(context.Context, string) (string, error) {
		return "results for the username and passphrase fields: 3 matches", nil
	}}
	node := mustNode(t, []tools.Tool{connect, vault, search})
	res, err := node.Run(context.Background(), []llms.MessageContent{saidextest.AIMessage(
		saidextest.Call("a", "connect", `{"credentials":{"username":"svc-account","passphrase":"hunter2-long"}}`),
		saidextest.Call("b", "vault", `{"username":"other-account","passphrase":"s3cr3t-value"}`),
		saidextest.Call("c", "search", `fields`))})
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Calls[2].Output; got != "results for the username and passphrase fields: 3 matches" {
		t.Errorf("another tool's output was scrubbed: %q", got)
	}
	for _, rep := range res.Calls[:2] {
		for _, leak := range []string{"hunter2-long", "svc-account", "other-account", "s3cr3t-value"} {
			if strings.Contains(rep.RawArguments, leak) || strings.Contains(string(rep.Arguments), leak) {
				t.Errorf("%s: %q shows in %s / %s", rep.Name, leak, rep.RawArguments, rep.Arguments)
			}
		}
	}
}
