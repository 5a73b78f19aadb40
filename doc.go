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
//		choice := resp.Choices[0]
//		if len(choice.ToolCalls) == 0 {
//			fmt.Println(choice.Content) // the answer
//			return nil
//		}
//		ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
//		for _, tc := range choice.ToolCalls {
//			ai.Parts = append(ai.Parts, tc)
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
// Each stage lives in the file named after it: repair.go, validate.go,
// correct.go, unresolved.go, execute.go, then sanitize.go (the clean copy of
// the AI message) and stats.go (events); toolnode.go reads as the pipeline.
// Beside them, schema.go compiles a tool's schema, issues.go turns
// validation errors into issues, feedback.go renders issue messages and
// feedback, and validators.go runs tool validators.
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
