package saidex_test

import (
	"context"
	"fmt"

	saidex "github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// WeatherArgs is the argument object of the get_weather tool; NewTool
// reflects its JSON Schema.
type WeatherArgs struct {
	City string `json:"city"`
}

// A ToolNode in an agent loop: the model's tool calls go through the node,
// which repairs, validates and runs them and answers each with one tool
// message, until the model answers in text. Run returns a report per call,
// and its result's Messages the next conversation. Here a scripted model (package
// saidextest) sends a call with broken JSON, then answers; with a real
// model (openai.New(), anthropic.New()...) the loop is the same.
func Example() {
	ctx := context.Background()
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a WeatherArgs) (string, error) {
			return "sunny in " + a.City, nil
		})
	// A tool's error becomes an "Error: ..." tool message the model reads;
	// without this option it stops the run (see ToolError).
	node, err := saidex.NewToolNode([]tools.Tool{weather}, saidex.WithHandleToolErrors(true))
	if err != nil {
		fmt.Println(err)
		return
	}
	model := saidextest.NewModel(saidextest.Sequence(
		saidextest.ToolCalls(saidextest.Call("call_1", "get_weather", `{'city': 'Paris',}`)),
		saidextest.Text("It is sunny in Paris."),
	))

	messages := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	for range 5 { // bound the turns
		resp, err := model.GenerateContent(ctx, messages, llms.WithTools(node.Definitions()))
		if err != nil {
			fmt.Println(err)
			return
		}
		ai := saidex.AIMessageFromResponse(resp)
		if !saidex.MessageHasToolCalls(ai) {
			printHistory(messages)
			fmt.Println("answer:", resp.Choices[0].Content)
			return
		}
		res, err := node.Run(ctx, append(messages, ai))
		if err != nil { // a cancelled ctx, an interrupt
			fmt.Println(err)
			return
		}
		for _, c := range res.Calls {
			fmt.Println("report:", c.ID, c.Name, c.Outcome, c.RepairSteps)
		}
		// The AI message with repaired arguments, then one tool message per call.
		messages = res.Messages()
	}
	// Output:
	// report: call_1 get_weather executed [json_repair]
	// human: Weather in Paris?
	// ai: get_weather {"city":"Paris"}
	// tool: sunny in Paris
	// answer: It is sunny in Paris.
}

// printHistory prints one line per message part.
func printHistory(messages []llms.MessageContent) {
	for _, m := range messages {
		for _, p := range m.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				fmt.Printf("%s: %s\n", m.Role, p.Text)
			case llms.ToolCall:
				fmt.Printf("%s: %s %s\n", m.Role, p.FunctionCall.Name, p.FunctionCall.Arguments)
			case llms.ToolCallResponse:
				fmt.Printf("%s: %s\n", m.Role, p.Content)
			}
		}
	}
}
