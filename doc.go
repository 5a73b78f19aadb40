// Package saidex is drop-in tool-call middleware for agents built on
// github.com/tmc/langchaingo.
//
// A [ToolNode] takes the place of the tool executor in an agent loop, with
// any [llms.Model] (langchaingo's openai.New(), anthropic.New(), ...):
//
//	type WeatherArgs struct {
//		City string `json:"city"`
//	}
//	weather := saidex.NewTool("get_weather", "Current weather for a city.",
//		func(ctx context.Context, a WeatherArgs) (string, error) { return "sunny in " + a.City, nil })
//	node, err := saidex.NewToolNode([]tools.Tool{weather})
//	if err != nil {
//		return err
//	}
//	messages := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
//	for range 5 { // bound the turns
//		resp, err := model.GenerateContent(ctx, messages, llms.WithTools(node.Definitions()))
//		if err != nil {
//			return err
//		}
//		ai := saidex.AIMessageFromResponse(resp) // the text and tool calls of every choice
//		if !saidex.MessageHasToolCalls(ai) {
//			fmt.Println(resp.Choices[0].Content) // the answer
//			return nil
//		}
//		// The AI message with repaired arguments, then one tool message per call.
//		if messages, err = node.Invoke(ctx, append(messages, ai)); err != nil {
//			return err
//		}
//	}
//
// The package's Example runs this loop on a scripted model from package
// github.com/saidex/saidex-go/saidextest, which serves tests and examples
// without an API key.
//
// Models emit broken tool calls: argument JSON that does not parse, reasoning
// text around it, a string where an integer belongs, a misnamed key, a
// missing field, an unknown tool. A [ToolNode] sits where a stock tool
// executor sits and, for every pending tool call of the last AI message with
// tool calls, runs
//
//	repair -> validate -> correct -> resolve -> execute
//
// It guarantees that every tool call with a usable id is answered by exactly
// one tool message, so the next model turn is never rejected for an
// unanswered call id: a call already answered in the history is never run
// again, and a run stopped by a tool error returns the messages of the calls
// it answered in its [*ToolError] (see [ToolNode.Invoke]).
//
// In an agent loop the node also ends the loops a model gets stuck in: a
// call identical to one it already answered with feedback is answered at
// once (see [CallReport].Repeated), [WithFeedbackLimit] tells the agent to
// stop calling a tool whose calls got feedback in n turns in a row, and
// [WithRepeatLimit] stops a valid call that already ran n times. They read
// the conversation, so the node keeps no state between runs. No call of a
// reply cut by the output-token limit runs ([WithFinishReason]; [WrapModel]
// reads the finish reason itself), a call that holds several calls merged
// by a streaming accumulator never runs ([ErrMergedCalls]), and with
// [WithTextToolCalls] calls written into the reply's text become real
// calls.
//
// Each stage lives in the file named after it: cut.go (replies cut by the
// output limit), repair.go (and merged.go for merged calls), validate.go,
// correct.go, unresolved.go, repeats.go (the repeat limit), execute.go,
// then sanitize.go (the clean copy of the AI message) and stats.go
// (events); toolnode.go reads as the pipeline, limit.go reads the
// conversation for repeated calls and the feedback limit, and textcalls.go
// finds calls written as text.
// Beside them, schema.go compiles a tool's schema, issues.go turns
// validation errors into issues, feedback.go renders issue messages and
// feedback, validators.go runs tool validators, and secret.go keeps the
// values of [Secret] fields out of every text the node writes.
//
// Package github.com/saidex/saidex-go/agent runs a ToolNode in langchaingo's
// agents.Executor; it is separate so that this package does not import
// langchaingo's agents and chains. The module
// github.com/saidex/saidex-go/saidexmcp hands the tools of an MCP server,
// with their input schemas, to a ToolNode, and the module
// github.com/saidex/saidex-go/saidexeino guards the tool calls of
// github.com/cloudwego/eino agents with one, through [ToolNode.CheckCall]
// (and [ToolNode.Check] for a model's whole answer).
package saidex
