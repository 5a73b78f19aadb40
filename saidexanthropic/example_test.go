package saidexanthropic_test

import (
	"context"
	"fmt"
	"strings"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/anthropics/anthropic-sdk-go/v2/toolrunner"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexanthropic"
	"github.com/saidex/saidex-go/saidexanthropic/anthropictest"
	"github.com/tmc/langchaingo/tools"
)

// A tool loop on the SDK's client, guarded: every tool_use block is
// answered in one user message, the repaired input is what goes back to
// the API, and the call that breaks the schema gets feedback instead of
// running. The local server speaks the Messages API, so no key is needed.
func ExampleGuard_Run() {
	ctx := context.Background()
	type WeatherArgs struct {
		City string `json:"city"`
		Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
	}
	weather := saidex.NewTool("get_weather", "Weather forecast for a city.",
		func(_ context.Context, a WeatherArgs) (string, error) {
			return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, saidex.WithCoercion(saidex.CoercionLax))
	if err != nil {
		panic(err)
	}
	g, err := saidexanthropic.New(node)
	if err != nil {
		panic(err)
	}

	srv := anthropictest.NewServer(anthropictest.Reply{Content: []anthropictest.Block{
		anthropictest.ToolUse("toolu_1", "get_weather", `{"city": "Oslo", "days": "3"}`),
		anthropictest.ToolUse("toolu_2", "get_weather", `{"city": "Rome", "days": 30}`),
	}}, anthropictest.Reply{Content: []anthropictest.Block{anthropictest.Text("Sunny in Oslo.")}})
	defer srv.Close()
	client := anthropic.NewClient(option.WithBaseURL(srv.URL), option.WithAPIKey("test-key"))

	params := anthropic.MessageNewParams{
		Model: "claude-sonnet-4-5", MaxTokens: 1024, Tools: g.Tools(),
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Weather in Oslo and Rome?"))},
	}
	for {
		msg, err := client.Messages.New(ctx, params)
		if err != nil {
			panic(err)
		}
		turn, err := g.Run(ctx, params.Messages, msg)
		if err != nil {
			panic(err)
		}
		params.Messages = append(params.Messages, turn.Messages()...)
		if len(turn.Calls) == 0 {
			fmt.Println("answer:", msg.Content[0].Text)
			break
		}
		for _, c := range turn.Calls {
			fmt.Printf("%s %s: %s\n", c.ID, c.Outcome, strings.ReplaceAll(c.Output, "\n", " "))
		}
	}
	req, _ := srv.Last()
	fmt.Println("sent back:", string(req.Messages[1].Content[0].Input))
	// Output:
	// toolu_1 executed: Oslo: sunny for 3 days
	// toolu_2 feedback: Error: get_weather was not executed because its arguments do not match the tool's schema: - days: must be at most 14 Call get_weather again with these fields corrected.
	// answer: Sunny in Oslo.
	// sent back: {"city":"Oslo","days":3}
}

// The SDK's beta tool runner with guarded tools: the input is checked
// against the tool's own InputSchema before Execute, and a call that
// breaks it is answered with the feedback.
func ExampleBetaTools() {
	type WeatherArgs struct {
		City string `json:"city" jsonschema:"required"`
		Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
	}
	weather, err := toolrunner.NewBetaToolFromJSONSchema("get_weather", "Weather forecast for a city.",
		func(_ context.Context, a WeatherArgs) (anthropic.BetaToolResultBlockParamContentUnion, error) {
			return anthropic.BetaToolResultBlockParamContentUnion{OfText: &anthropic.BetaTextBlockParam{
				Text: fmt.Sprintf("%s: sunny for %d days", a.City, a.Days)}}, nil
		})
	if err != nil {
		panic(err)
	}
	guarded, err := saidexanthropic.BetaTools([]anthropic.BetaTool{weather})
	if err != nil {
		panic(err)
	}
	_, err = guarded[0].Execute(context.Background(), []byte(`{"days": 3}`))
	fmt.Println("Error:", err) // as the runner answers it, with is_error
	// Output:
	// Error: get_weather was not executed because its arguments do not match the tool's schema:
	// - city: required field is missing; expected a string
	// Call get_weather again with these fields corrected.
}
