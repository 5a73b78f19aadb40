package saidex

import (
	"errors"
	"fmt"
	"log/slog"
)

// Option configures a [ToolNode]. Options are applied and validated once, by
// [NewToolNode].
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

// config is the validated configuration of a ToolNode. It is read-only after
// NewToolNode returns.
type config struct {
	stripThinking    bool
	jsonRepair       bool
	maxConcurrency   int
	handleToolErrors bool
	toolErrorFormat  func(error) string
	logger           *slog.Logger
	maxArgumentBytes int

	onUnresolved   UnresolvedPolicy // unresolved.go
	unresolvedHook UnresolvedHook
	validators     []namedValidator // validators.go
	interruptIs    func(err error) bool
	keepMessages   bool                  // WithSanitizeMessages(false) (sanitize.go)
	observers      []func(ToolNodeEvent) // WithObserver (stats.go)
	correction     correctionConfig      // correct.go
	coercion       CoercionMode          // WithCoercion (coerce.go)
	feedbackLimit  int                   // WithFeedbackLimit (limit.go)
	repeatLimit    int                   // WithRepeatLimit (repeats.go)
	textToolCalls  bool                  // WithTextToolCalls (textcalls.go)
}

func defaultConfig() config {
	return config{
		stripThinking:    true,
		jsonRepair:       true,
		logger:           nil, // slog.Default() at use time, so later SetDefault calls apply
		maxArgumentBytes: DefaultMaxArgumentBytes,
		correction:       defaultCorrectionConfig(),
	}
}

func (c *config) validate() error {
	var errs []error
	if c.maxConcurrency < 0 {
		errs = append(errs, fmt.Errorf("WithMaxConcurrency(%d): must be 0 (unbounded) or positive", c.maxConcurrency))
	}
	if c.feedbackLimit < 0 {
		errs = append(errs, fmt.Errorf("WithFeedbackLimit(%d): must be 0 (no limit) or positive", c.feedbackLimit))
	}
	if c.repeatLimit < 0 {
		errs = append(errs, fmt.Errorf("WithRepeatLimit(%d): must be 0 (no limit) or positive", c.repeatLimit))
	}
	if c.maxArgumentBytes <= 0 {
		errs = append(errs, fmt.Errorf("WithMaxArgumentBytes(%d): must be positive", c.maxArgumentBytes))
	}
	if err := c.validateUnresolved(); err != nil {
		errs = append(errs, err)
	}
	errs = append(errs, c.correction.validate()...)
	if err := c.validateCoercion(); err != nil { // coerce.go
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	return nil
}

func (c *config) log() *slog.Logger {
	if c.logger != nil {
		return c.logger
	}
	return slog.Default()
}

// ErrInvalidConfig is returned (wrapped) by [NewToolNode] when an option has
// an invalid value, and by the agent package's New for an invalid agent
// configuration.
var ErrInvalidConfig = errors.New("saidex: invalid configuration")

// WithStripThinking sets whether the repair stage strips reasoning blocks
// (<think>…</think>, <thinking>…</thinking>, a lone closing tag) from
// argument strings that do not parse. Reasoning that is never closed is
// refused either way; with false, an argument string that does not parse
// and holds a reasoning tag is refused. Default: true.
func WithStripThinking(on bool) Option {
	return optionFunc(func(c *config) { c.stripThinking = on })
}

// WithJSONRepair sets whether the repair stage fixes malformed JSON
// (quotes, bare keys, Python literals, commas, comments, truncation after a
// complete value). The fix is one linear pass over the object, on
// arguments of any size that [WithMaxArgumentBytes] admits, and changes no
// value. Extraction of the object from prose, fences and template tokens
// and the undoing of string encoding still run when it is off. Default:
// true.
func WithJSONRepair(on bool) Option {
	return optionFunc(func(c *config) { c.jsonRepair = on })
}

// WithMaxConcurrency bounds how many tool calls of one message execute (and,
// with a correction model, are corrected) at the same time. 0, the default,
// runs them all at once; 1 runs them one after another. A negative value
// is a configuration error.
//
// Calls run on workers started one at a time, only while calls are
// waiting: the first worker runs calls alone until they have been running
// for 50 µs with calls still waiting, then each worker starts one more as
// it takes a call. Calls that
// block thus reach the bound after 50 µs, while calls that finish at once
// run on the first worker. With a ctx that is never done
// (context.Background()) the first worker is the goroutine that called
// Run, so 1 runs every call on it. With a ctx that can be cancelled (its
// Done method returns a channel) the calling goroutine only watches ctx
// while the workers, goroutines started for the Run, run the calls (1:
// one worker, one call after another), and each validator, unresolved
// hook and correction request runs on a goroutine of its own, so that Run
// returns as soon as ctx is done (see [CanceledError]).
func WithMaxConcurrency(n int) Option {
	return optionFunc(func(c *config) { c.maxConcurrency = n })
}

// WithHandleToolErrors sets how errors returned by tools are handled. With
// false, the default, an error that wraps [ErrInvalidArguments] becomes an
// error tool message and any other error stops the run: [ToolNode.Run]
// returns it as a [*ToolError]. With true every error (and every recovered
// panic) becomes an error tool message whose content is "Error: " followed
// by the error text. An interrupt (see [ErrInterrupt]) always propagates.
func WithHandleToolErrors(on bool) Option {
	return optionFunc(func(c *config) { c.handleToolErrors = on })
}

// WithToolErrorFormatter turns every tool error (and every recovered panic)
// into an error tool message whose content is format(err), as
// WithHandleToolErrors(true) does with its default text. It overrides
// [WithHandleToolErrors]. A nil format restores the default behaviour, also
// cancelling an earlier WithHandleToolErrors(true). Default: none.
func WithToolErrorFormatter(format func(err error) string) Option {
	return optionFunc(func(c *config) {
		c.toolErrorFormat = format
		c.handleToolErrors = format != nil
	})
}

// WithLogger sets the logger for warnings (a dropped call, for example).
// Records carry the tool name, the call id and the outcome, never argument
// values. Default: [slog.Default] at the time of the warning.
func WithLogger(l *slog.Logger) Option {
	return optionFunc(func(c *config) { c.logger = l })
}

// WithMaxArgumentBytes caps the size of a call's argument string. A larger
// call is not parsed at all and is answered with feedback; a call within
// it is repaired whatever its size. A value of 0 or
// less is a configuration error. Default: [DefaultMaxArgumentBytes].
func WithMaxArgumentBytes(n int) Option {
	return optionFunc(func(c *config) { c.maxArgumentBytes = n })
}
