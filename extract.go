package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/saidex/saidex-go/internal/extractbridge"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/tmc/langchaingo/callbacks"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// CorrectionMode is how a model is asked for structured output, by the
// correction stage of a [ToolNode] and by package extract.
type CorrectionMode int

// The correction modes.
const (
	// CorrectionToolCalling, the default, binds one tool whose parameters
	// are the target schema and forces it with llms.WithToolChoice (in the
	// map form {"type":"function","function":{"name":...}}). The answer is
	// read from a tool call in any choice of the response (Anthropic puts
	// each content block in its own choice); when the provider ignores the
	// forced choice and answers in text, a JSON object is parsed from the
	// text.
	CorrectionToolCalling CorrectionMode = iota
	// CorrectionJSON asks with llms.WithJSONMode(), puts the schema into the
	// prompt and parses the answer text, for models without tool calling.
	CorrectionJSON
)

// String returns "tool_calling" or "json".
func (m CorrectionMode) String() string {
	switch m {
	case CorrectionToolCalling:
		return "tool_calling"
	case CorrectionJSON:
		return "json"
	}
	return fmt.Sprintf("CorrectionMode(%d)", int(m))
}

// defaultMaxCorrectionRetries is the default of WithMaxCorrectionRetries:
// two validation attempts.
const defaultMaxCorrectionRetries = 2

// ExtractChainName is the name of the chain run that every correction of
// a [ToolNode] (and every extraction of package extract) reports to a
// callbacks.Handler given with [WithCallbacks]. It is the value of the
// "chain" key of the inputs and outputs maps.
const ExtractChainName = "saidex.extract_data"

// defaultExtractFunction is the name of the function an extraction of
// package extract binds in CorrectionToolCalling mode unless
// extract.WithFunction names another.
const defaultExtractFunction = "extract_data"

// ErrExtraction is wrapped by every [*ExtractionError].
var ErrExtraction = errors.New("saidex: extraction failed")

// ExtractionError is a correction's error ([CallReport].CorrectionErr), and
// what package extract returns, when the model gave no valid answer: it
// failed (a provider error such as HTTP 429 or a timeout, which is never
// retried), or none of its answers parsed and validated within the
// attempts. It matches [ErrExtraction] with errors.Is
// and unwraps to the model's or the parse error.
//
// Its message names no argument values; Issues may.
type ExtractionError struct {
	// Attempts is the number of answers requested from the model.
	Attempts int
	// Issues are the problems of the last answer that parsed (an answer
	// that parsed and passed would have been returned), kept when a later
	// answer did not parse or the model then failed; nil when no answer
	// parsed.
	Issues []Issue
	// Err is the model's error, or why the last answer could not be
	// parsed; nil when the last answer parsed but was invalid.
	Err error
}

// Error says how many attempts were made and why the last one failed.
func (e *ExtractionError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "saidex: extraction failed after %d attempt", e.Attempts)
	if e.Attempts != 1 {
		b.WriteByte('s')
	}
	if e.Err != nil {
		fmt.Fprintf(&b, ": %v", e.Err)
	} else if len(e.Issues) > 0 {
		fmt.Fprintf(&b, ": %d issue(s) remain", len(e.Issues))
	}
	return b.String()
}

// Unwrap returns ErrExtraction and Err (when set).
func (e *ExtractionError) Unwrap() []error {
	if e.Err == nil {
		return []error{ErrExtraction}
	}
	return []error{ErrExtraction, e.Err}
}

// correctionOption is an Option that sets the extraction settings of the
// correction stage.
type correctionOption func(*extractSettings)

func (f correctionOption) apply(c *config) { f(&c.correction.extract) }

// WithCorrectionMode sets how the model is asked for arguments: [CorrectionToolCalling]
// (the default) or [CorrectionJSON]. Another value is a configuration error.
func WithCorrectionMode(mode CorrectionMode) Option {
	return correctionOption(func(s *extractSettings) { s.mode = mode })
}

// WithMaxCorrectionRetries sets the number of validation attempts per
// extraction (per corrected call): the first answer and, while it stays
// invalid, retries that send the model its previous answer and that
// answer's issues. Provider errors are never retried. Default: 2. A
// negative value, or 0 together with a correction model, is a
// configuration error.
func WithMaxCorrectionRetries(n int) Option {
	return correctionOption(func(s *extractSettings) { s.maxAttempts = n })
}

// WithCallbacks reports every correction of the node's calls to h as a
// chain run (package extract's WithCallbacks does the same for an
// extraction): HandleChainStart with inputs {"chain": [ExtractChainName],
// "function": the function or tool name, "mode": the mode, "prompt": the
// first prompt}, then HandleChainEnd with outputs {"chain", "function",
// "arguments" (the valid JSON), "attempts", "token_usage"
// (map[string]TokenUsage)} or HandleChainError. Inputs and outputs carry
// argument values and conversation text: give them only to a tracer that
// may see them. In a node's correction, secret values (see [Secret]) are
// masked in both, as in the prompt the model sees. The model's own LLM callbacks are the model's business
// (langchaingo binds them when the client is built). Default: none.
func WithCallbacks(h callbacks.Handler) Option {
	return correctionOption(func(s *extractSettings) { s.handler = h })
}

// extractSettings configures one structured extraction.
type extractSettings struct {
	mode        CorrectionMode
	maxAttempts int
	handler     callbacks.Handler
	callOpts    []llms.CallOption
	name        string // function name bound in CorrectionToolCalling mode
	description string
	repair      repairOptions
	secret      *secretSchema // masks the arguments reported to handler (a correction's)
	scrub       *scrubber     // scrubs what handler gets of a correction (scrub.go)
}

func defaultExtractSettings() extractSettings {
	return extractSettings{
		mode:        CorrectionToolCalling,
		maxAttempts: defaultMaxCorrectionRetries,
		name:        defaultExtractFunction,
		description: "Record the extracted data.",
		repair: repairOptions{
			stripThinking: true,
			jsonRepair:    true,
			maxBytes:      DefaultMaxArgumentBytes,
		},
	}
}

func (s *extractSettings) validate(withModel bool) []error {
	var errs []error
	if s.mode != CorrectionToolCalling && s.mode != CorrectionJSON {
		errs = append(errs, fmt.Errorf("WithCorrectionMode(%d): unknown mode", int(s.mode)))
	}
	if s.maxAttempts < 0 || (s.maxAttempts == 0 && withModel) {
		errs = append(errs, fmt.Errorf("WithMaxCorrectionRetries(%d): must be positive with a correction model", s.maxAttempts))
	}
	return errs
}

func init() {
	extractbridge.Run = extract
	extractbridge.Decode = func(raw []byte, out any) error {
		return jsonv2.Unmarshal(raw, out, v1Options) // as a node's NewTool tool decodes (tool.go)
	}
	extractbridge.ConfigErr = func(t tools.Tool) error {
		if b, ok := t.(interface{ configErr() error }); ok {
			return b.configErr()
		}
		return nil
	}
}

// extract is package extract's JSON, reached through internal/extractbridge:
// the settings are the defaults, then opts. It asks model for one JSON
// value matching schema with prompt as the only message, and returns it
// as compact JSON.
func extract(ctx context.Context, model llms.Model, schema any, prompt string, opts []func(*extractbridge.Settings)) (json.RawMessage, error) {
	s := defaultExtractSettings()
	b := extractbridge.Settings{Mode: int(s.mode), MaxAttempts: s.maxAttempts, Name: s.name, Description: s.description}
	for _, o := range opts {
		o(&b)
	}
	s.mode, s.maxAttempts, s.handler, s.callOpts = CorrectionMode(b.Mode), b.MaxAttempts, b.Handler, b.CallOpts
	s.name, s.description = b.Name, b.Description
	if model == nil {
		return nil, fmt.Errorf("%w: extract: nil model", ErrInvalidConfig)
	}
	var errs []error
	if s.mode != CorrectionToolCalling && s.mode != CorrectionJSON {
		errs = append(errs, fmt.Errorf("extract.WithMode(%d): unknown mode", b.Mode))
	}
	if s.maxAttempts <= 0 {
		errs = append(errs, fmt.Errorf("extract.WithMaxAttempts(%d): must be positive", s.maxAttempts))
	}
	if s.name == "" {
		errs = append(errs, errors.New("extract.WithFunction: empty name"))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	cs, err := compileSchema(s.name, schema)
	if err != nil {
		return nil, fmt.Errorf("%w: extract: %w", ErrInvalidConfig, err)
	}
	check := func(_ context.Context, value any, _, _ int) ([]Issue, error) {
		return cs.validate(value), nil
	}
	res, err := s.run(ctx, model, cs, prompt, check)
	if err != nil {
		return nil, err
	}
	return json.RawMessage(res.json), nil
}

// extraction is the outcome of one extraction, valid or not.
type extraction struct {
	value    any    // the valid value
	json     string // its compact JSON
	attempts int
	issues   []Issue // of the last answer that parsed
	tokens   map[string]TokenUsage
}

// checkFunc validates a candidate value at attempt (1-based) of
// maxAttempts. A non-nil error is an interrupt: extraction stops and
// returns it wrapped in an interruptError.
type checkFunc func(ctx context.Context, value any, attempt, maxAttempts int) ([]Issue, error)

// interruptError carries an error of a checkFunc out of the loop.
type interruptError struct{ err error }

func (e *interruptError) Error() string { return e.err.Error() }
func (e *interruptError) Unwrap() error { return e.err }

// run is the extraction loop: ask, repair, check, retry. It returns
// ctx.Err() when ctx is done, an *interruptError when check fails, and an
// *ExtractionError when no valid answer came. The returned extraction
// carries the attempts and token counts in every case.
func (s *extractSettings) run(ctx context.Context, model llms.Model, cs *compiledSchema, prompt string, check checkFunc) (ext extraction, err error) {
	if s.handler != nil {
		s.handler.HandleChainStart(ctx, map[string]any{
			"chain": ExtractChainName, "function": s.name, "mode": s.mode.String(), "prompt": prompt,
		})
		defer func() {
			if err != nil {
				s.handler.HandleChainError(ctx, s.scrub.err(err))
				return
			}
			s.handler.HandleChainEnd(ctx, map[string]any{
				"chain": ExtractChainName, "function": s.name, "arguments": s.scrub.json(s.secret.shown(ext.json)),
				"attempts": ext.attempts, "token_usage": ext.tokens,
			})
		}()
	}

	opts := append([]llms.CallOption(nil), s.callOpts...)
	base := prompt
	switch s.mode {
	case CorrectionJSON:
		opts = append(opts, llms.WithJSONMode())
		schemaJSON, _ := jsonvalue.Encode(cs.doc)
		base = prompt + "\n\nAnswer with one JSON object, and nothing else, that matches this JSON Schema:\n" + schemaJSON
	default:
		opts = append(opts,
			llms.WithTools([]llms.Tool{{Type: "function", Function: &llms.FunctionDefinition{
				Name: s.name, Description: s.description, Parameters: cs.parameters(),
			}}}),
			llms.WithToolChoice(map[string]any{"type": "function", "function": map[string]any{"name": s.name}}),
		)
	}
	defaultName := correctionModelName(model, s.callOpts)
	repair := s.repair
	repair.schema = cs // quoted_bare_value, and missing closers placed (chooseReading)

	var (
		prev     string // the previous answer, for the retry prompt
		prevErr  error  // why the previous answer did not parse
		prevIssu []Issue
	)
	for attempt := 1; attempt <= s.maxAttempts; attempt++ {
		if err := ctx.Err(); err != nil {
			return ext, err
		}
		text := base
		if attempt > 1 {
			text = base + retrySection(prev, prevErr, prevIssu)
		}
		ext.attempts = attempt
		var resp *llms.ContentResponse
		var merr error
		if !watchCall(ctx, func() { // execute.go: the model may ignore ctx
			resp, merr = model.GenerateContent(ctx, []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, text)}, opts...)
		}) {
			return ext, ctx.Err()
		}
		if ctxErr := ctx.Err(); ctxErr != nil {
			return ext, ctxErr
		}
		if merr != nil {
			return ext, &ExtractionError{Attempts: attempt, Issues: ext.issues, Err: merr}
		}
		ext.tokens = addUsage(ext.tokens, responseUsage(resp, defaultName)) // stats.go

		answer, other := answerOf(resp, s.name)
		res, perr := repairArguments(answer, repair) // refuses an empty answer
		if other != "" {
			perr = fmt.Errorf("%w: it called %s, not %s", errEmptyAnswer, other, s.name)
		}
		if perr != nil {
			prev, prevErr, prevIssu = answer, perr, nil
			continue
		}
		issues, cerr := check(ctx, res.value, attempt, s.maxAttempts)
		if cerr != nil {
			return ext, &interruptError{err: cerr}
		}
		if len(issues) == 0 {
			canon, jerr := jsonvalue.Encode(res.value)
			if jerr != nil { // a decoded JSON value always encodes
				return ext, &ExtractionError{Attempts: attempt, Err: jerr}
			}
			ext.value, ext.json, ext.issues = res.value, canon, nil
			return ext, nil
		}
		ext.issues = issues
		prev, prevErr, prevIssu = answer, nil, issues
	}
	return ext, &ExtractionError{Attempts: ext.attempts, Issues: ext.issues, Err: prevErr}
}

// errEmptyAnswer is wrapped by the error of an answer that holds no text
// and calls another tool instead of the function. An empty answer without
// such a call fails as empty arguments do (a *MalformedArgumentsError).
var errEmptyAnswer = errors.New("the model's answer holds no arguments")

// maxPreviousAnswer caps the previous answer quoted in a retry prompt.
const maxPreviousAnswer = 4000

// retrySection is appended to the prompt of a retry: the previous answer
// and what is wrong with it.
func retrySection(prev string, perr error, issues []Issue) string {
	var b strings.Builder
	b.WriteString("\n\nYour previous answer was:\n")
	b.WriteString(truncateRunes(prev, maxPreviousAnswer))
	if perr != nil {
		fmt.Fprintf(&b, "\n\nIt could not be read as one JSON object: %v.", perr)
	} else {
		b.WriteString("\n\nIt has these problems:\n")
		shown, more := capIssues(issues)
		writeIssues(&b, shown, more)
	}
	b.WriteString("\nAnswer again with the problems fixed.")
	return b.String()
}

// answerOf returns the model's answer: the arguments of a tool call (or
// legacy function call) of function name in any choice, else the first
// non-empty text, which then goes through repair and validation like
// arguments. A call of any other tool is never taken as the answer (a
// client may ignore the forced tool choice, as langchaingo's anthropic
// client does); when there is neither a call of name nor text, other is
// the name of the first other tool called, for the retry prompt.
func answerOf(resp *llms.ContentResponse, name string) (answer, other string) {
	if resp == nil {
		return "", ""
	}
	for _, ch := range resp.Choices {
		if ch == nil {
			continue
		}
		for _, tc := range ch.ToolCalls {
			if tc.FunctionCall == nil {
				continue
			}
			if tc.FunctionCall.Name == name {
				return tc.FunctionCall.Arguments, ""
			}
			if other == "" {
				other = tc.FunctionCall.Name
			}
		}
		if ch.FuncCall != nil {
			if ch.FuncCall.Name == name {
				return ch.FuncCall.Arguments, ""
			}
			if other == "" {
				other = ch.FuncCall.Name
			}
		}
	}
	for _, ch := range resp.Choices {
		if ch != nil && strings.TrimSpace(ch.Content) != "" {
			return ch.Content, ""
		}
	}
	return "", other
}

// correctionModelName is the name token usage is keyed by when a response
// names no model (see WithCorrectionModel): the one set in opts with
// llms.WithModel, else the Go type of model. langchaingo's openai and
// anthropic clients report no model name in their responses and expose the
// one they were configured with through no method, so pass
// llms.WithModel(name) to WithCorrectionModel to key their usage by name.
func correctionModelName(model llms.Model, opts []llms.CallOption) string {
	if name := callOptionsModel(opts); name != "" {
		return name
	}
	if m, ok := model.(scrubbedModel); ok { // the node's wrapper (scrub.go)
		model = m.Model
	}
	return fmt.Sprintf("%T", model)
}

// callOptionsModel returns the model name set with llms.WithModel, or "".
func callOptionsModel(opts []llms.CallOption) string {
	var co llms.CallOptions
	for _, o := range opts {
		if o != nil {
			o(&co)
		}
	}
	return co.Model
}

// Keys of ContentChoice.GenerationInfo, in order of preference: openai,
// anthropic, googleai (which also sets the openai keys), and the snake-case
// names other clients use.
var (
	inputTokenKeys  = []string{"PromptTokens", "InputTokens", "input_tokens", "prompt_tokens"}
	outputTokenKeys = []string{"CompletionTokens", "OutputTokens", "output_tokens", "completion_tokens"}
	totalTokenKeys  = []string{"TotalTokens", "total_tokens"}
	modelNameKeys   = []string{"model", "Model", "model_name", "ModelName"}
)

// responseUsage returns the token usage of one response under the model's
// name: the name in GenerationInfo when the client reports one, else
// defaultName; nil when no choice reports usage. Usage is counted once per
// response, from the first choice that reports it: clients repeat the
// response's usage in every choice.
func responseUsage(resp *llms.ContentResponse, defaultName string) map[string]TokenUsage {
	if resp == nil {
		return nil
	}
	for _, ch := range resp.Choices {
		if ch == nil || len(ch.GenerationInfo) == 0 {
			continue
		}
		in, okIn := firstInt(ch.GenerationInfo, inputTokenKeys)
		out, okOut := firstInt(ch.GenerationInfo, outputTokenKeys)
		total, okTotal := firstInt(ch.GenerationInfo, totalTokenKeys)
		if !okIn && !okOut && !okTotal {
			continue
		}
		if !okTotal {
			total = in + out
		}
		name := defaultName
		for _, k := range modelNameKeys {
			if s, ok := ch.GenerationInfo[k].(string); ok && s != "" {
				name = s
				break
			}
		}
		return map[string]TokenUsage{name: {InputTokens: in, OutputTokens: out, TotalTokens: total}}
	}
	return nil
}

func firstInt(info map[string]any, keys []string) (int, bool) {
	for _, k := range keys {
		if v, ok := info[k]; ok {
			if n, ok := toInt(v); ok {
				return n, true
			}
		}
	}
	return 0, false
}

func toInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int32:
		return int(n), true
	case int64:
		return int(n), true
	case uint32:
		return int(n), true
	case uint64:
		return int(n), true
	case float64:
		return int(n), true
	case float32:
		return int(n), true
	case json.Number:
		i, err := n.Int64()
		return int(i), err == nil
	}
	return 0, false
}

// truncateRunes cuts s to at most n runes, marking a cut with "…".
func truncateRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos] + "…"
		}
		i++
	}
	return s
}
