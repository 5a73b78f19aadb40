package saidex

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tmc/langchaingo/llms"
	"golang.org/x/sync/errgroup"

	"github.com/saidex/saidex-go/internal/schemawalk"
)

// defaultCorrectionContextMessages is the default of
// [WithCorrectionContextMessages].
const defaultCorrectionContextMessages = 10

// maxContextMessageChars caps each context message in a correction prompt.
const maxContextMessageChars = 2000

// correctionConfig is the configuration of the correction stage.
type correctionConfig struct {
	model           llms.Model // nil: no correction
	extract         extractSettings
	contextMessages int
	missingFields   bool
}

func defaultCorrectionConfig() correctionConfig {
	return correctionConfig{
		extract:         defaultExtractSettings(),
		contextMessages: defaultCorrectionContextMessages,
	}
}

func (c *correctionConfig) validate() []error {
	errs := c.extract.validate(c.model != nil)
	if c.contextMessages < 0 {
		errs = append(errs, fmt.Errorf("WithCorrectionContextMessages(%d): must be 0 (no context) or positive", c.contextMessages))
	}
	return errs
}

// WithCorrectionModel turns correction on: an invalid call of a tool with a
// schema is sent to m, which answers with corrected arguments, instead of
// going back to the agent as feedback. A model smaller and cheaper than the
// agent's is the normal choice. opts are added to every correction call
// (before the options correction needs, which win). A nil m turns
// correction off, the default.
//
// The corrected arguments are validated like the model's own (schema and
// validators, in [PhaseCorrection]); an invalid answer is retried (see
// [WithMaxCorrectionRetries]). A call whose correction fails (a provider
// error such as HTTP 429 or a timeout, an answer that does not parse, or
// retries exhausted) falls through to the unresolved step: by default the
// agent gets feedback. Correction never fails the node and is never
// retried at the network level. Calls missing a required field are not
// sent (see [WithCorrectMissingFields]). All correctable calls of a message
// are corrected concurrently, bounded by [WithMaxConcurrency]. Correction
// traffic never enters the returned conversation.
//
// Token usage of the correction calls is reported per call in
// [CallReport].Tokens, keyed by model name: the name the client reports in
// the response's GenerationInfo (langchaingo's mistral client does; its
// openai, anthropic and googleai clients do not), else the one set in opts
// with llms.WithModel, else the Go type of m (for example "*openai.LLM").
// langchaingo's clients expose the model they were configured with through
// no method, so pass llms.WithModel(name) in opts to key their usage by
// name.
//
// Privacy: m receives the tool's name and description, the invalid
// arguments, and up to [WithCorrectionContextMessages] earlier messages of
// the conversation, tool results included, plus the AI message's text. Set
// WithCorrectionContextMessages(0) if that content must not reach m (for
// example because another provider serves it).
//
// Secrets (see [Secret]) never reach m: the prompt shows each secret value
// of the invalid arguments, and of the earlier calls it quotes, as
// "**********" (text around them that cannot be read as JSON is withheld),
// and asks m to keep each mask where it is. In m's answer, a mask at a
// secret location is replaced by the real value masked at the same place
// before the answer is validated, so the tool receives the secret: only a
// mask that is the whole value of a secret field is restored. The mask
// anywhere else (in another field, padded, glued to other text, inside a
// longer string, in a key) and a mask with no value behind it (none was
// sent there, or two different values were, as in two objects) are issues
// of that answer, which name no secret and are retried; a call never
// executes holding the mask. The model is called through a wrapper that
// scrubs the run's secret values from every message it is sent.
func WithCorrectionModel(m llms.Model, opts ...llms.CallOption) Option {
	return optionFunc(func(c *config) {
		c.correction.model = m
		c.correction.extract.callOpts = slices.Clone(opts)
	})
}

// WithCorrectionContextMessages sets how many messages before the AI message
// the correction prompt quotes, oldest first: system messages are left out,
// each message is cut to 2,000 characters, tool results are included, and
// the AI message's own text is added. 0 turns the conversation context off
// (the AI message's text too). A negative value is a configuration error.
// Default: 10.
//
// Privacy: everything quoted, tool results included, reaches the correction
// model, which may be served by another provider than the agent's model.
// Use 0 when that content must not leave the agent's provider.
func WithCorrectionContextMessages(n int) Option {
	return optionFunc(func(c *config) { c.correction.contextMessages = n })
}

// WithCorrectMissingFields sets whether a call missing a required field is
// sent to the correction model, which then fills the value from the
// conversation. With false, the default, such a call goes to the agent with
// feedback: the correction model has no reliable source for a value the
// agent never sent and would invent one. A call that also carries a key the
// schema does not know (likely a misnamed field, such as "town" for "city")
// is corrected either way.
func WithCorrectMissingFields(on bool) Option {
	return optionFunc(func(c *config) { c.correction.missingFields = on })
}

// correct is the correction stage: with a correction model, correctable
// invalid calls are corrected concurrently, bounded by WithMaxConcurrency.
// It returns ctx.Err() when ctx is done and a validator's interrupt; a
// failed correction only leaves its call invalid.
func (n *ToolNode) correct(ctx context.Context, r *run, calls []*call) error {
	if n.cfg.correction.model == nil {
		return nil
	}
	err := n.eachCall(ctx, calls, n.correctable, func(ctx context.Context, c *call) error { return n.correctOne(ctx, r, c) })
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	return err
}

// eachCall runs fn on the calls selected by sel, concurrently, bounded by
// WithMaxConcurrency: the correction and resolve stages' loop. After the
// first error, or once ctx is done, it starts no more calls; it returns
// the first error once the started calls have returned; fn calls its
// callees (model, validators, hook) through watchCall, so that returns
// promptly once ctx is done. With WithMaxConcurrency(1) the calls run one
// after another on the calling goroutine, as that option documents.
func (n *ToolNode) eachCall(ctx context.Context, calls []*call, sel func(*call) bool, fn func(ctx context.Context, c *call) error) error {
	if n.cfg.maxConcurrency == 1 {
		for _, c := range calls {
			if !sel(c) {
				continue
			}
			if ctx.Err() != nil {
				break
			}
			if err := fn(ctx, c); err != nil {
				return err
			}
		}
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	if n.cfg.maxConcurrency > 0 {
		g.SetLimit(n.cfg.maxConcurrency)
	}
	for _, c := range calls {
		if !sel(c) {
			continue
		}
		if gctx.Err() != nil {
			break
		}
		g.Go(func() error { return fn(gctx, c) })
	}
	return g.Wait()
}

// correctable applies the routing rules: only invalid calls of known tools
// with a schema, and calls missing a required field only when correcting
// them is allowed or a key looks misnamed.
func (n *ToolNode) correctable(c *call) bool {
	if c.status != statusInvalid || c.noFunc || c.tool == nil || c.tool.schema == nil || c.repeated || c.cut || errors.Is(c.err, ErrMergedCalls) {
		return false // a repeated, cut or merged call is answered at once (limit.go, cut.go, merged.go)
	}
	if c.err != nil { // the arguments did not parse
		if len(c.raw) > n.cfg.maxArgumentBytes {
			return false
		}
		if strings.TrimSpace(c.raw) == "" { // every field is missing
			return n.cfg.correction.missingFields
		}
		return true
	}
	if n.cfg.correction.missingFields {
		return true
	}
	set := schemawalk.Of(c.tool.schema.schema)
	missing := missingRequired(set, c.value)
	unknown := hasUnknownKey(set, c.value)
	for _, is := range c.issues {
		missing = missing || is.Kind == IssueRequired
		unknown = unknown || is.Kind == IssueAdditional
	}
	return !missing || unknown
}

// missingRequired reports whether value lacks a member that the schemas
// of set require, at the root or in nested objects and array items the
// schemas describe (through $ref and allOf too).
func missingRequired(set schemawalk.Set, value any) bool {
	return anyObject(set, value, func(set schemawalk.Set, obj map[string]any) bool {
		for _, name := range set.Required() {
			if _, present := obj[name]; !present {
				return true
			}
		}
		return false
	})
}

// hasUnknownKey reports whether value holds an object member that the
// schemas of set do not list under properties, at the root or nested.
// Objects whose schemas list no properties, or allow pattern properties,
// are not judged.
func hasUnknownKey(set schemawalk.Set, value any) bool {
	return anyObject(set, value, func(set schemawalk.Set, obj map[string]any) bool {
		names := set.PropertyNames()
		if len(names) == 0 || slices.ContainsFunc(set, func(s *jsonschema.Schema) bool { return len(s.PatternProperties) > 0 }) {
			return false
		}
		for k := range obj {
			if _, known := slices.BinarySearch(names, k); !known {
				return true
			}
		}
		return false
	})
}

// anyObject reports whether found holds for an object of value, paired with
// the schemas that apply to it: the root, or an object nested in the
// members and array items the schemas describe.
func anyObject(set schemawalk.Set, value any, found func(set schemawalk.Set, obj map[string]any) bool) bool {
	if len(set) == 0 {
		return false
	}
	switch v := value.(type) {
	case map[string]any:
		if found(set, v) {
			return true
		}
		for k, val := range v {
			if sub, _ := set.Property(k); anyObject(sub, val, found) {
				return true
			}
		}
	case []any:
		for i, val := range v {
			if anyObject(set.Item(i), val, found) {
				return true
			}
		}
	}
	return false
}

// correctOne corrects one call. On success the call is valid with outcome
// OutcomeCorrected; on failure it stays invalid with its latest issues. It
// returns an error only for ctx and for an interrupt from check.
func (n *ToolNode) correctOne(ctx context.Context, r *run, c *call) (err error) {
	start := r.now()
	defer func() {
		c.durations.Correct = r.since(start)
		if v := recover(); v != nil {
			c.correctionErr = &PanicError{Value: v, Stack: debug.Stack()}
			n.cfg.log().Warn("saidex: correction panicked; the call falls through to the unresolved step",
				slog.String("tool", c.name), slog.String("call_id", c.id))
			err = nil
		}
	}()
	c.correctionAttempted = true
	c.original = c.value

	s := n.cfg.correction.extract
	s.name, s.description = c.name, c.tool.tool.Description()
	s.repair = n.cfg.repairOptions()
	s.secret, s.scrub = c.tool.secret, r.scrub
	model := n.cfg.correction.model
	if r.scrub != nil { // no text of the run reaches m holding a secret value (scrub.go)
		model = scrubbedModel{Model: model, s: r.scrub}
	}
	prompt, known := n.correctionPrompt(r, c)
	prompt = r.scrub.text(prompt) // for the callbacks too
	var co *coerced               // of the last check (coerce.go)
	check := func(ctx context.Context, value any, attempt, maxAttempts int) (issues []Issue, err error) {
		var masks []Issue
		if c.tool.secret != nil {
			// The model saw masks: put the real values back before
			// anything judges or runs the answer, and refuse a mask
			// anywhere else (secret.go).
			value, masks = restoreSecrets(c.tool.secret.loc(), value, "", known)
		}
		issues, co, err = n.checkCoerce(ctx, r, c, value, "", checkPhase{phase: PhaseCorrection, attempt: attempt, maxAttempts: maxAttempts})
		if len(masks) > 0 && err == nil {
			issues = append(masks, issues...)
		}
		return issues, err
	}
	ext, err := s.run(ctx, model, c.tool.schema, prompt, check)
	c.tokens = addUsage(c.tokens, ext.tokens) // stats.go
	c.correctionRetries = max(ext.attempts-1, 0)
	if err == nil {
		c.value, c.args = ext.value, ext.json
		c.adoptCoercion(co)
		c.status, c.outcome = statusValid, OutcomeCorrected
		return nil
	}
	if ie, ok := errors.AsType[*interruptError](err); ok {
		return ie.err
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		return ctxErr
	}
	c.correctionErr = err
	reason := "invalid"
	// The call keeps the issues of the agent's own arguments: its feedback,
	// hook and raise error describe what the agent sent. The issues of the
	// correction model's last answer stay on CorrectionErr.
	if ee, ok := errors.AsType[*ExtractionError](err); ok {
		switch {
		case ee.Err != nil && isModelError(ee):
			reason = "model_error"
		case ee.Err != nil:
			reason = "unparseable"
		}
	}
	// The error text is not logged: a parse error may quote the answer.
	n.cfg.log().Warn("saidex: correction failed; the call falls through to the unresolved step",
		slog.String("tool", c.name), slog.String("call_id", c.id),
		slog.String("reason", reason), slog.Int("attempts", ext.attempts))
	return nil
}

// isModelError reports whether the extraction stopped on the model's error
// rather than on an answer that did not parse.
func isModelError(e *ExtractionError) bool {
	return !errors.Is(e.Err, ErrMalformedArguments) && !errors.Is(e.Err, errEmptyAnswer)
}

// correctionPrompt renders the one prompt the correction model sees: the
// tool, the invalid arguments, the issues, the conversation context and the
// AI message's text. It is text, never the raw chat history, which refers
// to tools the correction model does not have.
//
// When the tool's schema has secrets, the arguments are shown masked
// (secret values as the mask, unreadable text around them withheld), as
// are the arguments of earlier calls in the context; known holds the real
// values masked, by pointer, for restoreSecrets.
func (n *ToolNode) correctionPrompt(r *run, c *call) (prompt string, known map[string]any) {
	var b strings.Builder
	fmt.Fprintf(&b, "An assistant called the tool %q with invalid arguments. Correct them.\n", c.name)
	if d := c.tool.tool.Description(); d != "" {
		fmt.Fprintf(&b, "\nTool description: %s\n", d)
	}
	b.WriteString("\nThe arguments the assistant sent:\n")
	args := c.raw
	if c.err == nil {
		args = c.args
	}
	if c.tool.secret != nil {
		args, known = c.tool.secret.maskedPrompt(args)
	}
	b.WriteString(args)
	if c.tool.secret != nil {
		b.WriteString("\n\nSecret values are shown as " + quotedMask + ", and text around them that could not be read as JSON as [N bytes not shown]. Keep each " + quotedMask + " unchanged where it is: the real value is put back after your answer.")
	}
	b.WriteString("\n\nProblems found:\n")
	if c.err != nil {
		b.WriteString("- the arguments could not be read as one JSON object\n")
	}
	writeIssues(&b, c.issues, c.moreIssues)

	if k := n.cfg.correction.contextMessages; k > 0 {
		if ctxText := n.renderContext(r.messages, r.aiIndex, k); ctxText != "" {
			b.WriteString("\nThe conversation before the call, oldest first:\n")
			b.WriteString(ctxText)
		}
		if t := messageText(r.messages[r.aiIndex]); strings.TrimSpace(t) != "" {
			b.WriteString("\nThe assistant's text in the message that made the call:\n")
			b.WriteString(truncateRunes(t, maxContextMessageChars))
			b.WriteByte('\n')
		}
	}
	b.WriteString("\nKeep every value the assistant gave unless a problem concerns it. Take a missing value only from the conversation; never invent one.")
	if n.cfg.correction.extract.mode == CorrectionToolCalling {
		fmt.Fprintf(&b, " Answer by calling %q with the corrected arguments.", c.name)
	}
	return b.String(), known
}

// renderContext renders the last k non-system messages before messages[ai],
// oldest first, one block per message, each cut to 2,000 characters; the
// arguments of earlier calls of a tool with secrets are masked.
func (n *ToolNode) renderContext(messages []llms.MessageContent, ai, k int) string {
	var picked []llms.MessageContent
	for i := ai - 1; i >= 0 && len(picked) < k; i-- {
		if messages[i].Role == llms.ChatMessageTypeSystem {
			continue
		}
		picked = append(picked, messages[i])
	}
	slices.Reverse(picked)
	var b strings.Builder
	for _, m := range picked {
		fmt.Fprintf(&b, "[%s] %s\n", roleName(m.Role), truncateRunes(n.renderParts(m.Parts), maxContextMessageChars))
	}
	return b.String()
}

func roleName(r llms.ChatMessageType) string {
	switch r {
	case llms.ChatMessageTypeHuman:
		return "user"
	case llms.ChatMessageTypeAI:
		return "assistant"
	case llms.ChatMessageTypeTool:
		return "tool"
	}
	return string(r)
}

// renderParts renders a message's parts as text: text as is, tool calls
// and tool results with their tool name, other content as a placeholder.
func (n *ToolNode) renderParts(parts []llms.ContentPart) string {
	var out []string
	for _, p := range parts {
		if tc, ok := asToolCall(p); ok { // history.go
			out = append(out, n.renderToolCall(&tc))
			continue
		}
		switch p := p.(type) {
		case llms.TextContent:
			out = append(out, p.Text)
		case llms.ToolCallResponse:
			out = append(out, fmt.Sprintf("result of %s: %s", p.Name, p.Content))
		case llms.ImageURLContent:
			out = append(out, "[image]")
		case llms.BinaryContent:
			out = append(out, fmt.Sprintf("[%s data]", p.MIMEType))
		}
	}
	return strings.Join(out, "\n")
}

func (n *ToolNode) renderToolCall(tc *llms.ToolCall) string {
	if tc.FunctionCall == nil {
		return "called a tool"
	}
	return fmt.Sprintf("called %s with %s", tc.FunctionCall.Name, n.shownArguments(tc.FunctionCall.Name, tc.FunctionCall.Arguments))
}

// messageText returns the text parts of m.
func messageText(m llms.MessageContent) string {
	var out []string
	for _, p := range m.Parts {
		if t, ok := p.(llms.TextContent); ok {
			out = append(out, t.Text)
		}
	}
	return strings.Join(out, "\n")
}
