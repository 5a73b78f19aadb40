// Package saidex is drop-in tool-call middleware for agents built on
// github.com/tmc/langchaingo.
//
// A [ToolNode] takes the place of the tool executor in an agent loop. For
// every pending tool call of the last AI message with tool calls it runs
//
//	repair -> validate -> correct (optional) -> resolve -> execute
//
// By default, argument JSON that does not parse is repaired when exactly
// one reading exists (each repair a named [RepairStep]; a text with two
// readings is refused, never guessed); a call that breaks the tool's
// schema (a string where an integer belongs, a missing field) is not run
// and is answered with field-level feedback the model can act on; with
// [WithCorrectionModel] a small model corrects it inside the node instead.
// Every tool-call id gets exactly one tool message in the conversation a
// run returns, and a call already answered in the history is never run
// again.
//
// # The loop
//
// With any [llms.Model] (langchaingo's openai.New(), anthropic.New(), ...):
//
//	type WeatherArgs struct {
//		City string `json:"city"`
//	}
//	weather := saidex.NewTool("get_weather", "Current weather for a city.",
//		func(ctx context.Context, a WeatherArgs) (string, error) { return "sunny in " + a.City, nil })
//	node, err := saidex.NewToolNode([]tools.Tool{weather}, saidex.WithHandleToolErrors(true))
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
//		res, err := node.Run(ctx, append(messages, ai), saidex.WithFinishReason(resp.Choices[0].StopReason))
//		if err != nil {
//			return err
//		}
//		// res.Calls: a report per call. The next conversation: the AI
//		// message with repaired arguments, then one tool message per call.
//		messages = res.Messages()
//	}
//
// [ToolNode.Run] returns a [CallReport] per call and, through
// [Result.Messages], the next conversation; [ToolNode.Invoke] is the same
// run returning only the conversation, with the signature of a
// message-graph node. The package's Example runs this loop on a scripted
// model from package github.com/saidex/saidex-go/saidextest, which serves
// tests and examples without an API key.
//
// # Tool errors
//
// With [WithHandleToolErrors](true), as above, a tool's error becomes an
// "Error: ..." tool message (its report: [OutcomeExecuted], with IsError
// and Err set) and the run goes on. Without it only errors
// wrapping [ErrInvalidArguments] do: any other stops the run, which
// returns a [*ToolError] and no conversation; its Partial result holds the
// calls answered before it, and Partial.Messages() the conversation to
// keep (a new run on it runs only the rest).
//
// # Agent loops
//
// No call of a reply cut by the output-token limit runs
// ([WithFinishReason]); a call that holds several calls merged by a
// streaming accumulator never runs ([ErrMergedCalls]); a rejected call
// sent again is answered at once ([CallReport].Repeated);
// [WithFeedbackLimit] and [WithRepeatLimit] end loops on invalid and on
// repeated valid calls; [WithTextToolCalls] turns calls written into the
// reply's text into real calls. The node reads all of it from the
// conversation and keeps no state between runs.
//
// # Other ways in
//
// [WrapModel] checks the calls right after the model call;
// [ToolNode.Check] and [ToolNode.CheckCall] run the stages without
// executing, for an executor or middleware that runs each call itself;
// [SplitToolCalls] and [GroupToolResponses] adapt a conversation to
// langchaingo's Anthropic and Gemini clients. Packages in this module:
// github.com/saidex/saidex-go/agent runs a ToolNode in langchaingo's
// agents.Executor (separate, so that this package imports neither agents
// nor chains); github.com/saidex/saidex-go/stategraph fits it into a
// state graph; github.com/saidex/saidex-go/extract runs the correction
// loop on its own, for structured output. Modules of their own (each
// needs its own replace directive until the module is published):
// github.com/saidex/saidex-go/saidexmcp hands the tools of an MCP server
// to a ToolNode and guards an MCP server's tools/call requests (as
// github.com/saidex/saidex-go/saidexmcpgo does for mark3labs/mcp-go),
// github.com/saidex/saidex-go/saidexeino guards the tool calls of
// github.com/cloudwego/eino agents, and
// github.com/saidex/saidex-go/saidexanthropic and
// github.com/saidex/saidex-go/saidexopenai run the same pipeline in tool
// loops written on anthropic-sdk-go and openai-go.
//
// Each topic (soundness of repair, correction, secrets, providers, cost,
// limits, differences from the Python reference) has a page in the
// repository's docs directory.
package saidex
