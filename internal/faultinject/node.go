package faultinject

import (
	"context"
	"math/rand/v2"
	"strings"
	"time"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// recorder is a tool that keeps the input it was called with.
type recorder struct {
	input  string
	called bool
}

func (r *recorder) Name() string        { return "t" }
func (r *recorder) Description() string { return "records its input" }
func (r *recorder) Call(_ context.Context, input string) (string, error) {
	r.input, r.called = input, true
	return "ok", nil
}

// NodeRepairer returns a Repairer that runs each text as the arguments of
// one call through a real [saidex.ToolNode] (default options), whose one
// tool has the schema {"type":"object"}, and returns what that tool
// received. The Repairer is for one goroutine at a time.
func NodeRepairer(opts ...saidex.Option) (Repairer, error) {
	return SchemaRepairer(map[string]any{"type": "object"}, opts...)
}

// SchemaRepairer is [NodeRepairer] with a tool whose schema is schema.
func SchemaRepairer(schema any, opts ...saidex.Option) (Repairer, error) {
	rec := &recorder{}
	node, err := saidex.NewToolNode([]tools.Tool{saidex.ToolWithSchema(rec, schema)}, opts...)
	if err != nil {
		return nil, err
	}
	human := llms.TextParts(llms.ChatMessageTypeHuman, "go")
	ctx := context.Background()
	return func(raw string) (string, bool) {
		rec.input, rec.called = "", false
		msgs := []llms.MessageContent{human, {Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "t", Arguments: raw}},
		}}}
		if _, err := node.Run(ctx, msgs); err != nil {
			return "", false
		}
		return rec.input, rec.called
	}, nil
}

// Check generates the mutations of one object (every single mutation by
// every operator, and pairs random pairs) and counts, in tally, what
// repair made of each.
func Check(g *Gen, repair Repairer, pairs int, tally *Tally) {
	CheckOps(g, repair, Ops, pairs, tally)
}

// CheckOps is [Check] with the operators ops only (singles and pairs).
func CheckOps(g *Gen, repair Repairer, ops []Op, pairs int, tally *Tally) {
	CheckOpsUnder(g, func(Value) (Repairer, error) { return repair, nil }, ops, pairs, tally)
}

// CheckOpsUnder is [CheckOps] with the Repairer that under returns for the
// object generated, such as a [SchemaRepairer] whose tool's schema is
// [SchemaOf] the object. An error of under is returned, nothing counted.
func CheckOpsUnder(g *Gen, under func(Value) (Repairer, error), ops []Op, pairs int, tally *Tally) error {
	if len(ops) == 0 {
		return nil
	}
	o := g.Object()
	l := g.RandomLayout()
	t := Encode(o, l)
	orig, _ := DecodeOrdered(t.S) // the value as the tool would read the original
	repair, err := under(orig)
	if err != nil {
		return err
	}
	run := func(m Mutation) {
		start := time.Now()
		args, ok := repair(m.Text)
		took := time.Since(start)
		out := Picked{Orig: orig, Layout: l, M: m}.Judge(args, ok)
		row := m.Op
		if a, _, isPair := strings.Cut(m.Op, "+"); isPair {
			row = "pair:" + a // pairs are counted by their first operator
		}
		tally.Time[row] += took
		tally.Add(row, out, Example{Op: m.Op, Original: t.S, Text: m.Text, Args: args, Aliased: out == Aliased || out == AliasedWindow, Window: out == AliasedWindow})
	}
	for _, op := range ops {
		for _, m := range op.Singles(t, g.Rand()) {
			run(m)
		}
	}
	r := g.Rand()
	for n := 0; n < pairs; n++ {
		a, b := ops[r.IntN(len(ops))], ops[r.IntN(len(ops))]
		if m, ok := Pair(t, a, b, r); ok {
			run(m)
		}
	}
	return nil
}

// Picked is a mutation [Pick] chose, with what judging it needs.
type Picked struct {
	Orig   Value    // the object's value as its text decodes
	Layout Layout   // the layout its text was written in
	M      Mutation // the mutation
}

// Pick returns one mutation, chosen by its arguments, for a fuzz target:
// the object of seed in its layout, and the single mutation number pos of
// operator number op (each modulo the counts there are), or, with pair, a
// random pair of operators op and op2. ok is false when there is no such
// mutation.
func Pick(seed uint64, op, op2 uint8, pos uint16, pair bool) (p Picked, ok bool) {
	g := NewGen(seed, nil)
	p.Layout = g.RandomLayout()
	t := Encode(g.Object(), p.Layout)
	p.Orig, _ = DecodeOrdered(t.S)
	a := Ops[int(op)%len(Ops)]
	if pair {
		p.M, ok = Pair(t, a, Ops[int(op2)%len(Ops)], g.Rand())
		return p, ok
	}
	ms := a.Singles(t, g.Rand())
	if len(ms) == 0 {
		return p, false
	}
	p.M = ms[int(pos)%len(ms)]
	return p, true
}

// Judge classifies what the tool received (args; called false when it was
// not called) for p as CheckOps does: a pair whose text is a single fault
// of the value received is Aliased, not Different; any other value that
// reached the tool different is AliasedWindow when the model's window says
// so ([AliasByWindow]: the original outside a complete window of a text
// within the brute-force reader's reach), and Different otherwise. The
// reader runs only for values that reached the tool different.
func (p Picked) Judge(args string, called bool) Outcome {
	out := Classify(p.Orig, p.M, args, called)
	if out != Different {
		return out
	}
	if _, _, isPair := strings.Cut(p.M.Op, "+"); isPair {
		if got, err := DecodeOrdered(args); err == nil && IsAlias(p.M.Text, got, args, p.Layout, rand.New(rand.NewPCG(1, 2))) {
			return Aliased
		}
	}
	if AliasByWindow(p.M.Text, p.Orig, p.M.Cut) {
		return AliasedWindow
	}
	return out
}
