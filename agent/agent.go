// Package agent runs a [saidex.ToolNode] as a langchaingo agent:
// [New] returns an [agents.Agent] for langchaingo's [agents.Executor] that
// advertises the node's tool schemas and runs every model turn's tool calls
// through the node, so that a broken call becomes an observation the model
// reads instead of aborting the run.
//
// It is a package of its own so that the saidex package does not import
// langchaingo's agents and chains packages, and their template engines:
// only a program that uses an executor compiles them.
package agent

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/schema"
	"github.com/tmc/langchaingo/tools"
)

// Agent is an [agents.Agent] for langchaingo's [agents.Executor] that runs
// the tool calls of every model turn through a [saidex.ToolNode].
//
// Each Plan sends the conversation (system message, the input, then one AI
// message and its tool messages per earlier turn) with the node's
// [saidex.ToolNode.Definitions] as tools, collects the tool calls of every choice
// of the response (Anthropic puts each content block in its own choice)
// into one AI message, and runs the whole pipeline on it: repair,
// validation, correction, resolution and concurrent execution. It then
// returns one action per answered call, in call order. A response without
// tool calls finishes the run with its text under the output key.
//
// The tools already ran inside Plan, so each action only delivers the call's
// tool message to the executor: the executor looks the action's tool up by
// name among [Agent.GetTools] — stand-ins with the node's tool names — and
// their Call returns the tool message the node produced. A call answered
// with feedback (unparseable or invalid arguments) is therefore an ordinary
// observation, and a broken call never aborts the run: the model reads the
// feedback in its next turn. The executor aborts only on an error of Plan
// itself: a model error, ctx, or an error the node is configured to return
// (a tool error without [saidex.WithHandleToolErrors], a validation error with
// raise, an interrupt).
//
// The intermediate steps stay faithful: an action's Tool, ToolID and
// ToolInput are the call's tool name, id and arguments as the sanitized AI
// message holds them (see [saidex.WithSanitizeMessages]): what ran, or for a call
// answered with feedback the model's object, the repaired object or "{}",
// secrets masked, so that the history rebuilt from the steps can be sent to
// any provider. Hooks, validators and tools see the executor's inputs map as
// the run's state ([saidex.StateFromContext]). Its Log is
// "saidex turn N" followed by a newline and the AI message's text; it
// groups the actions of one AI message.
//
// Two cases differ from the node's own answers:
//   - A call to a tool the node does not have is answered by the executor
//     itself, with its text "<name> is not a valid tool, try another one".
//     (A name that differs from a tool's only by case is answered by the
//     node.)
//   - A call dropped by the node (its id repeats an earlier id of the same
//     message) yields no action and is left out of the rebuilt history.
//
// An Agent is safe for concurrent use. The stand-in tools find a call's
// tool message by tool name and arguments: two executors running on one
// Agent at the same time that make the very same call (same tool, same
// arguments) may receive each other's result of that call. A stand-in
// called when no tool message is waiting (outside an executor) runs the call
// through the node itself. Tool messages no executor asks for (one that
// stopped between a Plan and its actions) are kept up to 1,024, then
// evicted oldest first.
type Agent struct {
	llm   llms.Model
	node  *saidex.ToolNode
	cfg   config
	tools []tools.Tool
	// byUpper maps the upper-cased tool names, as the executor looks them up.
	byUpper map[string]bool
	pending pendingObservations
}

var _ agents.Agent = (*Agent)(nil)

// Option configures an [Agent]. Options are applied and validated once, by
// [New].
type Option interface {
	apply(*config)
}

type optionFunc func(*config)

func (f optionFunc) apply(c *config) { f(c) }

type config struct {
	systemMessage string
	inputKey      string
	outputKey     string
	callOptions   []llms.CallOption
	prepare       func([]llms.MessageContent) []llms.MessageContent
}

// DefaultSystemMessage is the default of [WithSystemMessage].
const DefaultSystemMessage = "You are a helpful AI assistant. Use the tools when they help."

// WithSystemMessage sets the system message sent first on every turn; ""
// sends none. Default: [DefaultSystemMessage].
func WithSystemMessage(text string) Option {
	return optionFunc(func(c *config) { c.systemMessage = text })
}

// WithInputKey sets the input key holding the user's request, sent as the
// human message. Default: "input".
func WithInputKey(key string) Option {
	return optionFunc(func(c *config) { c.inputKey = key })
}

// WithOutputKey sets the key under which the final answer is returned.
// Default: "output".
func WithOutputKey(key string) Option {
	return optionFunc(func(c *config) { c.outputKey = key })
}

// WithCallOptions adds call options (model, temperature, …) to every
// model call of the agent, after llms.WithTools and before the options the
// executor's caller passes with chains.WithModel and the like. Default:
// none.
func WithCallOptions(opts ...llms.CallOption) Option {
	return optionFunc(func(c *config) { c.callOptions = append(c.callOptions, opts...) })
}

// WithMessageTransform sets a function applied to the conversation just
// before each model call (the agent keeps the untransformed conversation).
// With langchaingo's Anthropic client, which sends only the first part of
// an AI message, pass [saidex.SplitToolCalls]; with the Google AI client,
// whose tool responses to one AI message must arrive in one turn, pass
// [saidex.GroupToolResponses]. Default: none.
func WithMessageTransform(fn func(messages []llms.MessageContent) []llms.MessageContent) Option {
	return optionFunc(func(c *config) { c.prepare = fn })
}

// New returns an [Agent] that calls llm and handles its tool calls with
// node; run it with agents.NewExecutor(agent). It returns an error wrapping
// [saidex.ErrInvalidConfig] for a nil llm or node or an empty input or
// output key.
func New(llm llms.Model, node *saidex.ToolNode, opts ...Option) (*Agent, error) {
	cfg := config{systemMessage: DefaultSystemMessage, inputKey: "input", outputKey: "output"}
	for _, o := range opts {
		if o != nil {
			o.apply(&cfg)
		}
	}
	switch {
	case llm == nil:
		return nil, fmt.Errorf("%w: agent.New: nil model", saidex.ErrInvalidConfig)
	case node == nil:
		return nil, fmt.Errorf("%w: agent.New: nil tool node", saidex.ErrInvalidConfig)
	case cfg.inputKey == "":
		return nil, fmt.Errorf("%w: agent.WithInputKey: empty key", saidex.ErrInvalidConfig)
	case cfg.outputKey == "":
		return nil, fmt.Errorf("%w: agent.WithOutputKey: empty key", saidex.ErrInvalidConfig)
	}
	a := &Agent{llm: llm, node: node, cfg: cfg, byUpper: map[string]bool{}}
	a.pending.m = map[pendingKey][]pendingObs{}
	for _, def := range node.Definitions() {
		name := def.Function.Name
		a.tools = append(a.tools, &agentTool{agent: a, name: name, description: def.Function.Description})
		a.byUpper[strings.ToUpper(name)] = true
	}
	return a, nil
}

// GetInputKeys returns the input key (default "input").
func (a *Agent) GetInputKeys() []string { return []string{a.cfg.inputKey} }

// GetOutputKeys returns the output key (default "output").
func (a *Agent) GetOutputKeys() []string { return []string{a.cfg.outputKey} }

// GetTools returns one stand-in per tool of the node, with the tool's name
// and description. Their Call returns the tool message the node produced
// for the action being executed; see [Agent].
func (a *Agent) GetTools() []tools.Tool { return append([]tools.Tool(nil), a.tools...) }

// Plan calls the model on the conversation so far and either finishes with
// its text or runs its tool calls through the node and returns one action
// per answered call. See [Agent]. Plan is meant to be called by an
// executor: each action's tool message waits in the Agent until the
// executor calls the stand-in tool for it.
func (a *Agent) Plan(ctx context.Context, steps []schema.AgentStep, inputs map[string]string, options ...chains.ChainCallOption) ([]schema.AgentAction, *schema.AgentFinish, error) {
	msgs := a.conversation(steps, inputs)
	callOpts := make([]llms.CallOption, 0, 1+len(a.cfg.callOptions)+len(options))
	callOpts = append(callOpts, llms.WithTools(a.node.Definitions()))
	callOpts = append(callOpts, a.cfg.callOptions...)
	callOpts = append(callOpts, chains.GetLLMCallOptions(options...)...)
	send := msgs
	if a.cfg.prepare != nil {
		send = a.cfg.prepare(slices.Clone(msgs))
	}
	resp, err := a.llm.GenerateContent(ctx, send, callOpts...)
	if err != nil {
		return nil, nil, err
	}
	if resp == nil || len(resp.Choices) == 0 {
		return nil, nil, errors.New("saidex: agent: the model returned no choices")
	}
	ai := saidex.AIMessageFromResponse(resp)
	text := textOf(ai)
	if !saidex.MessageHasToolCalls(ai) {
		// Calls written as text, with saidex.WithTextToolCalls(true).
		if calls, rest := a.node.TextToolCalls(text); calls != nil {
			ai, text = llms.MessageContent{Role: llms.ChatMessageTypeAI}, rest
			if rest != "" {
				ai.Parts = append(ai.Parts, llms.TextPart(rest))
			}
			for _, c := range calls {
				ai.Parts = append(ai.Parts, c)
			}
		}
	}
	if !saidex.MessageHasToolCalls(ai) {
		return nil, &schema.AgentFinish{ReturnValues: map[string]any{a.cfg.outputKey: text}, Log: text}, nil
	}
	conv := append(msgs, ai)
	// The executor's inputs are the state hooks and validators see.
	res, err := a.node.Run(saidex.ContextWithState(ctx, inputs), conv, saidex.WithFinishReason(finishReason(resp)))
	if err != nil {
		return nil, nil, err
	}
	log := agentLog(countTurns(steps)+1, text)
	history := toolCalls(res.AIMessage) // sanitized: one per call not dropped, in order
	actions := make([]schema.AgentAction, 0, len(res.Calls))
	for _, rep := range res.Calls {
		if rep.Outcome == saidex.OutcomeDropped {
			continue
		}
		args := "{}"
		if len(history) > 0 {
			// One JSON object, whatever the model sent (see
			// saidex.WithSanitizeMessages).
			if fc := history[0].FunctionCall; fc != nil {
				args = fc.Arguments
			}
			history = history[1:]
		}
		act := schema.AgentAction{Tool: rep.Name, ToolInput: args, Log: log, ToolID: rep.ID}
		if a.byUpper[strings.ToUpper(act.Tool)] {
			// The executor will call the stand-in of that name with this input.
			a.pending.push(pendingKey{strings.ToUpper(act.Tool), executorInput(act.ToolInput)}, rep.Output)
		}
		actions = append(actions, act)
	}
	return actions, nil, nil
}

// conversation rebuilds the chat history from the executor's inputs and
// intermediate steps.
func (a *Agent) conversation(steps []schema.AgentStep, inputs map[string]string) []llms.MessageContent {
	var msgs []llms.MessageContent
	if a.cfg.systemMessage != "" {
		msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeSystem, a.cfg.systemMessage))
	}
	msgs = append(msgs, llms.TextParts(llms.ChatMessageTypeHuman, inputs[a.cfg.inputKey]))
	for i := 0; i < len(steps); {
		j := i + 1
		for j < len(steps) && steps[j].Action.Log == steps[i].Action.Log {
			j++
		}
		ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
		if text := agentLogText(steps[i].Action.Log); text != "" {
			ai.Parts = append(ai.Parts, llms.TextPart(text))
		}
		for _, s := range steps[i:j] {
			ai.Parts = append(ai.Parts, llms.ToolCall{
				ID: s.Action.ToolID, Type: "function",
				FunctionCall: &llms.FunctionCall{Name: s.Action.Tool, Arguments: s.Action.ToolInput},
			})
		}
		msgs = append(msgs, ai)
		for _, s := range steps[i:j] {
			msgs = append(msgs, llms.MessageContent{
				Role:  llms.ChatMessageTypeTool,
				Parts: []llms.ContentPart{llms.ToolCallResponse{ToolCallID: s.Action.ToolID, Name: s.Action.Tool, Content: s.Observation}},
			})
		}
		i = j
	}
	return msgs
}

// textOf returns the text of an AI message made by
// saidex.AIMessageFromResponse: its one text part, or "".
func textOf(ai llms.MessageContent) string {
	for _, p := range ai.Parts {
		if t, ok := p.(llms.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

// toolCalls returns the tool calls of a message, in order: its
// llms.ToolCall parts and its non-nil *llms.ToolCall parts.
func toolCalls(m llms.MessageContent) []llms.ToolCall {
	var out []llms.ToolCall
	for _, p := range m.Parts {
		switch p := p.(type) {
		case llms.ToolCall:
			out = append(out, p)
		case *llms.ToolCall:
			if p != nil {
				out = append(out, *p)
			}
		}
	}
	return out
}

// executorInput is the input the executor passes to a tool for an action's
// ToolInput.
func executorInput(toolInput string) string {
	return strings.TrimSuffix(toolInput, "\nObservation:")
}

const agentLogPrefix = "saidex turn "

func agentLog(turn int, text string) string {
	return agentLogPrefix + strconv.Itoa(turn) + "\n" + text
}

// agentLogText returns the AI message's text from an action's Log.
func agentLogText(log string) string {
	if !strings.HasPrefix(log, agentLogPrefix) {
		return log
	}
	_, text, _ := strings.Cut(log, "\n")
	return text
}

// countTurns counts the AI messages (groups of equal Log) in steps.
func countTurns(steps []schema.AgentStep) int {
	n := 0
	for i := range steps {
		if i == 0 || steps[i].Action.Log != steps[i-1].Action.Log {
			n++
		}
	}
	return n
}

type pendingKey struct{ tool, input string }

// maxPendingObservations bounds the tool messages an Agent holds for its
// executors. An executor consumes a Plan's messages right after the Plan;
// messages left behind (an executor that stopped between the two) are
// evicted oldest first beyond this bound, so a long-lived Agent cannot grow
// without limit.
const maxPendingObservations = 1024

// pendingObservations holds the tool messages Plan produced until the
// executor asks the stand-in tools for them, first in first out per key.
type pendingObservations struct {
	mu    sync.Mutex
	m     map[pendingKey][]pendingObs
	order []pendingRef // push order, for eviction; may hold consumed entries
	live  int          // entries in m
	seq   uint64
}

type pendingObs struct {
	seq uint64
	obs string
}

type pendingRef struct {
	key pendingKey
	seq uint64
}

func (p *pendingObservations) push(k pendingKey, obs string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.seq++
	p.m[k] = append(p.m[k], pendingObs{p.seq, obs})
	p.order = append(p.order, pendingRef{k, p.seq})
	p.live++
	for p.live > maxPendingObservations {
		ref := p.order[0]
		p.order = p.order[1:]
		if q := p.m[ref.key]; len(q) > 0 && q[0].seq == ref.seq {
			p.remove(ref.key, q)
		}
	}
	if len(p.order) > 2*maxPendingObservations {
		p.compact()
	}
}

func (p *pendingObservations) pop(k pendingKey) (string, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	q := p.m[k]
	if len(q) == 0 {
		return "", false
	}
	p.remove(k, q)
	return q[0].obs, true
}

// remove drops the first entry of k's queue q.
func (p *pendingObservations) remove(k pendingKey, q []pendingObs) {
	if len(q) == 1 {
		delete(p.m, k)
	} else {
		p.m[k] = q[1:]
	}
	p.live--
}

// compact drops the consumed entries from order.
func (p *pendingObservations) compact() {
	live := map[uint64]bool{}
	for _, q := range p.m {
		for _, o := range q {
			live[o.seq] = true
		}
	}
	kept := make([]pendingRef, 0, p.live)
	for _, ref := range p.order {
		if live[ref.seq] {
			kept = append(kept, ref)
		}
	}
	p.order = kept
}

// agentTool is the executor-facing stand-in of one tool of the node.
type agentTool struct {
	agent             *Agent
	name, description string
}

func (t *agentTool) Name() string        { return t.name }
func (t *agentTool) Description() string { return t.description }

// Call returns the tool message the node produced for the action being
// executed. Without one waiting, it runs the call through the node.
func (t *agentTool) Call(ctx context.Context, input string) (string, error) {
	if obs, ok := t.agent.pending.pop(pendingKey{strings.ToUpper(t.name), input}); ok {
		return obs, nil
	}
	msgs := []llms.MessageContent{{
		Role:  llms.ChatMessageTypeAI,
		Parts: []llms.ContentPart{llms.ToolCall{Type: "function", FunctionCall: &llms.FunctionCall{Name: t.name, Arguments: input}}},
	}}
	res, err := t.agent.node.Run(ctx, msgs)
	if err != nil {
		return "", err
	}
	return res.Calls[0].Output, nil
}

// finishReason returns the StopReason of the first choice of resp whose
// reason means the output limit cut the response, else "".
func finishReason(resp *llms.ContentResponse) string {
	for _, ch := range resp.Choices {
		if ch != nil && saidex.IsOutputLimit(ch.StopReason) {
			return ch.StopReason
		}
	}
	return ""
}
