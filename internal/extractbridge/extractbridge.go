// Package extractbridge connects package extract to the extraction engine
// of package saidex, which keeps the engine unexported because its
// correction stage shares it.
package extractbridge

import (
	"context"
	"encoding/json"

	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Settings are the settings of one extraction. Package saidex fills in its
// defaults before package extract's options apply.
type Settings struct {
	Mode        int // a saidex.CorrectionMode
	MaxAttempts int
	Handler     callbacks.Handler
	CallOpts    []llms.CallOption
	Name        string // the function bound in tool-calling mode
	Description string
}

// Run asks model for one JSON value matching schema. It is set once, by an
// init function of package saidex, which package extract imports: it is
// set before any function of package extract can run, and never changed.
var Run func(ctx context.Context, model llms.Model, schema any, prompt string, opts []func(*Settings)) (json.RawMessage, error)

// Decode decodes a valid answer into out (a pointer) as a saidex.NewTool tool
// run by a node decodes its arguments: encoding/json's semantics,
// members the type has no field for ignored (the schema has judged them).
// It is set with Run, by the same init function, and never changed.
var Decode func(raw []byte, out any) error

// ConfigErr returns why a saidex.NewTool tool is broken (no JSON Schema
// describes its argument type: the error NewToolNode refuses it with), nil
// for any other tool. It is set with Run, by the same init function, and
// never changed.
var ConfigErr func(t tools.Tool) error
