package saidex

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/tools"
)

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
