package saidexanthropic

import (
	"context"
	"fmt"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
)

// ErrIncompleteStream is returned by [Guard.RunStream] and
// [Guard.CheckStream] for an [Accumulator] that has not seen its
// stream's message_stop event: the reply may be cut anywhere, and its stop
// reason is not known, so none of its calls may run.
var ErrIncompleteStream = fmt.Errorf("%w: the stream ended before message_stop", ErrIncompleteReply)

// Accumulator builds a streamed reply as anthropic.Message.Accumulate
// does, and also keeps the input of each tool_use block as the stream sent
// it, in its input_json_delta events.
//
// Message.Accumulate (anthropic-sdk-go v2.17.0 and v2.18.0) replaces, at
// content_block_stop, a tool_use input that is not valid JSON by {}:
// the input of a call that max_tokens cut off, or that the model wrote
// malformed. A loop that reads that {} runs the call without its
// arguments, or answers it with "missing fields" that the model did send.
// [Guard.RunStream] and [Guard.CheckStream] check the input as streamed
// instead, and read the stop reason: a call of a reply the output limit
// cut never runs, and its feedback says that the reply was cut.
//
// The zero value is ready to use. An Accumulator holds one reply: use a
// new one (or the zero value again) per stream. It is not safe for
// concurrent use.
type Accumulator struct {
	// Message is the reply accumulated so far, as Message.Accumulate
	// leaves it.
	Message anthropic.Message

	inputs   map[int]*strings.Builder // content index -> input_json_delta text
	complete bool
}

// Accumulate adds one event of the stream (stream.Current()) to the reply.
// Its errors are those of anthropic.Message.Accumulate.
func (a *Accumulator) Accumulate(event anthropic.MessageStreamEventUnion) error {
	if err := a.Message.Accumulate(event); err != nil {
		return err
	}
	switch event.Type {
	case "message_start":
		a.inputs, a.complete = nil, false
	case "content_block_delta":
		if event.Delta.Type != "input_json_delta" {
			break
		}
		if a.inputs == nil {
			a.inputs = map[int]*strings.Builder{}
		}
		b := a.inputs[int(event.Index)]
		if b == nil {
			b = &strings.Builder{}
			a.inputs[int(event.Index)] = b
		}
		b.WriteString(event.Delta.PartialJSON)
	case "message_stop":
		a.complete = true
	}
	return nil
}

// Input returns the input of the content block at index i as the stream
// sent it, the text of its input_json_delta events joined; ok is false
// when the block received none (a tool_use without arguments keeps the
// input of its content_block_start, which Message holds).
func (a *Accumulator) Input(i int) (input string, ok bool) {
	b := a.inputs[i]
	if b == nil {
		return "", false
	}
	return b.String(), true
}

// Complete reports whether the stream's message_stop event was added.
func (a *Accumulator) Complete() bool { return a.complete }

// reply returns the accumulated reply, with the streamed inputs.
func (a *Accumulator) reply() reply {
	r := reply{msg: &a.Message}
	if len(a.inputs) > 0 {
		r.inputs = make(map[int]string, len(a.inputs))
		for i, b := range a.inputs {
			r.inputs[i] = b.String()
		}
	}
	return r
}

// RunStream is [Guard.Run] for a streamed reply: it checks the input of
// each tool_use block as streamed (see [Accumulator]), and reads the stop
// reason of the message_delta event. It returns [ErrIncompleteStream] when
// acc has not seen message_stop, and [ErrNoMessage] for a nil acc.
func (g *Guard) RunStream(ctx context.Context, history []anthropic.MessageParam, acc *Accumulator) (*Turn, error) {
	if acc == nil {
		return nil, ErrNoMessage
	}
	if !acc.complete {
		return nil, ErrIncompleteStream
	}
	return g.run(ctx, history, acc.reply())
}

// CheckStream is [Guard.Check] for a streamed reply, as [Guard.RunStream]
// is [Guard.Run]'s.
func (g *Guard) CheckStream(ctx context.Context, history []anthropic.MessageParam, acc *Accumulator) (*Checked, error) {
	if acc == nil {
		return nil, ErrNoMessage
	}
	if !acc.complete {
		return nil, ErrIncompleteStream
	}
	return g.check(ctx, history, acc.reply())
}
