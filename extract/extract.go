// Package extract asks a model for one structured value, with the loop a
// [saidex.ToolNode] uses to correct a call: each answer is repaired as a
// tool call's arguments are, validated against a JSON Schema, and, while
// invalid, asked for again with the previous answer and its issues.
//
//	p, err := extract.Into[Person](ctx, model, "Ada Lovelace was 36.")
//
// A failed extraction is a [*saidex.ExtractionError] (errors.Is(err,
// saidex.ErrExtraction)).
package extract

import (
	"context"
	"encoding/json"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/internal/extractbridge"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
)

// Option configures one extraction. The options are [WithMode],
// [WithMaxAttempts], [WithCallbacks], [WithCallOptions] and
// [WithFunction].
type Option interface {
	apply(*extractbridge.Settings)
}

type option func(*extractbridge.Settings)

func (f option) apply(s *extractbridge.Settings) { f(s) }

// WithMode sets how the model is asked: [saidex.CorrectionToolCalling]
// (the default: one function bound and forced) or [saidex.CorrectionJSON]
// (JSON mode, the schema in the prompt), as [saidex.WithCorrectionMode]
// does for a node's corrections. Another value is a configuration error.
func WithMode(mode saidex.CorrectionMode) Option {
	return option(func(s *extractbridge.Settings) { s.Mode = int(mode) })
}

// WithMaxAttempts sets how many answers are asked for: the first and,
// while it stays invalid, retries that send the model its previous answer
// and that answer's issues. Provider errors are never retried. Default: 2.
// A value below 1 is a configuration error.
func WithMaxAttempts(n int) Option {
	return option(func(s *extractbridge.Settings) { s.MaxAttempts = n })
}

// WithCallbacks reports the extraction to h as a chain run named
// [saidex.ExtractChainName], with the inputs and outputs
// [saidex.WithCallbacks] describes (the prompt, the valid JSON, the
// attempts and the token usage). Default: none.
func WithCallbacks(h callbacks.Handler) Option {
	return option(func(s *extractbridge.Settings) { s.Handler = h })
}

// WithCallOptions adds llms.CallOption values to every model call, before
// the options extraction needs (tools, tool choice, JSON mode), which win.
// A model name set with llms.WithModel names the model in token counts.
// The option may be given several times; the options add up. Default:
// none.
func WithCallOptions(opts ...llms.CallOption) Option {
	return option(func(s *extractbridge.Settings) { s.CallOpts = append(s.CallOpts, opts...) })
}

// WithFunction sets the name and description of the function bound in
// [saidex.CorrectionToolCalling] mode. An empty name is a configuration
// error. Default: "extract_data" and a generic description.
func WithFunction(name, description string) Option {
	return option(func(s *extractbridge.Settings) { s.Name, s.Description = name, description })
}

// JSON asks model for one JSON value matching schema (a JSON Schema in any
// form [saidex.Tool]'s Schema documents), with prompt as the only message
// (a human message), and returns the valid value as compact JSON.
//
// It returns an error wrapping [saidex.ErrInvalidConfig] for a nil model,
// a schema that does not compile or an invalid option, ctx.Err() as soon
// as ctx is done (a model call that ignores ctx is left running on a
// goroutine of its own, which ends when the call returns), and a
// [*saidex.ExtractionError] when the model fails or gives no valid answer.
// Nothing is logged.
func JSON(ctx context.Context, model llms.Model, schema any, prompt string, opts ...Option) (json.RawMessage, error) {
	fns := make([]func(*extractbridge.Settings), 0, len(opts))
	for _, o := range opts {
		if o != nil {
			fns = append(fns, o.apply)
		}
	}
	return extractbridge.Run(ctx, model, schema, prompt, fns)
}

// Into is [JSON] with the schema reflected from T as [saidex.NewTool]
// reflects a tool's argument type, decoding the valid answer into a T as
// a node decodes such a tool's validated arguments (encoding/json's
// semantics: a member the schema allowed and T has no field for is
// ignored). A T whose schema cannot be reflected
// (a chan or func field, for example) is an error wrapping
// [saidex.ErrInvalidConfig], returned before the model is called; a
// decoding failure is a [*saidex.ExtractionError].
func Into[T any](ctx context.Context, model llms.Model, prompt string, opts ...Option) (T, error) {
	var out T
	schema, err := schemaOf[T]()
	if err != nil {
		return out, err
	}
	raw, err := JSON(ctx, model, schema, prompt, opts...)
	if err != nil {
		return out, err
	}
	if err := extractbridge.Decode(raw, &out); err != nil {
		return out, &saidex.ExtractionError{Attempts: 1, Err: fmt.Errorf("decode into %T: %w", out, err)}
	}
	return out, nil
}

// schemaOf returns the schema [saidex.NewTool] reflects for T, or the
// error wrapping saidex.ErrInvalidConfig of a T that no JSON Schema
// describes (NewToolNode refuses such a tool).
func schemaOf[T any]() (any, error) {
	tool := saidex.NewTool("extract_data", "", func(context.Context, T) (string, error) { return "", nil })
	if err := extractbridge.ConfigErr(tool); err != nil {
		return nil, fmt.Errorf("extract.Into: %w", err)
	}
	return tool.Schema(), nil
}
