package saidex

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
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

// maskRun runs one invalid call of login (nestedAuthSchema) carrying
// shapeSecret, corrected by a model that answers answer every time, and
// returns what the tool received and the call's report.
func maskRun(t *testing.T, answer string) ([]string, CallReport, []saidextest.Request) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	login := ToolWithSchema(plainTool{name: "login", fn: func(_ context.Context, in string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, in)
		return "done", nil
	}}, nestedAuthSchema)
	model := saidextest.NewModel(saidextest.ForcedToolCall(answer))
	node := mustNode(t, []tools.Tool{login}, WithCorrectionModel(model), WithLogger(sanDiscard))
	raw := `{"user":5,"auth":{"password":"` + shapeSecret + `"}}`
	res, err := node.Run(context.Background(), conversation(tc("c1", "login", raw)))
	if err != nil {
		t.Fatal(err)
	}
	return got, res.Calls[0], model.Requests()
}

// TestMaskIsNeverExecuted: a corrected call runs only where the mask is
// the whole value of a secret field, with the real value put back; the
// mask anywhere else (another field, padded, glued, inside a longer
// string, in a key, inside a secret object) refuses the correction, and
// the call is answered with feedback naming no secret.
func TestMaskIsNeverExecuted(t *testing.T) {
	m := SecretMask
	tests := []struct {
		name, answer string
		runs         bool
	}{
		{"whole secret value", `{"user":"bob","auth":{"password":"` + m + `"}}`, true},
		{"parent renamed back", `{"user":"bob","Auth":{"password":"` + m + `"}}`, true},
		{"moved to another field", `{"user":"` + m + `","auth":{"password":"` + m + `"}}`, false},
		{"moved to another field only", `{"user":"` + m + `"}`, false},
		{"padded", `{"user":"bob","auth":{"password":" ` + m + ` "}}`, false},
		{"glued", `{"user":"bob","auth":{"password":"x` + m + `"}}`, false},
		{"inside a longer string", `{"user":"bob and ` + m + `","auth":{"password":"` + m + `"}}`, false},
		{"in a key", `{"user":"bob","auth":{"password":"` + m + `"},"` + m + `":1}`, false},
		{"inside a secret object", `{"user":"bob","auth":{"password":{"v":"` + m + `"}}}`, false},
		{"in an array", `{"user":"bob","auth":{"password":"` + m + `"},"tags":["` + m + `"]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rep, reqs := maskRun(t, tt.answer)
			for _, in := range got {
				if strings.Contains(in, m) {
					t.Errorf("the tool received the mask: %s", in)
				}
			}
			if tt.runs {
				if len(got) != 1 || !strings.Contains(got[0], shapeSecret) || rep.Outcome != OutcomeCorrected {
					t.Errorf("the tool received %q (outcome %s), want the real secret, corrected", got, rep.Outcome)
				}
				return
			}
			if len(got) != 0 || rep.Outcome != OutcomeFeedback {
				t.Errorf("the tool received %q (outcome %s), want no run and feedback", got, rep.Outcome)
			}
			for _, s := range []string{rep.Output, rep.RawArguments, rep.CorrectionErr.Error()} {
				if strings.Contains(s, shapeSecret) {
					t.Errorf("a text names the secret: %s", s)
				}
			}
			if len(reqs) < 2 || !strings.Contains(reqs[1].Text(), "placeholder") {
				t.Errorf("the retry does not say the placeholder was misplaced")
			}
		})
	}
}

// TestMaskPlacementProperty generates corrected answers that hold the mask
// at random places and in random forms; every answer holding it other
// than as the whole value of the secret field is refused, and every other
// answer runs with the real secret.
func TestMaskPlacementProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 1))
	forms := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return " " + s },
		func(s string) string { return s + " " },
		func(s string) string { return "x" + s },
		func(s string) string { return s + "x" },
		func(s string) string { return "a " + s + " b" },
		func(s string) string { return s + s },
		func(s string) string { return strings.ToUpper(s) }, // still the mask: '*' has no case
	}
	for i := range 60 {
		// Each slot holds plain text, or the mask in one form.
		slot := func() (string, bool) {
			if rng.IntN(3) > 0 {
				return "v" + strconv.Itoa(rng.IntN(100)), false
			}
			return forms[rng.IntN(len(forms))](SecretMask), true
		}
		user, userMask := slot()
		pw, pwMask := slot()
		note, noteMask := slot()
		key, keyMask := slot()
		if rng.IntN(2) == 0 {
			key, keyMask = "k", false
		}
		answer := `{"user":` + strconv.Quote(user) + `,"auth":{"password":` + strconv.Quote(pw) + `},"note":` + strconv.Quote(note) + `,` + strconv.Quote(key) + `:1}`
		misplaced := userMask || noteMask || keyMask || (pwMask && pw != SecretMask)
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			got, rep, _ := maskRun(t, answer)
			for _, in := range got {
				if strings.Contains(in, SecretMask) {
					t.Fatalf("answer %s: the tool received the mask: %s", answer, in)
				}
			}
			if misplaced && len(got) != 0 {
				t.Fatalf("answer %s: ran with %q", answer, got)
			}
			if !misplaced && (len(got) != 1 || rep.Outcome != OutcomeCorrected) {
				t.Fatalf("answer %s: outcome %s, tool got %q; want it corrected", answer, rep.Outcome, got)
			}
			if !misplaced && pw == SecretMask && !strings.Contains(got[0], shapeSecret) {
				t.Fatalf("answer %s: the secret was not put back: %s", answer, got[0])
			}
			if strings.Contains(rep.Output, shapeSecret) {
				t.Fatalf("the feedback names the secret: %s", rep.Output)
			}
		})
	}
}

// shapeGen generates the argument text of a call carrying a secret, in the
// shapes a hostile model or a careless server sends: the secret's key and
// its parent renamed (case, '_', '-'), the parent wrapped in an array,
// encoded as a JSON string (once or twice), moved deeper or to the root.
type shapeGen struct{ rng *rand.Rand }

// secret returns a secret of at least MinScrubbedSecretLen bytes, with
// characters JSON and HTML escaping change.
func (g shapeGen) secret() string {
	const alphabet = `abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"\<>&/é!`
	runes := []rune(alphabet)
	var b strings.Builder
	b.WriteString("S3") // never a substring of the texts the node writes on its own
	for range MinScrubbedSecretLen + g.rng.IntN(12) {
		b.WriteRune(runes[g.rng.IntN(len(runes))])
	}
	return b.String()
}

// rename returns name with its case changed and '_' or '-' inserted.
func (g shapeGen) rename(name string) string {
	var b strings.Builder
	for i, r := range name {
		if g.rng.IntN(3) == 0 {
			r = []rune(strings.ToUpper(string(r)))[0]
		}
		if i > 0 && g.rng.IntN(6) == 0 {
			b.WriteByte("_-"[g.rng.IntN(2)])
		}
		b.WriteRune(r)
	}
	return b.String()
}

// args returns the arguments and a description of their shape.
func (g shapeGen) args(secret string) (string, string) {
	var shape []string
	key := "password"
	if g.rng.IntN(2) == 0 {
		key = g.rename(key)
		shape = append(shape, "key "+key)
	}
	var parent any = map[string]any{key: secret}
	parentKey := "auth"
	if g.rng.IntN(2) == 0 {
		parentKey = g.rename(parentKey)
		shape = append(shape, "parent "+parentKey)
	}
	if g.rng.IntN(3) == 0 {
		parent = []any{parent}
		shape = append(shape, "wrapped")
	}
	for range g.rng.IntN(3) {
		b, _ := json.Marshal(parent)
		parent = string(b)
		shape = append(shape, "encoded")
	}
	for range g.rng.IntN(3) {
		parent = map[string]any{"x" + strconv.Itoa(g.rng.IntN(9)): parent}
		shape = append(shape, "deeper")
	}
	root := map[string]any{"user": "bob", parentKey: parent}
	if g.rng.IntN(5) == 0 {
		root = map[string]any{"user": "bob", key: secret}
		shape = append(shape, "at the root")
	}
	if g.rng.IntN(4) == 0 {
		root["user"] = 5 // invalid: feedback, correction, raise
		shape = append(shape, "invalid")
	}
	b, _ := json.Marshal(root)
	text := string(b)
	if g.rng.IntN(4) == 0 { // the secret written with a \u escape, at whatever depth it sits
		text = strings.ReplaceAll(text, "S3", `\u00533`)
		shape = append(shape, "escaped")
	}
	if g.rng.IntN(6) == 0 {
		text = text[:len(text)-1-g.rng.IntN(3)] // cut off: repair or feedback
		shape = append(shape, "cut")
	}
	return text, strings.Join(shape, ", ")
}

// tool returns the tool a call names: the right one, a near miss, an
// MCP-style name, an unknown one, or the root writeOnly tool.
func (g shapeGen) tool() string {
	return []string{"login", "login", "auth.login", "Login", "lgin", "nope", "vaultkey"}[g.rng.IntN(7)]
}

// TestSecretShapesProperty generates calls carrying a secret in random
// shapes, to known, misnamed and unknown tools, and checks every text the
// node writes, by every entry point and under each unresolved policy: the
// secret's bytes appear in none of them.
func TestSecretShapesProperty(t *testing.T) {
	g := shapeGen{rng: rand.New(rand.NewPCG(40, 40))}
	cases := 150
	if testing.Short() {
		cases = 30
	}
	for i := range cases {
		secret := g.secret()
		raw, shape := g.args(secret)
		tool := g.tool()
		opt := shapeOptions[i%len(shapeOptions)]
		t.Run(strconv.Itoa(i)+"/"+opt.name, func(t *testing.T) {
			var got sync.Map
			mk := func(x *texts, logs *bytes.Buffer) *ToolNode {
				login := ToolWithSchema(plainTool{name: "login", fn: func(_ context.Context, in string) (string, error) {
					got.Store(in, true)
					return "logged in as " + in, nil // a tool that echoes its input
				}}, nestedAuthSchema)
				opts := append(opt.opts(x, raw),
					WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
					WithObserver(func(ev ToolNodeEvent) { x.add("event", ev) }))
				return mustNode(t, []tools.Tool{login, storingTool("vaultkey", rootSecretSchema, &got)}, opts...)
			}
			x := nodeTexts(t, mk, conversation(tc("c1", tool, raw)))
			for _, s := range x.all {
				if strings.Contains(s, secret) || strings.Contains(s, secret[2:]) { // [2:]: also as written with an escape
					t.Fatalf("tool %s, shape [%s], arguments %s: the secret %q leaks through %.1500s", tool, shape, raw, secret, s)
				}
			}
		})
	}
}

// FuzzSecretShapes is TestSecretShapesProperty driven by the fuzzer's
// seeds: each seed generates a secret, a shape of arguments and a tool,
// run under the feedback policy; the secret must appear in no text the
// node writes.
func FuzzSecretShapes(f *testing.F) {
	for _, seed := range []uint64{1, 2, 40, 1 << 40} {
		f.Add(seed, seed>>3)
	}
	f.Fuzz(func(t *testing.T, s1, s2 uint64) {
		g := shapeGen{rng: rand.New(rand.NewPCG(s1, s2))}
		secret := g.secret()
		raw, shape := g.args(secret)
		tool := g.tool()
		mk := func(x *texts, logs *bytes.Buffer) *ToolNode {
			var got sync.Map
			login := ToolWithSchema(plainTool{name: "login", fn: func(_ context.Context, in string) (string, error) {
				return "logged in as " + in, nil
			}}, nestedAuthSchema)
			return mustNode(t, []tools.Tool{login, storingTool("vaultkey", rootSecretSchema, &got)},
				WithLogger(slog.New(slog.NewTextHandler(logs, nil))), WithObserver(func(ev ToolNodeEvent) { x.add("event", ev) }))
		}
		x := nodeTexts(t, mk, conversation(tc("c1", tool, raw)))
		for _, s := range x.all {
			if strings.Contains(s, secret) {
				t.Fatalf("tool %s, shape [%s], arguments %s: the secret %q leaks through %.1500s", tool, shape, raw, secret, s)
			}
		}
	})
}

// The secret of the shape tests: long enough to be scrubbed as text.
const shapeSecret = "Xq7-secret-Zp9"

// nestedAuthSchema keeps its secret one level down: auth.password.
const nestedAuthSchema = `{"type":"object","properties":{
	"user":{"type":"string"},
	"auth":{"type":"object","properties":{"password":{"type":"string","writeOnly":true}}}},
	"required":["user"]}`

// rootSecretSchema marks the whole arguments write-only.
const rootSecretSchema = `{"type":"object","writeOnly":true,"properties":{
	"key":{"type":"string"},"n":{"type":"integer"}},"required":["key","n"]}`

// storingTool is a tool with a schema that records every input it gets
// and answers with a fixed text.
func storingTool(name, schema string, got *sync.Map) Tool {
	return ToolWithSchema(plainTool{name: name, fn: func(_ context.Context, in string) (string, error) {
		got.Store(in, true)
		return "done", nil
	}}, schema)
}

// nodeTexts runs node on conv by every entry point (Run, Invoke, Check,
// WrapModel) and returns every text the node wrote: tool messages,
// reports, the sanitized history, errors and their calls, events, logs,
// correction prompts and callbacks (recorded by x, which the node's
// options feed), and CheckedCalls.
func nodeTexts(t *testing.T, mk func(x *texts, logs *bytes.Buffer) *ToolNode, conv []llms.MessageContent) *texts {
	t.Helper()
	x := &texts{}
	var logs bytes.Buffer
	node := mk(x, &logs)
	ctx := context.Background()
	res, err := node.Run(ctx, conv)
	x.add("Run error", err)
	if ve, ok := errors.AsType[*ToolCallValidationError](err); ok {
		for _, c := range ve.Calls {
			x.add("raised call", c.ToolName, c.CallID, c.RawArguments, c.Args, c.Issues, c.Error)
		}
	}
	if te, ok := errors.AsType[*ToolError](err); ok && te.Partial != nil {
		x.add("partial", te.Partial.ToolMessages, te.Partial.Calls, te.Partial.AIMessage)
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
	if len(out) > len(conv)-1 {
		x.add("Invoke conversation", out[len(conv)-1:])
	}
	reps, err := node.Check(ctx, conv)
	x.add("Check error", err)
	for _, r := range reps {
		x.add("Check report", r.RawArguments, r.Output, r.Issues, r.Flagged, r.Err, r.CorrectionErr)
	}
	ai := conv[len(conv)-1]
	agent := saidextest.NewModel(saidextest.ToolCalls(toolCallsOf(ai)...))
	resp, err := WrapModel(agent, node).GenerateContent(ctx, conv[:len(conv)-1])
	x.add("WrapModel error", err)
	if resp != nil {
		for _, ch := range resp.Choices {
			reps, _ := CheckedCalls(ch)
			x.add("CheckedCalls", reps)
		}
	}
	for _, c := range toolCallsOf(ai) {
		cc, err := node.CheckCall(ctx, c.ID, c.FunctionCall.Name, c.FunctionCall.Arguments)
		x.add("CheckCall", cc.Output, err)
	}
	x.add("logs", logs.String())
	return x
}

// assertNoSecret fails for every text of x holding secret.
func assertNoSecret(t *testing.T, x *texts, secret string) {
	t.Helper()
	for _, s := range x.all {
		if strings.Contains(s, secret) {
			t.Errorf("the secret leaks through %.1500s", s)
		}
	}
}

// shapeOptions are the node configurations every shape runs under.
var shapeOptions = []struct {
	name string
	opts func(x *texts, answer string) []Option
}{
	{"feedback", func(*texts, string) []Option { return nil }},
	{"raise", func(*texts, string) []Option { return []Option{WithOnUnresolved(UnresolvedRaise)} }},
	{"correction", func(x *texts, answer string) []Option {
		m := saidextest.NewModel(func(_ context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
			x.add("correction prompt", req.Text())
			if name := req.ToolChoiceName(); name != "" {
				return saidextest.ToolCallResponse(saidextest.Call("fix", name, answer)), nil
			}
			return saidextest.TextResponse(answer), nil
		})
		return []Option{WithCorrectionModel(m), WithCorrectMissingFields(true), WithCallbacks(chainTexts{x: x})}
	}},
}

// TestSecretShapesFailClosed reproduces each shape of issue 40: a secret
// sent under a parent that does not match the schema (renamed, wrapped
// in an array, double-encoded), a root writeOnly schema, a call of an
// unknown or misnamed tool, and a tool or validator that quotes the
// arguments. The secret must appear in no text the node writes, by any
// entry point and under any unresolved policy.
func TestSecretShapesFailClosed(t *testing.T) {
	s := shapeSecret
	tests := []struct {
		name, tool, raw string
		answer          string // the correction model's answer
		panics          bool   // the tool panics quoting its input
		validator       bool   // a validator rejects quoting the value
	}{
		{name: "parent renamed", tool: "login", raw: `{"user":"bob","Auth":{"password":"` + s + `"}}`},
		{name: "parent renamed, invalid", tool: "login", raw: `{"user":5,"Auth":{"password":"` + s + `"}}`},
		{name: "parent as an array", tool: "login", raw: `{"user":"bob","auth":[{"password":"` + s + `"}]}`},
		{name: "parent double-encoded", tool: "login", raw: `{"user":"bob","auth":"{\"password\":\"` + s + `\"}"}`},
		{name: "secret key renamed deeper", tool: "login", raw: `{"user":"bob","x":{"y":{"PASS_WORD":"` + s + `"}}}`},
		{name: "root writeOnly, invalid", tool: "vaultkey", raw: `{"key":"` + s + `","n":"x"}`},
		{name: "root writeOnly, valid", tool: "vaultkey", raw: `{"key":"` + s + `","n":1}`},
		{name: "unknown tool, near miss", tool: "auth.login", raw: `{"user":"bob","auth":{"password":"` + s + `"}}`},
		{name: "unknown tool, far", tool: "zzz", raw: `{"user":"bob","pass":{"password":"` + s + `"}}`},
		{name: "unknown tool, unparseable", tool: "logn", raw: `{"user":"bob","password":"` + s + ``},
		{name: "MCP server's name, misnamed secret key", tool: "auth.login", raw: `{"user":"bob","passwd":"` + s + `"}`},
		{name: "MCP server's name, short secret", tool: "auth.login", raw: `{"user":"bob","passwd":"ab1"}`},
		{name: "tool panics with its input", tool: "login", raw: `{"user":"bob","auth":{"password":"` + s + `"}}`, panics: true},
		{name: "validator quotes the value", tool: "login", raw: `{"user":"bob","auth":{"password":"` + s + `"}}`, validator: true},
	}
	for _, opt := range shapeOptions {
		for _, tt := range tests {
			t.Run(opt.name+"/"+tt.name, func(t *testing.T) {
				answer := tt.raw
				if tt.answer != "" {
					answer = tt.answer
				}
				var got sync.Map
				mk := func(x *texts, logs *bytes.Buffer) *ToolNode {
					login := storingTool("login", nestedAuthSchema, &got)
					if tt.panics {
						login = ToolWithSchema(plainTool{name: "login", fn: func(_ context.Context, in string) (string, error) {
							panic("cannot log in with " + in)
						}}, nestedAuthSchema)
					}
					opts := append(opt.opts(x, answer),
						WithLogger(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))),
						WithObserver(func(ev ToolNodeEvent) { x.add("event", ev) }),
						WithHandleToolErrors(true))
					if tt.validator {
						opts = append(opts, WithValidator("login", func(_ context.Context, args map[string]any, _ ValidatorContext) error {
							return &ValidationIssue{Path: "/auth", Message: fmt.Sprintf("%v is not accepted", args["auth"])}
						}))
					}
					authLogin := storingTool("auth_login", `{"type":"object","properties":{"user":{"type":"string"},"password":{"type":"string","writeOnly":true}}}`, &got)
					return mustNode(t, []tools.Tool{login, storingTool("vaultkey", rootSecretSchema, &got), authLogin}, opts...)
				}
				conv := conversation(tc("c1", tt.tool, tt.raw))
				x := nodeTexts(t, mk, conv)
				assertNoSecret(t, x, s)
				if strings.Contains(tt.raw, "ab1") { // below MinScrubbedSecretLen: masked by location
					for _, text := range x.all {
						if strings.Contains(text, `"passwd":"ab1"`) {
							t.Errorf("the short secret shows at its place: %.500s", text)
						}
					}
				}
			})
		}
	}
}

// A tool that panics, or fails, quoting its input stops the run (the
// default of WithHandleToolErrors): the returned *ToolError, the
// *PanicError it wraps and its Partial result name no secret, and
// errors.As still reaches both.
func TestToolErrorsAreScrubbed(t *testing.T) {
	s := shapeSecret
	raw := `{"user":"bob","auth":{"password":"` + s + `"}}`
	tests := []struct {
		name string
		fn   func(context.Context, string) (string, error)
	}{
		{"panic", func(_ context.Context, in string) (string, error) { panic("cannot log in with " + in) }},
		{"error", func(_ context.Context, in string) (string, error) { return "", fmt.Errorf("cannot log in with %s", in) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			login := ToolWithSchema(plainTool{name: "login", fn: tt.fn}, nestedAuthSchema)
			node := mustNode(t, []tools.Tool{login}, WithLogger(sanDiscard))
			_, err := node.Run(context.Background(), conversation(tc("c1", "login", raw)))
			te, ok := errors.AsType[*ToolError](err)
			if !ok || te.Partial == nil {
				t.Fatalf("err = %v, want a *ToolError with a Partial result", err)
			}
			x := &texts{}
			x.add("error", err, te.Err, te.Partial.Calls, te.Partial.ToolMessages, te.Partial.AIMessage)
			if pe, ok := errors.AsType[*PanicError](err); ok {
				x.add("panic value", pe.Value)
			} else if tt.name == "panic" {
				t.Errorf("errors.As finds no *PanicError in %v", err)
			}
			assertNoSecret(t, x, s)
		})
	}
}

// A root writeOnly makes the whole arguments secret: the raise policy's
// error lists the call with RawArguments masked whole and no Args.
func TestRootWriteOnlyRaise(t *testing.T) {
	var got sync.Map
	node := mustNode(t, []tools.Tool{storingTool("vaultkey", rootSecretSchema, &got)}, WithOnUnresolved(UnresolvedRaise), WithLogger(sanDiscard))
	_, err := node.Run(context.Background(), conversation(tc("c1", "vaultkey", `{"key":"`+shapeSecret+`","n":"x"}`)))
	ve, ok := errors.AsType[*ToolCallValidationError](err)
	if !ok || len(ve.Calls) != 1 {
		t.Fatalf("err = %v, want a *ToolCallValidationError listing the call", err)
	}
	if c := ve.Calls[0]; c.Args != nil || c.RawArguments != quotedMask || strings.Contains(ve.Error(), shapeSecret) {
		t.Errorf("Args %v, RawArguments %s, Error %s; want nil, the mask, no secret", c.Args, c.RawArguments, ve.Error())
	}
}

// Runs that share a node share its tools' memoized secret locations: run
// concurrently (under -race), each reports the same masked arguments and
// history as a run alone, and no text carries the secret.
func TestSecretLocationsSharedByConcurrentRuns(t *testing.T) {
	n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "login", fn: func(context.Context, string) (string, error) {
		return "ok", nil
	}}, nestedAuthSchema)}, WithLogger(sanDiscard))
	raw := func(i int) string {
		return `{"user":"u` + strconv.Itoa(i) + `","auth":{"password":"` + shapeSecret + `","pass_` + strconv.Itoa(i) + `":1},"note":"n"}`
	}
	alone := func(i int) string {
		res, err := n.Run(context.Background(), conversation(tc("c1", "login", raw(i))))
		if err != nil {
			t.Error(err)
			return ""
		}
		return res.Calls[0].RawArguments + " " + string(res.Calls[0].Arguments) + " " + res.AIMessage.Parts[0].(llms.ToolCall).FunctionCall.Arguments
	}
	const runs = 8
	var want [runs]string
	for i := range runs {
		want[i] = alone(i)
		if strings.Contains(want[i], shapeSecret) {
			t.Fatalf("run %d shows the secret: %s", i, want[i])
		}
	}
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			if got := alone(i); got != want[i] {
				t.Errorf("run %d concurrently: %s, alone: %s", i, got, want[i])
			}
		})
	}
	wg.Wait()
}

// encoderContent is a string's content as a json.Encoder writes it: what
// quoteContent must match byte for byte, since the scrub searches for the
// encodings encoding/json (and the clients built on it) write.
func encoderContent(t testing.TB, s string, html bool) string {
	t.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(html)
	if err := enc.Encode(s); err != nil {
		t.Fatal(err)
	}
	out := strings.TrimSuffix(b.String(), "\n")
	return out[1 : len(out)-1]
}

var quoteSeeds = []string{
	"", "plain", shapeSecret, `a"b`, `back\slash`, "tab\tnew\nret\rbs\bff\f",
	"\x00\x01\x1f\x7f", "<script>&amp;</script>", "caf\u00e9 \u2028 \u2029 \u65e5\u672c",
	"bad \xff utf8 \xc3", "\xe2\x80", `{"password":"Xq7-secret-Zp9"}`, "emoji \U0001F600",
}

func TestQuoteContentMatchesEncodingJSON(t *testing.T) {
	for _, s := range quoteSeeds {
		for _, html := range []bool{false, true} {
			if got, want := quoteContent(s, html), encoderContent(t, s, html); got != want {
				t.Errorf("quoteContent(%q, %v) = %q, want %q", s, html, got, want)
			}
		}
	}
}

func FuzzQuoteContent(f *testing.F) {
	for _, s := range quoteSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, html := range []bool{false, true} {
			if got, want := quoteContent(s, html), encoderContent(t, s, html); got != want {
				t.Fatalf("quoteContent(%q, %v) = %q, want %q", s, html, got, want)
			}
		}
	})
}
