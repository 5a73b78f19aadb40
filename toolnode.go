package saidex

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"time"

	"github.com/saidex/saidex-go/internal/jsonread"
	"github.com/saidex/saidex-go/internal/precheck"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// ToolNode executes the tool calls of an AI message the way a stock tool
// executor does, after repairing and validating them. It is safe for
// concurrent use by multiple goroutines.
//
// For every pending tool call of the last AI message with tool calls it
// runs
//
//	repair -> validate -> correct -> resolve -> execute
//
// and answers every call with exactly one tool message, in call order.
// Calls the history already answers are skipped (see [ToolNode.Invoke]); a
// tool error or a cancelled ctx that stops the run leaves the calls that
// had not returned unanswered (see [ToolError] and [CanceledError]). A
// call that repeats an id already used by an earlier call of the same
// message cannot be answered unambiguously, so it is dropped (not
// executed, not answered) and a warning is logged.
type ToolNode struct {
	cfg   config
	tools map[string]*boundTool
	order []string  // tool names in the order given, for messages and Definitions
	names toolIndex // secret names and did-you-mean, computed once (secret.go)
}

// boundTool is a tool with its compiled schema (nil for a plain tools.Tool).
type boundTool struct {
	tool       tools.Tool
	schema     *compiledSchema
	validators []Validator   // from WithValidator, in the order given
	secret     *secretSchema // where the schema keeps secrets; nil for none (sanitize.go)
	// target is where a NewTool tool's arguments are decoded while they
	// are checked (repair.go's validAsSent); nil for other tools, and for
	// argument types precheck.Checker.Decode does not read.
	target *precheck.Target
}

// NewToolNode returns a ToolNode that executes tools. Tools that implement
// [Tool] are validated against their schema, which is compiled here. Plain
// [tools.Tool] values are not validated: they receive their argument
// string as sent, or repaired when it repairs cleanly (see
// [ToolWithSchema]); a warning naming each of them is logged here, once.
//
// It returns an error wrapping [ErrInvalidConfig] for an invalid option, a
// nil tool, a duplicate tool name, a name that breaks the providers' rule,
// a schema past [MaxSchemaBytes], [MaxSchemaDepth] or [MaxSchemaObjects]
// (refused after one pass over its text), or a schema that does not
// compile. A tool name must be 1 to 64 ASCII
// letters, digits, '_' and '-': the rule of OpenAI's and Anthropic's APIs
// (^[a-zA-Z0-9_-]{1,64}$), which reject a request whose tools break it,
// and a subset of Gemini's. A name with a space, '/', '.', a line break or
// a NUL is refused here rather than by the provider at the first request.
func NewToolNode(ts []tools.Tool, opts ...Option) (*ToolNode, error) {
	n := &ToolNode{cfg: defaultConfig(), tools: make(map[string]*boundTool, len(ts))}
	for _, o := range opts {
		if o != nil {
			o.apply(&n.cfg)
		}
	}
	if err := n.cfg.validate(); err != nil {
		return nil, err
	}
	for i, t := range ts {
		if t == nil {
			return nil, fmt.Errorf("%w: tool %d is nil", ErrInvalidConfig, i)
		}
		name := t.Name()
		if err := checkToolName(name); err != nil {
			return nil, fmt.Errorf("%w: tool %d: %w", ErrInvalidConfig, i, err)
		}
		if _, dup := n.tools[name]; dup {
			return nil, fmt.Errorf("%w: duplicate tool name %q", ErrInvalidConfig, name)
		}
		if b, ok := t.(interface{ configErr() error }); ok && b.configErr() != nil {
			return nil, b.configErr() // a NewTool type no schema describes
		}
		bt := &boundTool{tool: t}
		if st, ok := t.(Tool); ok {
			s, err := compileSchema(name, st.Schema())
			if err != nil {
				return nil, fmt.Errorf("%w: tool %q: %w", ErrInvalidConfig, name, err)
			}
			bt.schema = s
			bt.secret = secretsOf(s.schema)
			if dc, ok := t.(decodedCaller); ok && s.precheck != nil {
				bt.target = dc.argTarget()
			}
		} else {
			n.cfg.log().Warn("saidex: the tool has no schema; its arguments are repaired but not validated (attach one with ToolWithSchema)",
				slog.String("tool", name))
		}
		n.tools[name] = bt
		n.order = append(n.order, name)
	}
	if err := n.bindValidators(); err != nil { // validate.go
		return nil, err
	}
	n.names = n.indexNames() // secret.go
	return n, nil
}

// maxToolNameLength is the longest tool name NewToolNode accepts.
const maxToolNameLength = 64

// checkToolName returns why name breaks the tool-name rule, nil when it
// does not.
func checkToolName(name string) error {
	const rule = "a tool name must be 1 to 64 ASCII letters, digits, '_' or '-' (^[a-zA-Z0-9_-]{1,64}$, as OpenAI and Anthropic require)"
	if name == "" {
		return fmt.Errorf("empty name: %s", rule)
	}
	if len(name) > maxToolNameLength {
		return fmt.Errorf("name %q has %d bytes: %s", quotedName(name), len(name), rule)
	}
	for i := 0; i < len(name); i++ {
		b := name[i]
		if !('a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9' || b == '_' || b == '-') {
			return fmt.Errorf("name %q: %s", quotedName(name), rule)
		}
	}
	return nil
}

// Definitions returns the tools as llms.Tool values (Type "function",
// Parameters a map[string]any) to pass to llms.WithTools, so the model sees
// the schema the node validates against. A plain tools.Tool without a schema
// is advertised, as langchaingo's agents do, with one string parameter
// "__arg1", whose value the node then passes to the tool.
func (n *ToolNode) Definitions() []llms.Tool {
	defs := make([]llms.Tool, 0, len(n.order))
	for _, name := range n.order {
		bt := n.tools[name]
		params := plainToolParameters()
		if bt.schema != nil {
			params = bt.schema.parameters()
		}
		defs = append(defs, llms.Tool{
			Type: "function",
			Function: &llms.FunctionDefinition{
				Name:        name,
				Description: bt.tool.Description(),
				Parameters:  params,
			},
		})
	}
	return defs
}

func plainToolParameters() map[string]any {
	return map[string]any{
		"type":       "object",
		"properties": map[string]any{"__arg1": map[string]any{"title": "__arg1", "type": "string"}},
		"required":   []any{"__arg1"},
	}
}

// ErrNoAIMessage is returned by [ToolNode.Run] and [ToolNode.Invoke] when the
// conversation holds no message with role llms.ChatMessageTypeAI.
var ErrNoAIMessage = errors.New("saidex: no AI message in the conversation")

// Outcome is what happened to one tool call.
type Outcome string

// Ready reports whether o says that the call passed the node's checks
// and runs with its arguments: [OutcomeExecuted], [OutcomeCorrected],
// [OutcomeSalvaged] or [OutcomeReady]. It is how a caller of
// [ToolNode.Check], [ToolNode.CheckCall] or [CheckedCalls] tells the calls
// it may run from those it answers with their Output. The outcomes that
// only a stopped run reports (failed, canceled, running, unanswered) are
// not ready.
func (o Outcome) Ready() bool {
	return o == OutcomeExecuted || o == OutcomeCorrected || o == OutcomeSalvaged || o == OutcomeReady
}

// The outcomes of a tool call.
const (
	// OutcomeExecuted: the call ran on the executor with the model's own
	// (possibly repaired) arguments.
	OutcomeExecuted Outcome = "executed"
	// OutcomeCorrected: the call ran with arguments from the correction model.
	OutcomeCorrected Outcome = "corrected"
	// OutcomeSalvaged: the call ran with arguments returned by an unresolved hook.
	OutcomeSalvaged Outcome = "salvaged"
	// OutcomeFeedback: the call was not executed; its tool message tells the
	// agent what to change, in at most 8 KiB.
	OutcomeFeedback Outcome = "feedback"
	// OutcomeFeedbackLimit: the call was not executed and was answered
	// with the final message of [WithFeedbackLimit]: the tool's calls were
	// answered with feedback in as many turns in a row as the limit
	// allows, so the agent is told to stop calling it this way.
	OutcomeFeedbackLimit Outcome = "feedback_limit"
	// OutcomeRepeatLimit: the call was not executed because the same call
	// (same tool, same arguments) already ran as many times in the
	// conversation as [WithRepeatLimit] allows; its tool message says so
	// and names the call that holds the result.
	OutcomeRepeatLimit Outcome = "repeat_limit"
	// OutcomeOutputLimit: the call was not executed because the reply that
	// holds it was cut by the model's output-token limit (see
	// [WithFinishReason]); its tool message says so and asks for a shorter
	// call. Every call of such a reply has it.
	OutcomeOutputLimit Outcome = "output_limit"
	// OutcomeReady: reported by [WrapModel] only, for a call that is valid
	// with the model's own (possibly repaired) arguments and ready to run.
	// Nothing ran; a tool node that receives the call executes it.
	OutcomeReady Outcome = "ready"
	// OutcomeDropped: the call was neither executed nor answered, because its
	// id repeats an earlier call's id in the same message.
	OutcomeDropped Outcome = "dropped"
	// OutcomeUnknownTool: the call names a tool the node does not have.
	// Nothing ran; its tool message is an error naming the node's tools:
	// every tool on a node of up to 20, else the 5 whose names are
	// closest to the one called, and how many tools there are.
	OutcomeUnknownTool Outcome = "unknown_tool"
	// OutcomeAlreadyAnswered: a tool message after the AI message already
	// answers the call (a retried step, a resumed history). It was not
	// executed and gets no new message; its report's Output is empty.
	OutcomeAlreadyAnswered Outcome = "already_answered"
	// OutcomeUnanswered: the run stopped (see [ToolError] and
	// [CanceledError]) before the call started: its tool did not run.
	//
	// This outcome and the three below occur only in the Partial result of
	// a stopped run. None of those calls has a tool message there, so
	// running the node again on a history that keeps Partial's messages
	// executes each of them: once for the first time, again for the
	// others.
	OutcomeUnanswered Outcome = "unanswered"
	// OutcomeFailed: the call's tool returned the error that stopped the
	// run, which Err holds and the [*ToolError] wraps.
	OutcomeFailed Outcome = "failed"
	// OutcomeCanceled: the call's tool had started and returned an error
	// (Err) after the run was stopped and its ctx cancelled: by a sibling's
	// tool error or by the caller's ctx. Its side effects may have
	// happened in part.
	OutcomeCanceled Outcome = "canceled"
	// OutcomeRunning: the call's tool had started and had not returned
	// when Run returned a [*CanceledError]. It runs on until it returns;
	// what it returns is dropped.
	OutcomeRunning Outcome = "running"
)

// CallReport describes what the node did with one tool call. [ToolNode.Run]
// returns one per call in [Result].Calls, [CheckedCalls] one per call
// [WrapModel] checked, and every [ToolNodeEvent] carries one per call,
// without the fields that can hold user data (see [ToolNodeEvent].Calls).
type CallReport struct {
	// Index is the call's position among the tool calls of the AI message.
	Index int
	// ID and Name are the call's id (possibly empty) and tool name.
	ID, Name string
	// RawArguments is the argument string exactly as the model sent it,
	// except when the call may hold secrets (its tool's schema has some,
	// or it names an unknown tool on a node with secrets: see [Secret]):
	// then secret values are masked as "**********" (a JSON string), and text
	// around them that cannot be read as JSON (prose, or everything after
	// an unescaped quote or a comment) is replaced by a marker such as
	// "[12 bytes not shown]", so that no secret value can show.
	RawArguments string
	// Arguments is the JSON the tool received (or, for a call reported
	// [OutcomeRunning], is running with), secret values masked as in
	// RawArguments (the tool itself received them); nil when the call did
	// not run, when it named an unknown tool, and when a plain tool's input
	// was not JSON (RawArguments holds it), so a report always marshals.
	Arguments json.RawMessage
	// Outcome is what happened to the call.
	Outcome Outcome
	// Prevalidated reports whether the call was checked against the tool's
	// schema before it could run: true for every call to a tool with a
	// schema (a call whose arguments do not parse fails that check), false
	// for plain and unknown tools, whose calls pass through, and for
	// dropped and already answered calls.
	Prevalidated bool
	// Repaired reports whether the repair stage changed the arguments, and
	// RepairSteps which steps it applied, in order; a conversion by
	// [CoercionLax] counts as the step [RepairCoerce].
	Repaired    bool
	RepairSteps []RepairStep
	// Issues are the field-level problems found by validation, including
	// those of tool validators, in the order of their paths; empty for a
	// valid call. A call keeps at most 50 issues, the first in path order;
	// its feedback says how many more there were.
	Issues []Issue
	// Flagged are the issues validators flagged without rejecting the
	// call (see Flag), for the arguments the call ended with.
	Flagged []Issue
	// Coercions lists the values converted by [CoercionLax] (see
	// [WithCoercion]) in the arguments the call ran with, in path order;
	// nil when none was.
	Coercions []Coercion
	// Repeated reports that the call sends again, unchanged (same tool,
	// the same argument string or arguments that repair to the same JSON
	// value), a call the node answered with feedback earlier in the
	// conversation (see [WithFeedbackLimit] for how the node recognises
	// its feedback). Such a call is not sent to the correction model nor
	// to the unresolved hook: it is answered at once with its outcome
	// [OutcomeFeedback] (or [OutcomeFeedbackLimit] when it also reaches
	// the limit, which wins), by a message saying that it is identical to
	// the rejected call and repeating the issues.
	Repeated bool
	// Output is the content of the call's tool message ("" when the call
	// has no new message: dropped, already answered, unanswered).
	Output string
	// IsError reports whether the tool message answers with an error:
	// feedback (or the feedback, output or repeat limit), an unknown tool,
	// or a tool error turned into a message.
	IsError bool
	// Err is the error behind an error answer: the repair error of an
	// argument string that could not be parsed, or the tool's error.
	Err error
	// CorrectionAttempted reports whether the call was sent to the
	// correction model; CorrectionRetries how many answers after the first
	// it asked for; CorrectionErr why correction failed (an
	// [*ExtractionError] or a [*PanicError]), nil when it succeeded or did
	// not run.
	CorrectionAttempted bool
	CorrectionRetries   int
	CorrectionErr       error
	// Tokens is the token usage of the call's correction, per model name;
	// nil without correction or usage data.
	Tokens map[string]TokenUsage
	// Durations is the time the call spent in each stage it went through:
	// Repair, Validate, Correct (all attempts, including model latency) and
	// Execute (the tool's Call); Resolve and Sanitize are timed for the
	// whole Run only (see [ToolNodeEvent].Stages) and stay zero. Times are
	// measured only for a Run that had a listener when it started (see
	// [ToolNodeEvent]); otherwise, and in the reports of [CheckedCalls],
	// they are zero.
	Durations StageDurations
}

// Result is what [ToolNode.Run] produced for one AI message: a report per
// call, the new tool messages and the sanitized AI message. Its
// [Result.Messages] puts them back into the conversation, as
// [ToolNode.Invoke] returns it.
type Result struct {
	// AIMessageIndex is the index, in the conversation given to Run, of the
	// AI message whose calls were handled.
	AIMessageIndex int
	// ToolMessages holds one tool message per call this Run answered, in
	// call order: none for a call already answered in the conversation.
	// Each has role llms.ChatMessageTypeTool and exactly one
	// llms.ToolCallResponse part.
	ToolMessages []llms.MessageContent
	// Calls reports on every tool call of the AI message, in call order.
	Calls []CallReport
	// AIMessage is the sanitized copy of the AI message (see
	// [WithSanitizeMessages]), with its own Parts slice and FunctionCall
	// values; it is computed whatever that option says. AIMessageChanged
	// reports whether it differs from the message given to Run.
	AIMessage        llms.MessageContent
	AIMessageChanged bool

	conversation []llms.MessageContent // the conversation given to Run, for Messages
	keepAI       bool                  // WithSanitizeMessages(false): Messages keeps the AI message
}

// Messages returns the next conversation: the conversation given to
// [ToolNode.Run], with the AI message replaced by [Result].AIMessage
// (unless [WithSanitizeMessages](false)) and [Result].ToolMessages placed
// after it, the block of tool messages in call order; a copy of the
// conversation when the run answered no call. It is exactly what
// [ToolNode.Invoke] returns, which is Run followed by Messages: one run
// gives both the reports ([Result].Calls) and the conversation to send to
// the model next.
//
// It returns a new slice each time and modifies neither the conversation
// nor r. The conversation is read when Messages is called, not copied by
// Run: do not modify it in between.
//
// On the Partial result of a stopped run (a [*ToolError] or a
// [*CanceledError]) it returns the conversation with the messages of the
// calls answered before the run stopped: the other calls' ids are still
// unanswered, and running the node again on that conversation runs exactly
// them. A Result not made by Run returns its conversation as given (nil
// for the zero Result).
func (r *Result) Messages() []llms.MessageContent {
	if len(r.ToolMessages) == 0 || r.AIMessageIndex < 0 || r.AIMessageIndex >= len(r.conversation) {
		return slices.Clone(r.conversation)
	}
	out := placeToolMessages(r.conversation, r.AIMessageIndex, r.ToolMessages) // history.go
	if r.AIMessageChanged && !r.keepAI {
		out[r.AIMessageIndex] = r.AIMessage
	}
	return out
}

// Invoke runs the node on a conversation and returns a new conversation:
// the messages given, with the AI message replaced by its sanitized copy
// (see [WithSanitizeMessages]), and one tool message per pending tool call
// of that AI message, placed right after it in call order. The input slice
// is not modified.
//
// The AI message is the last one with tool calls. Accepted conversations:
//
//   - it is the last message: every call is pending (the usual case);
//   - it is followed only by tool messages: calls they already answer are
//     skipped (not executed, no new message), and the pending calls' tool
//     messages join them, the whole block in call order, as OpenAI and
//     Anthropic require. So a retried or resumed step runs each call once;
//   - every call is answered: nothing runs and the conversation is
//     returned unchanged, whatever follows (Invoke is idempotent);
//   - there is no AI message with tool calls: the conversation is returned
//     unchanged.
//
// A conversation in which a message other than a tool message follows the
// AI message while some of its calls are pending is refused with an error
// matching [ErrMisplacedMessage], before anything runs.
//
// Its signature is that of a message-graph node, so it can be added to a
// graph directly. Invoke is [ToolNode.Run] followed by [Result.Messages]:
// call those two instead to keep the reports as well. Errors are those of
// Run; with an error Invoke returns no conversation: a run stopped by a
// tool error or a cancellation has its Partial result on the error, whose
// Messages hold the calls it answered. Pass the caller's graph state with
// [ContextWithState].
func (n *ToolNode) Invoke(ctx context.Context, messages []llms.MessageContent) ([]llms.MessageContent, error) {
	res, err := n.Run(ctx, messages)
	if err != nil {
		return nil, err
	}
	return res.Messages(), nil
}

// RunOption configures one call of [ToolNode.Run].
type RunOption interface {
	applyRun(*runConfig)
}

type runConfig struct {
	outputLimit bool // WithFinishReason: the reply was cut by the output limit (cut.go)
}

// newRunConfig applies opts. A Run without options does not allocate one.
func newRunConfig(opts []RunOption) runConfig {
	if len(opts) == 0 {
		return runConfig{}
	}
	c := new(runConfig)
	for _, o := range opts {
		if o != nil {
			o.applyRun(c)
		}
	}
	return *c
}

// Run handles the pending tool calls of the last AI message with tool calls
// and returns their tool messages and a report per call; the conversations
// it accepts, and how it treats calls already answered, are those of
// [ToolNode.Invoke]. messages is not modified.
//
// It returns [ErrNoAIMessage] when there is no AI message, an error
// matching [ErrMisplacedMessage] for a conversation the provider would
// reject, a [*CanceledError] (matching ctx.Err()) as soon as ctx is done
// before every call is answered, even while a callee that ignores ctx is
// still running, and a [*ToolError] when a tool fails in a way the node is
// configured not to answer (see [WithHandleToolErrors]). The Partial
// result of both holds the calls answered before the run stopped and
// reports the others (see [OutcomeUnanswered]); a run whose calls all
// returned stands, even if ctx is done by then. It returns a
// [*ToolCallValidationError] (or a [*FeedbackLimitError] or
// [*RepeatLimitError]) with [WithOnUnresolved]([UnresolvedRaise]), an error
// wrapping an unresolved hook's error, and an interrupt (see [ErrInterrupt])
// unchanged; all of them before any call executes, except an interrupt
// from a tool.
func (n *ToolNode) Run(ctx context.Context, messages []llms.MessageContent, opts ...RunOption) (*Result, error) {
	rcfg := newRunConfig(opts)
	if err := ctx.Err(); err != nil {
		return nil, &CanceledError{Err: err}
	}
	aiIndex := callMessage(messages) // history.go
	if aiIndex < 0 {
		return nil, ErrNoAIMessage
	}
	r := &run{messages: messages, aiIndex: aiIndex, timed: n.listened(ctx), decode: true,
		outputLimit: rcfg.outputLimit || markedCut(messages[aiIndex])} // cut.go
	r.start = r.now()               // zero when nobody listens (stats.go)
	r.state = StateFromContext(ctx) // unresolved.go
	calls := n.collect(messages[aiIndex])
	pending, err := skipAnswered(messages, aiIndex, calls) // history.go
	if err != nil {
		return nil, err
	}

	if pending {
		if err := n.prepare(ctx, r, calls); err != nil {
			if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
				return nil, &CanceledError{Err: ctxErr} // nothing executed
			}
			return nil, n.sealErr(r, calls, err) // scrub.go
		}
		if err := n.execute(ctx, r, calls); err != nil { // execute.go
			return nil, n.sealErr(r, calls, n.stopped(ctx, r, calls, err))
		}
	}
	r.lap(&r.stages.Execute)
	res := n.assemble(r, calls)
	n.sanitize(r, res, calls)  // sanitize.go
	n.emit(ctx, r, res, calls) // stats.go
	return res, nil
}

// prepare runs the stages before execution: after it every call is valid
// (ready to execute), answered (feedback) or dropped. WrapModel runs it
// alone.
func (n *ToolNode) prepare(ctx context.Context, r *run, calls []*call) error {
	n.cutShort(r, calls) // cut.go: a reply cut by the output limit runs no call
	for _, c := range calls {
		if c.status != statusPending {
			continue
		}
		t0 := r.now()
		if r.decode && n.decodeAsSent(c) { // repair.go: valid as sent, and decoded
			c.durations.Repair = r.since(t0)
			continue
		}
		n.repair(c) // repair.go
		t1 := r.now()
		if err := n.validate(ctx, r, c); err != nil { // validate.go
			return err
		}
		c.durations.Repair, c.durations.Validate = t1.Sub(t0), r.since(t1)
	}
	r.lap(nil)                                       // repair and validation are timed per call
	n.gather(r, calls)                               // scrub.go: the secret values of every call
	n.recall(r, calls)                               // limit.go: repeated calls and the feedback limit
	if err := n.correct(ctx, r, calls); err != nil { // correct.go
		return err
	}
	r.lap(&r.stages.Correct)
	err := n.resolve(ctx, r, calls) // unresolved.go
	r.lap(&r.stages.Resolve)
	if err != nil {
		return err
	}
	return n.repeats(r, calls) // repeats.go: WithRepeatLimit
}

// run is the state of one Run shared by the stages.
type run struct {
	messages []llms.MessageContent
	aiIndex  int
	state    any // the caller's graph state: ContextWithState

	outputLimit bool // the reply was cut by the output limit (WithFinishReason, cut.go)
	decode      bool // the run executes its calls: the repair stage may decode them (validAsSent)

	// Timing for the run's event (stats.go), measured only when timed.
	timed       bool
	start, last time.Time
	stages      StageDurations

	// The secret values of the run's calls and their scrubber (scrub.go).
	secretVals map[string]bool
	secretRead map[string]bool // the argument texts gather has read
	scrub      *scrubber
}

// callStatus is where a call stands in the pipeline.
type callStatus int

const (
	statusPending  callStatus = iota // not yet repaired and validated
	statusValid                      // ready to execute
	statusInvalid                    // needs correction, a hook or feedback
	statusAnswered                   // its tool message content is set
	statusDropped                    // neither executed nor answered
	statusSkipped                    // answered before this run (history.go)
	statusRunning                    // its tool started and has not returned (execute.go)
	statusStopped                    // the run stopped before answering it (execute.go)
)

// call is one tool call travelling through the pipeline.
type call struct {
	index    int
	id, name string
	raw      string
	tool     *boundTool // nil for an unknown tool
	noFunc   bool       // the ToolCall had a nil FunctionCall
	cut      bool       // its reply was cut by the output limit (cut.go)
	merged   []string   // the tool names its name glues together (merged.go)

	// Set by repair: the decoded argument value and the JSON the tool gets.
	value    any
	args     string
	repaired bool
	rawValid bool // valid as sent, checked on the raw bytes: value is nil (repair.go)
	decoded  any  // for a rawValid call of a NewTool tool: its arguments decoded (a *A), or nil
	steps    []RepairStep
	err      error // why the arguments could not be parsed

	coercions []Coercion // set when CoercionLax converted the arguments (coerce.go)

	issues     []Issue // at most maxIssues (bounds.go)
	moreIssues int     // how many issues past maxIssues were left out
	flagged    []Issue // issues validators flagged without rejecting (set by check)
	status     callStatus
	outcome    Outcome

	// Set by recall (limit.go) for an invalid call.
	repeated  bool // identical to a call answered with feedback before
	overLimit bool // its tool's feedback streak reached WithFeedbackLimit
	streak    int  // the turns in a row its tool's calls got feedback

	// Set by the correction stage.
	correctionAttempted bool
	correctionRetries   int
	tokens              map[string]TokenUsage // per model name
	correctionErr       error                 // why correction failed
	original            any                   // value before correction (set when attempted)

	durations StageDurations // per stage: Repair, Validate (Run), Correct, Execute

	output  string
	isError bool

	ctx callContext // the context its tool runs with (execute.go)

	unknownSecrets *secretSchema // for an unknown tool: where its call may keep secrets (secret.go)
	scrub          *scrubber     // the run's, set when the call's texts leave the node (scrub.go)
	reads          *callReads    // what the secret handling read of its texts, once (secret.go)
}

// collect lists the tool calls of the AI message and drops repeated ids.
func (n *ToolNode) collect(ai llms.MessageContent) []*call {
	var calls []*call
	var backing []call // one allocation for every call
	if len(ai.Parts) == 1 {
		// A message of one part, the most common: the call and the slice
		// that points to it in one allocation.
		one := new(struct {
			c [1]call
			p [1]*call
		})
		calls, backing = one.p[:0], one.c[:]
	} else {
		calls = make([]*call, 0, len(ai.Parts))
		backing = make([]call, len(ai.Parts))
	}
	// Ids seen so far: the calls before c are scanned while there are few
	// of them; past maxScannedIDs a set, filled once, answers.
	var seen map[string]bool
	repeats := func(c *call) bool {
		if len(calls) <= maxScannedIDs {
			for _, prev := range calls[:len(calls)-1] {
				if prev.id == c.id {
					return true
				}
			}
			return false
		}
		if seen == nil {
			seen = make(map[string]bool, len(ai.Parts))
			for _, prev := range calls[:len(calls)-1] {
				seen[prev.id] = true
			}
		}
		return seen[c.id]
	}
	for _, p := range ai.Parts {
		tc, ok := asToolCall(p)
		if !ok {
			continue
		}
		c := &backing[len(calls)] // zero: set the fields, not the whole (large) struct
		c.index, c.id, c.outcome = len(calls), tc.ID, OutcomeExecuted
		if tc.FunctionCall == nil {
			c.noFunc = true
		} else {
			c.name, c.raw = tc.FunctionCall.Name, tc.FunctionCall.Arguments
			c.tool = n.tools[c.name]
		}
		calls = append(calls, c)
		if c.id != "" && repeats(c) {
			c.status, c.outcome = statusDropped, OutcomeDropped
			n.cfg.log().Warn("saidex: dropped a tool call whose id repeats an earlier call's id",
				slog.String("tool", c.name), slog.String("call_id", c.id), slog.String("outcome", string(OutcomeDropped)))
		} else {
			n.classify(c) // check.go
		}
		if seen != nil {
			seen[c.id] = true
		}
	}
	return calls
}

// maxScannedIDs is how many calls collect compares a call's id with one
// by one before it builds a set of them.
const maxScannedIDs = 16

// toolCallsOf returns the tool calls of a message, in order: its
// llms.ToolCall parts and its non-nil *llms.ToolCall parts.
func toolCallsOf(m llms.MessageContent) []llms.ToolCall {
	var out []llms.ToolCall
	for _, p := range m.Parts {
		if tc, ok := asToolCall(p); ok {
			out = append(out, tc)
		}
	}
	return out
}

var errNoFunctionCall = errors.New("the tool call names no function")

// assemble builds the tool messages and reports in call order.
func (n *ToolNode) assemble(r *run, calls []*call) *Result {
	var res *Result
	var parts []llms.ContentPart // one backing array for every message's single part
	if len(calls) == 1 {
		// A message of one call, the most common: one allocation for the
		// result, its report, its tool message and that message's part.
		one := new(struct {
			res   Result
			calls [1]CallReport
			msgs  [1]llms.MessageContent
			parts [1]llms.ContentPart
		})
		res, parts = &one.res, one.parts[:]
		*res = Result{AIMessageIndex: r.aiIndex, Calls: one.calls[:], ToolMessages: one.msgs[:0],
			conversation: r.messages, keepAI: n.cfg.keepMessages}
	} else {
		res = &Result{AIMessageIndex: r.aiIndex, Calls: make([]CallReport, len(calls)),
			ToolMessages: make([]llms.MessageContent, 0, len(calls)),
			conversation: r.messages, keepAI: n.cfg.keepMessages}
		parts = make([]llms.ContentPart, len(calls))
	}
	n.seal(r, calls) // scrub.go: the one exit of the calls' texts
	var args []byte  // one backing array for every report's Arguments
	for i, c := range calls {
		rep := &res.Calls[i] // zero: filled in place
		c.fillReport(rep)
		if (c.ran() || c.started()) && c.hasJSONArguments() {
			if args == nil {
				args = make([]byte, 0, argumentsLen(calls))
			}
			start := len(args)
			args = append(args, c.shownJSON(c.args)...)                      // secret values masked, as jsonArguments
			rep.Arguments = json.RawMessage(args[start:len(args):len(args)]) // capped: appending never touches the next
		}
		if c.status != statusAnswered {
			continue // dropped, already answered, or left unanswered by a stopped run
		}
		parts[i] = llms.ToolCallResponse{ToolCallID: c.id, Name: c.name, Content: c.output}
		res.ToolMessages = append(res.ToolMessages, llms.MessageContent{
			Role:  llms.ChatMessageTypeTool,
			Parts: parts[i : i+1 : i+1], // capped: appending to one message never touches the next
		})
	}
	return res
}

// report returns the call's report, without Arguments: a Result sets them
// for a call that ran, WrapModel for a call ready to run. Its RepairSteps
// and Coercions are its own; Issues, Flagged and Tokens are the call's.
func (c *call) report() CallReport {
	var rep CallReport
	c.fillReport(&rep)
	return rep
}

// fillReport sets the fields of rep, a zero report, as report returns
// them: in place, so that a report in a Result's slice is not copied, and
// fields left zero are not written.
func (c *call) fillReport(rep *CallReport) {
	rep.Index, rep.ID, rep.Name, rep.RawArguments = c.index, c.id, c.name, c.shown(c.raw)
	rep.Outcome, rep.Repaired = c.outcome, c.repaired
	if c.steps != nil {
		rep.RepairSteps = slices.Clone(c.steps)
	}
	rep.Prevalidated = c.tool != nil && c.tool.schema != nil && c.status != statusDropped && c.status != statusSkipped
	if c.issues != nil || c.flagged != nil || c.coercions != nil {
		rep.Issues, rep.Flagged, rep.Coercions = c.issues, c.flagged, slices.Clone(c.coercions)
	}
	rep.Repeated, rep.Output, rep.IsError = c.repeated, c.output, c.isError
	if c.err != nil {
		rep.Err = c.err
	}
	if c.correctionAttempted || c.correctionRetries != 0 || c.correctionErr != nil || c.tokens != nil {
		rep.CorrectionAttempted, rep.CorrectionRetries = c.correctionAttempted, c.correctionRetries
		rep.CorrectionErr, rep.Tokens = c.correctionErr, c.tokens
	}
	rep.Durations = c.durations
}

// jsonArguments returns the arguments the tool received when they are JSON
// (always, for a tool with a schema), and nil otherwise; secret values
// masked.
func (c *call) jsonArguments() json.RawMessage {
	if !c.hasJSONArguments() {
		return nil
	}
	return json.RawMessage(c.shownJSON(c.args))
}

// runArguments is jsonArguments with secret values in clear: what a caller
// that runs the call itself needs ([ToolNode.Check], WrapModel's response).
func (c *call) runArguments() json.RawMessage {
	if c.tool == nil || (c.tool.schema == nil && !jsonread.Valid(c.args)) {
		return nil
	}
	return json.RawMessage(c.args)
}

// hasJSONArguments reports whether the arguments the tool received are
// JSON (always, for a tool with a schema).
func (c *call) hasJSONArguments() bool {
	return c.tool != nil && (c.tool.schema != nil || jsonread.Valid(c.args))
}

// argumentsLen bounds the length of the arguments of every call that ran
// with JSON arguments, for assemble's one backing array (it does not scan
// a plain tool's arguments). It is a capacity hint: masked secrets may be
// longer than the values they hide, and append then grows the array.
func argumentsLen(calls []*call) int {
	n := 0
	for _, c := range calls {
		if (c.ran() || c.started()) && c.tool != nil {
			n += len(c.args)
		}
	}
	return n
}

// started reports whether the call's tool started in a run that stopped
// before it was answered.
func (c *call) started() bool {
	return c.status == statusStopped && c.outcome != OutcomeUnanswered
}

// ran reports whether the call was handed to the executor.
func (c *call) ran() bool {
	return c.status == statusAnswered && c.outcome != OutcomeFeedback && c.outcome != OutcomeFeedbackLimit &&
		c.outcome != OutcomeOutputLimit && c.outcome != OutcomeRepeatLimit && c.outcome != OutcomeDropped
}

// toolNames lists the node's tool names for error messages.
func (n *ToolNode) toolNames() string {
	return strings.Join(n.order, ", ")
}
