package saidex_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

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

// Models often send numbers, booleans and arrays as strings. JSON Schema
// rejects them; with CoercionLax the node converts them toward the type the
// schema demands, when the conversion is exact, and records what it did.
// A value that cannot be converted exactly ("yes" for a boolean) is not:
// the call gets feedback as usual.
func ExampleWithCoercion() {
	type searchArgs struct {
		Query  string   `json:"query"`
		Limit  int      `json:"limit"`
		Files  []string `json:"files,omitempty"`
		Strict bool     `json:"strict,omitempty"`
	}
	search := saidex.NewTool("search", "Search files for a query.",
		func(_ context.Context, a searchArgs) (string, error) {
			return fmt.Sprintf("%d results for %q in %s (strict %v)", a.Limit, a.Query, strings.Join(a.Files, ", "), a.Strict), nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{search}, saidex.WithCoercion(saidex.CoercionLax))
	if err != nil {
		fmt.Println(err)
		return
	}
	conversation := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Find TODOs in a.go and b.go."),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{
				Name: "search", Arguments: `{"query": "TODO", "limit": "5", "files": "[\"a.go\", \"b.go\"]", "strict": "true"}`,
			}},
			llms.ToolCall{ID: "call_2", Type: "function", FunctionCall: &llms.FunctionCall{
				Name: "search", Arguments: `{"query": "FIXME", "limit": "5", "strict": "yes"}`,
			}},
		}},
	}
	res, err := node.Run(context.Background(), conversation)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Calls {
		fmt.Println(c.ID, c.Outcome, c.RepairSteps)
		for _, co := range c.Coercions {
			fmt.Printf("  %s: %s -> %s\n", co.Path, co.From, co.To)
		}
		if c.Outcome == saidex.OutcomeExecuted {
			fmt.Println("  tool:", c.Output)
			fmt.Println("  arguments:", string(c.Arguments))
		}
	}
	// Output:
	// call_1 executed [coerce]
	//   /files: string -> array
	//   /limit: string -> integer
	//   /strict: string -> boolean
	//   tool: 5 results for "TODO" in a.go, b.go (strict true)
	//   arguments: {"files":["a.go","b.go"],"limit":5,"query":"TODO","strict":true}
	// call_2 feedback []
}

// Who fixes an invalid call: without a correction model the agent gets
// feedback and corrects the call in its next turn; with one, saidex
// corrects it inside the node and only the corrected call and its result
// reach the conversation. Here a scripted model stands in for a small, cheap
// correction model.
func Example_correction() {
	type forecastArgs struct {
		City string `json:"city"`
		Days int    `json:"days"`
	}
	forecast := saidex.NewTool("forecast", "Weather forecast for a city.",
		func(_ context.Context, a forecastArgs) (string, error) {
			return fmt.Sprintf("%s: sunny for %d days", a.City, a.Days), nil
		})

	// The agent sent "days" as a word.
	conversation := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris for the next three days?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: "call_1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "forecast", Arguments: `{"city": "Paris", "days": "three"}`},
		}}},
	}

	// The agent corrects (default): the call is answered with feedback.
	agentFixes, err := saidex.NewToolNode([]tools.Tool{forecast})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := agentFixes.Run(context.Background(), conversation)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("agent corrects:", res.Calls[0].Outcome, "error:", res.Calls[0].IsError)

	// saidex corrects: the correction model answers with valid arguments.
	correctionModel := saidextest.NewModel(saidextest.ForcedToolCall(`{"city": "Paris", "days": 3}`))
	saidexFixes, err := saidex.NewToolNode([]tools.Tool{forecast},
		saidex.WithCorrectionModel(correctionModel),
		saidex.WithMaxCorrectionRetries(2),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err = saidexFixes.Run(context.Background(), conversation)
	if err != nil {
		fmt.Println(err)
		return
	}
	c := res.Calls[0]
	fmt.Println("saidex corrects:", c.Outcome, string(c.Arguments))
	fmt.Println("tool message:", c.Output)
	// Output:
	// agent corrects: feedback error: true
	// saidex corrects: corrected {"city":"Paris","days":3}
	// tool message: Paris: sunny for 3 days
}

// A call with a misnamed key and a value outside an enum is not executed;
// the agent gets field-level feedback instead, naming what to change.
func ExampleToolNode_feedback() {
	type forecastArgs struct {
		City string `json:"city"`
		Days int    `json:"days" jsonschema:"minimum=1,maximum=14"`
		Unit string `json:"unit" jsonschema:"enum=celsius,enum=fahrenheit"`
	}
	forecast := saidex.NewTool("get_forecast", "Weather forecast for a city.",
		func(ctx context.Context, a forecastArgs) (string, error) {
			return fmt.Sprintf("%d days of sun in %s", a.Days, a.City), nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{forecast})
	if err != nil {
		panic(err)
	}
	conversation := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Oslo for the next 3 days?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: "call_1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "get_forecast", Arguments: `{"town": "Oslo", "days": "3", "unit": "C"}`},
		}}},
	}
	res, err := node.Run(context.Background(), conversation)
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Calls[0].Outcome)
	fmt.Println(res.Calls[0].Output)
	// Output:
	// feedback
	// Error: get_forecast was not executed because its arguments do not match the tool's schema:
	// - city: required field is missing; expected a string (the arguments have "town" instead, which the tool does not define)
	// - days: expected an integer, got a string
	// - town: unknown field; remove it; it may be a misspelling of the missing field city
	// - unit: must be one of "celsius", "fahrenheit"
	// Call get_forecast again with these fields corrected.
}

// A model that keeps sending the same invalid call: the first answer is
// the feedback, the second says the call is identical to the rejected one,
// and with WithFeedbackLimit(2) the third is the final message, after which
// the (scripted) model answers without the tool. Every call id is answered.
func ExampleWithFeedbackLimit() {
	type forecastArgs struct {
		City string `json:"city"`
		Days int    `json:"days" jsonschema:"minimum=1,maximum=14"`
	}
	forecast := saidex.NewTool("get_forecast", "Weather forecast for a city.",
		func(ctx context.Context, a forecastArgs) (string, error) { return "sunny", nil })
	node, err := saidex.NewToolNode([]tools.Tool{forecast}, saidex.WithFeedbackLimit(2))
	if err != nil {
		fmt.Println(err)
		return
	}
	// The scripted model sends the same call until it is told to stop.
	model := saidextest.NewModel(func(ctx context.Context, req saidextest.Request) (*llms.ContentResponse, error) {
		for _, r := range req.ToolResults() {
			if strings.Contains(r.Content, "Stop calling get_forecast") {
				return saidextest.TextResponse("I can only forecast up to 14 days; shall I do that?"), nil
			}
		}
		id := fmt.Sprintf("call_%d", req.Seq+1)
		return saidextest.ToolCallResponse(saidextest.Call(id, "get_forecast", `{"city": "Oslo", "days": 30}`)), nil
	})

	ctx := context.Background()
	messages := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Oslo for 30 days?")}
	for range 10 { // bound the turns
		resp, err := model.GenerateContent(ctx, messages, llms.WithTools(node.Definitions()))
		if err != nil {
			fmt.Println(err)
			return
		}
		ai := saidex.AIMessageFromResponse(resp)
		if !saidex.MessageHasToolCalls(ai) {
			fmt.Println("answer:", resp.Choices[0].Content)
			return
		}
		res, err := node.Run(ctx, append(messages, ai))
		if err != nil {
			fmt.Println(err)
			return
		}
		for _, c := range res.Calls {
			first, _, _ := strings.Cut(c.Output, "\n")
			fmt.Printf("%s %s (repeated: %v): %s\n", c.ID, c.Outcome, c.Repeated, first)
		}
		messages = append(append(messages, res.AIMessage), res.ToolMessages...)
	}
	// Output:
	// call_1 feedback (repeated: false): Error: get_forecast was not executed because its arguments do not match the tool's schema:
	// call_2 feedback (repeated: true): Error: get_forecast was not executed because this call is identical to an earlier get_forecast call that was already rejected, and it has the same problems:
	// call_3 feedback_limit (repeated: true): Error: get_forecast was not executed because its calls were rejected in each of the previous 2 turns and this call is still invalid. Stop calling get_forecast this way: answer the user without get_forecast, or ask the user for the information the call needs.
	// answer: I can only forecast up to 14 days; shall I do that?
}

// With langchaingo's Google AI client, the node's history stays as it is
// (one tool message per call) and GroupToolResponses runs just before each
// model call, so Gemini receives the responses to a turn of calls in one
// turn. Gemini's calls have no ids: the node answers them by name, in
// order.
func ExampleGroupToolResponses() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	call := func(args string) llms.ToolCall {
		return llms.ToolCall{FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: args}}
	}
	history := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Rome?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{call(`{"city":"Paris"}`), call(`{"city":"Rome"}`)}},
	}
	history, err = node.Invoke(context.Background(), history)
	if err != nil {
		fmt.Println(err)
		return
	}
	request := saidex.GroupToolResponses(history) // then gemini.GenerateContent(ctx, request, …)

	fmt.Println("history:", len(history), "messages; request:", len(request), "messages")
	last := request[len(request)-1]
	for _, p := range last.Parts {
		r := p.(llms.ToolCallResponse)
		fmt.Printf("%s: %s\n", r.Name, r.Content)
	}
	// Output:
	// history: 4 messages; request: 3 messages
	// get_weather: sunny in Paris
	// get_weather: sunny in Rome
}

// messageNode is the node type of github.com/tmc/langgraphgo's
// MessageGraph: a node receives the conversation and returns the whole new
// conversation.
type messageNode func(ctx context.Context, messages []llms.MessageContent) ([]llms.MessageContent, error)

// A ToolNode's Invoke is a MessageGraph node as it is:
// graph.AddNode("tools", node.Invoke). This example runs the tools node the
// way a MessageGraph would, on an AI message whose second call does not
// parse: both calls are answered, so the next model turn is accepted.
func ExampleToolNode_Invoke_messageGraph() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}

	var toolsNode messageNode = node.Invoke // graph.AddNode("tools", node.Invoke)

	state := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Rome?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
			llms.ToolCall{ID: "call_2", Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `city = Rome`}},
		}},
	}
	state, err = toolsNode(context.Background(), state)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range state[2:] {
		r := m.Parts[0].(llms.ToolCallResponse)
		fmt.Printf("%s answered (error: %t)\n", r.ToolCallID, strings.HasPrefix(r.Content, "Error:"))
	}
	// Output:
	// call_1 answered (error: false)
	// call_2 answered (error: true)
}

// A streaming accumulator that ignores the call index (langchaingo's does)
// can merge two parallel calls into one whose arguments are two objects.
// Such a call never runs, not even as one of the calls it holds: its
// feedback asks for separate calls.
func Example_mergedCalls() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	res, err := node.Run(context.Background(), []llms.MessageContent{saidextest.AIMessage(
		saidextest.Call("call_1", "get_weather", `{"city":"Paris"}{"city":"Rome"}`))})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep := res.Calls[0]
	fmt.Println(rep.Outcome, errors.Is(rep.Err, saidex.ErrMergedCalls))
	fmt.Println(rep.Output)
	// Output:
	// feedback true
	// Error: the arguments of get_weather could not be read as one JSON object (they are 2 different JSON objects one after another: several tool calls were merged into this one), so nothing was executed. It received: {"city":"Paris"}{"city":"Rome"}
	// The arguments must be one JSON object matching the tool's schema, with these fields:
	// - city: string, required
	// Send each of the merged calls as a separate tool call, each with its arguments as one JSON object.
}

// A response as langchaingo's Anthropic client returns it, one choice per
// content block, becomes the one AI message to append to the conversation.
func ExampleAIMessageFromResponse() {
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{
		{Content: "Let me check."},
		{ToolCalls: []llms.ToolCall{{ID: "toolu_1", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}}}},
		{ToolCalls: []llms.ToolCall{{ID: "toolu_2", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Rome"}`}}}},
	}}
	ai := saidex.AIMessageFromResponse(resp)
	printHistory([]llms.MessageContent{ai})
	// Output:
	// ai: Let me check.
	// ai: get_weather {"city":"Paris"}
	// ai: get_weather {"city":"Rome"}
}

// MessageHasToolCalls decides, after a model turn, whether the tool node
// runs or the loop stops with the model's answer.
func ExampleMessageHasToolCalls() {
	answer := llms.TextParts(llms.ChatMessageTypeAI, "It is sunny.")
	calls := llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
		llms.ToolCall{ID: "call_1", Type: "function", FunctionCall: &llms.FunctionCall{Name: "get_weather", Arguments: `{"city":"Paris"}`}},
	}}
	fmt.Println(saidex.MessageHasToolCalls(answer), saidex.MessageHasToolCalls(calls))
	// Output: false true
}

// A reply cut by the output-token limit runs no call: pass the finish
// reason the provider reported, and every call of the reply is answered
// with feedback that says so, whatever its arguments look like.
func ExampleWithFinishReason() {
	type weatherArgs struct {
		City string `json:"city"`
		Unit string `json:"unit,omitempty"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			fmt.Println("ran for", a.City) // never printed
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	// What the provider returned: a call cut after "celsius", and
	// StopReason "length" (OpenAI's; Anthropic says "max_tokens").
	resp := &llms.ContentResponse{Choices: []*llms.ContentChoice{{
		StopReason: "length",
		ToolCalls:  []llms.ToolCall{saidextest.Call("call_1", "get_weather", `{"city": "Paris", "unit": "celsius"`)},
	}}}
	conv := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?"),
		saidex.AIMessageFromResponse(resp),
	}
	res, err := node.Run(context.Background(), conv, saidex.WithFinishReason(resp.Choices[0].StopReason))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Calls[0].Outcome)
	fmt.Println(res.Calls[0].Output)
	// Output:
	// output_limit
	// Error: get_weather was not executed because the reply that holds it was cut off by the output-token limit: its arguments are incomplete, and no tool call of that reply was executed. Send the call again, complete: keep its arguments shorter, or split the content over several smaller calls.
}

// A model wrapped its arguments in reasoning and a code fence, and wrote them
// as a Python dict. The node repairs them before the tool runs and reports
// how; arguments that would need a guess are answered with feedback instead.
func Example_repair() {
	weather := saidex.NewTool("weather", "Current weather for a city.",
		func(ctx context.Context, args struct {
			City string `json:"city"`
		}) (string, error) {
			return "sunny in " + args.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		panic(err)
	}
	messages := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Oslo? And in Rome?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{
				Name: "weather", Arguments: "<think>The user wants Oslo.</think>\n```json\n{'city': 'Oslo'}\n```",
			}},
			llms.ToolCall{ID: "c2", Type: "function", FunctionCall: &llms.FunctionCall{
				Name: "weather", Arguments: `{"city": "Ro`,
			}},
		}},
	}
	res, err := node.Run(context.Background(), messages)
	if err != nil {
		panic(err)
	}
	for _, c := range res.Calls {
		var malformed *saidex.MalformedArgumentsError
		if errors.As(c.Err, &malformed) {
			fmt.Printf("%s %s: %s\n", c.ID, c.Outcome, malformed.Reason)
			continue
		}
		fmt.Printf("%s %s %v %s: %s\n", c.ID, c.Outcome, c.RepairSteps, c.Arguments, c.Output)
	}
	// Output:
	// c1 executed [strip_thinking code_fence json_repair] {"city":"Oslo"}: sunny in Oslo
	// c2 feedback: the argument string was cut off inside a string value
}

// WithRepeatLimit stops a model that sends the same valid call again: the
// node reads the conversation, sees that the same call already ran, and
// answers with the call that holds the result instead of running it again.
func ExampleWithRepeatLimit() {
	type emailArgs struct {
		To      string `json:"to"`
		Subject string `json:"subject"`
	}
	sent := 0
	send := saidex.NewTool("send_email", "Send an email.",
		func(ctx context.Context, a emailArgs) (string, error) {
			sent++
			return "sent to " + a.To, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{send}, saidex.WithRepeatLimit(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	conv := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Tell Ada the build is green."),
		saidextest.AIMessage(saidextest.Call("call_1", "send_email", `{"to":"ada@example.com","subject":"Build green"}`)),
		saidextest.ToolMessage("call_1", "send_email", "sent to ada@example.com"),
		// The model loops: the same call again, keys in another order.
		saidextest.AIMessage(saidextest.Call("call_2", "send_email", `{"subject":"Build green","to":"ada@example.com"}`)),
	}
	res, err := node.Run(context.Background(), conv)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Calls[0].Outcome, "emails sent:", sent)
	fmt.Println(res.Calls[0].Output)
	// Output:
	// repeat_limit emails sent: 0
	// Error: send_email was not executed because the same call, with the same arguments, already ran once in this conversation: its result is in the tool message answering call call_1. Use that result instead of calling send_email again; change the arguments if you need something else, or answer the user.
}

// One run gives both the report on every call and the next conversation:
// Run, then Messages (which is what Invoke returns). With
// WithHandleToolErrors(true) a tool that returns an error is answered with
// an "Error: ..." tool message and the run goes on, so the valid sibling
// call's result is in the conversation too.
func ExampleResult_Messages() {
	ctx := context.Background()
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a WeatherArgs) (string, error) {
			if a.City == "Oslo" {
				return "", errors.New("weather service down")
			}
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, saidex.WithHandleToolErrors(true))
	if err != nil {
		fmt.Println(err)
		return
	}
	conversation := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris, Oslo and Rome?"),
		saidextest.AIMessage(
			saidextest.Call("call_1", "get_weather", `{'city': 'Paris',}`),
			saidextest.Call("call_2", "get_weather", `{"city": "Oslo"}`),
			saidextest.Call("call_3", "get_weather", `{"town": "Rome"}`),
		),
	}
	res, err := node.Run(ctx, conversation)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, c := range res.Calls {
		fmt.Println(c.ID, c.Outcome, c.RepairSteps, c.IsError)
	}
	printHistory(res.Messages()) // the next conversation, as Invoke returns it
	// Output:
	// call_1 executed [json_repair] false
	// call_2 executed [] true
	// call_3 feedback [] true
	// human: Weather in Paris, Oslo and Rome?
	// ai: get_weather {"city":"Paris"}
	// ai: get_weather {"city": "Oslo"}
	// ai: get_weather {"town": "Rome"}
	// tool: sunny in Paris
	// tool: Error: weather service down
	// tool: Error: get_weather was not executed because its arguments do not match the tool's schema:
	// - city: required field is missing; expected a string (the arguments have "town" instead, which the tool does not define)
	// - town: unknown field; remove it; it may be a misspelling of the missing field city
	// Call get_weather again with these fields corrected.
}

// A model sent one call whose arguments do not parse and one that carries
// a password. Invoke answers both and replaces the AI message with a copy
// that every provider client can send again: the broken arguments become
// {} (the feedback message tells the model what was wrong) and the
// password is masked. The tool still received the real password.
func ExampleWithSanitizeMessages() {
	type loginArgs struct {
		User     string        `json:"user"`
		Password saidex.Secret `json:"password"`
	}
	login := saidex.NewTool("login", "Log a user in.", func(_ context.Context, a loginArgs) (string, error) {
		return fmt.Sprintf("logged in %s (password of %d characters)", a.User, len(string(a.Password))), nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{login})
	if err != nil {
		panic(err)
	}
	conversation := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "log in as ann, password hunter2"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "call_1", FunctionCall: &llms.FunctionCall{Name: "login", Arguments: `{"user": "ann", "password": "hunt`}},
			llms.ToolCall{ID: "call_2", FunctionCall: &llms.FunctionCall{Name: "login", Arguments: `{"user": "ann", "password": "hunter2"}`}},
		}},
	}
	out, err := node.Invoke(context.Background(), conversation)
	if err != nil {
		panic(err)
	}
	for _, p := range out[1].Parts {
		tc := p.(llms.ToolCall)
		fmt.Println(tc.ID, tc.FunctionCall.Arguments)
	}
	fmt.Println(out[3].Parts[0].(llms.ToolCallResponse).Content)
	// Output:
	// call_1 {}
	// call_2 {"password":"**********","user":"ann"}
	// logged in ann (password of 7 characters)
}

// A Secret prints as a mask; convert it to read the value.
func ExampleSecret() {
	s := saidex.Secret("hunter2")
	fmt.Println(s, len(string(s)))
	// Output: ********** 7
}

// Arguments cut off after a password cannot be parsed, so the call is
// answered with feedback quoting what was received: the password shows as
// the mask, in the feedback as in the call's report.
func ExampleSecret_feedback() {
	type loginArgs struct {
		User     string        `json:"user"`
		Password saidex.Secret `json:"password"`
		Note     string        `json:"note,omitempty"`
	}
	login := saidex.NewTool("login", "Log a user in.", func(_ context.Context, a loginArgs) (string, error) {
		return "logged in", nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{login})
	if err != nil {
		panic(err)
	}
	res, err := node.Run(context.Background(), []llms.MessageContent{
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
			llms.ToolCall{ID: "call_1", FunctionCall: &llms.FunctionCall{Name: "login", Arguments: `{"user": "ann", "password": "hunter2", "note": "lat`}},
		}},
	})
	if err != nil {
		panic(err)
	}
	feedback, _, _ := strings.Cut(res.Calls[0].Output, "\n")
	fmt.Println(feedback)
	fmt.Println(res.Calls[0].RawArguments)
	// Output:
	// Error: the arguments of login could not be read as one JSON object (the argument string was cut off inside a string value), so nothing was executed. It received (secret values masked): {"user": "ann", "password": "**********", "note": "lat
	// {"user": "ann", "password": "**********", "note": "lat
}

// Secrets are masked whatever shape the arguments arrive in. The schema
// keeps the password under auth, but the model renamed the parent,
// wrapped it in an array, double-encoded it, or called the tool by the
// name its MCP server uses. Every text the node writes masks the password;
// the tool that ran received it and echoes its input, and even that is
// scrubbed.
func ExampleSecret_shapes() {
	schema := `{"type":"object","properties":{
		"user":{"type":"string"},
		"auth":{"type":"object","properties":{"password":{"type":"string","writeOnly":true}}}}}`
	echo := saidex.ToolWithSchema(echoTool{}, schema)
	node, err := saidex.NewToolNode([]tools.Tool{echo}, saidex.WithLogger(slog.New(slog.DiscardHandler)))
	if err != nil {
		panic(err)
	}
	shapes := []struct{ name, args string }{
		{"auth_login", `{"user":"bob","Auth":{"password":"hunter22"}}`},       // parent renamed
		{"auth_login", `{"user":"bob","auth":[{"password":"hunter22"}]}`},     // parent wrapped in an array
		{"auth_login", `{"user":"bob","auth":"{\"password\":\"hunter22\"}"}`}, // parent double-encoded
		{"auth.login", `{"user":"bob","auth":{"password":"hunter22"}}`},       // the MCP server's name
	}
	for _, sh := range shapes {
		res, err := node.Run(context.Background(), []llms.MessageContent{
			llms.TextParts(llms.ChatMessageTypeHuman, "log in"),
			{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{
				llms.ToolCall{ID: "c1", Type: "function", FunctionCall: &llms.FunctionCall{Name: sh.name, Arguments: sh.args}},
			}},
		})
		if err != nil {
			panic(err)
		}
		c := res.Calls[0]
		fmt.Printf("%s: %s\n  %s\n", c.Outcome, c.RawArguments, strings.SplitN(c.Output, "\n", 2)[0])
	}
	// Output:
	// executed: {"user":"bob","Auth":{"password":"**********"}}
	//   echo: {"user":"bob","Auth":{"password":"**********"}}
	// feedback: {"user":"bob","auth":[{"password":"**********"}]}
	//   Error: auth_login was not executed because its arguments do not match the tool's schema:
	// feedback: {"user":"bob","auth":"**********"}
	//   Error: auth_login was not executed because its arguments do not match the tool's schema:
	// unknown_tool: {"user":"bob","auth":{"password":"**********"}}
	//   Error: auth.login is not a valid tool, try one of [auth_login].
}

// echoTool answers with its input.
type echoTool struct{}

func (echoTool) Name() string        { return "auth_login" }
func (echoTool) Description() string { return "Log in." }
func (echoTool) Call(_ context.Context, in string) (string, error) {
	return "echo: " + in, nil
}

type statsExampleArgs struct {
	City string `json:"city"`
}

func statsExampleNode(opts ...saidex.Option) *saidex.ToolNode {
	weather := saidex.NewTool("weather", "Weather in a city.", func(_ context.Context, a statsExampleArgs) (string, error) {
		return "sunny in " + a.City, nil
	})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, opts...)
	if err != nil {
		panic(err)
	}
	return node
}

func statsExampleCalls(args ...string) []llms.MessageContent {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for i, a := range args {
		ai.Parts = append(ai.Parts, llms.ToolCall{
			ID:           fmt.Sprintf("call_%d", i+1),
			FunctionCall: &llms.FunctionCall{Name: "weather", Arguments: a},
		})
	}
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "weather?"), ai}
}

// An observer sees the event of every Run of its node, for example to
// export metrics (examples/otel exports them to OpenTelemetry).
func ExampleWithObserver() {
	node := statsExampleNode(saidex.WithObserver(func(ev saidex.ToolNodeEvent) {
		fmt.Printf("executed %d, feedback %d\n", ev.Count(saidex.OutcomeExecuted), ev.Count(saidex.OutcomeFeedback))
		for _, c := range ev.Calls {
			fmt.Println(c.ID, c.Name, c.Outcome, c.IsError)
		}
	}))
	if _, err := node.Invoke(context.Background(), statsExampleCalls(`{"city":"Paris"}`, `{"town":"Rome"}`)); err != nil {
		panic(err)
	}
	// Output:
	// executed 1, feedback 1
	// call_1 weather executed false
	// call_2 weather feedback true
}

// CollectStats gathers the events of the Runs given its context, such as
// all tool-node runs of one graph run, and nothing from other runs.
func ExampleCollectStats() {
	node := statsExampleNode()
	ctx, sink := saidex.CollectStats(context.Background())
	for _, args := range []string{`{"city":"Paris"}`, `{"city": "Ro`} {
		if _, err := node.Invoke(ctx, statsExampleCalls(args)); err != nil {
			panic(err)
		}
	}
	// Not collected: a different context.
	if _, err := node.Invoke(context.Background(), statsExampleCalls(`{"city":"Oslo"}`)); err != nil {
		panic(err)
	}
	fmt.Println("runs:", len(sink.Events()))
	fmt.Println("executed:", sink.Count(saidex.OutcomeExecuted))
	fmt.Println("feedback:", sink.Count(saidex.OutcomeFeedback))
	// Output:
	// runs: 2
	// executed: 1
	// feedback: 1
}

// A model behind a server without the right tool parser writes its call
// into the text. With WithTextToolCalls, WrapModel turns it into a real
// tool call with a fresh id, which then goes through the pipeline.
func ExampleWithTextToolCalls() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, saidex.WithTextToolCalls(true))
	if err != nil {
		fmt.Println(err)
		return
	}
	inner := saidextest.NewModel(saidextest.Text(
		"Let me check.\n<tool_call>\n{\"name\": \"get_weather\", \"arguments\": {\"city\": \"Paris\"}}\n</tool_call>"))
	ctx := context.Background()
	conv := []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris?")}
	resp, err := saidex.WrapModel(inner, node).GenerateContent(ctx, conv)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("text %q, %d tool call\n", resp.Choices[0].Content, len(resp.Choices[0].ToolCalls))
	out, err := node.Invoke(ctx, append(conv, saidex.AIMessageFromResponse(resp)))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(out[len(out)-1].Parts[0].(llms.ToolCallResponse).Content)
	// Output:
	// text "Let me check.", 1 tool call
	// sunny in Paris
}

// Without WithHandleToolErrors, a tool error stops the run, but what ran
// is not lost: the error's partial result holds the tool messages of the
// calls answered before it, and its Messages the conversation with them.
// Keep that as the history; the next run executes only the calls left
// unanswered, here once the failing service is back.
func ExampleToolError() {
	ctx := context.Background()
	down := true
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a WeatherArgs) (string, error) {
			if a.City == "Oslo" && down {
				return "", errors.New("weather service down")
			}
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather}, saidex.WithMaxConcurrency(1))
	if err != nil {
		fmt.Println(err)
		return
	}
	history := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Oslo?"),
		saidextest.AIMessage(
			saidextest.Call("call_1", "get_weather", `{"city":"Paris"}`),
			saidextest.Call("call_2", "get_weather", `{"city":"Oslo"}`),
		),
	}
	_, err = node.Invoke(ctx, history)
	var toolErr *saidex.ToolError
	if !errors.As(err, &toolErr) {
		fmt.Println("unexpected:", err)
		return
	}
	fmt.Println("stopped:", toolErr.Err)
	kept := toolErr.Partial.Messages() // call_1 answered, call_2 not

	down = false
	history, err = node.Invoke(ctx, kept) // runs call_2 only
	if err != nil {
		fmt.Println(err)
		return
	}
	printHistory(history)
	// Output:
	// stopped: weather service down
	// human: Weather in Paris and Oslo?
	// ai: get_weather {"city":"Paris"}
	// ai: get_weather {"city":"Oslo"}
	// tool: sunny in Paris
	// tool: sunny in Oslo
}

// sessionState is the caller's graph state in these examples.
type sessionState struct{ UserID string }

type orderIDArgs struct {
	OrderID string `json:"order_id"`
	UserID  string `json:"user_id"`
}

func newOrdersTool(name string) saidex.Tool {
	return saidex.NewTool(name, "Acts on one order of a user.", func(ctx context.Context, a orderIDArgs) (string, error) {
		return name + " done for " + a.OrderID, nil
	})
}

// ordersConversation ends with an AI message calling name once per argument string.
func ordersConversation(name string, args ...string) []llms.MessageContent {
	ai := llms.MessageContent{Role: llms.ChatMessageTypeAI}
	for i, a := range args {
		ai.Parts = append(ai.Parts, llms.ToolCall{
			ID: fmt.Sprintf("call_%d", i+1), Type: "function",
			FunctionCall: &llms.FunctionCall{Name: name, Arguments: a},
		})
	}
	return []llms.MessageContent{llms.TextParts(llms.ChatMessageTypeHuman, "cancel my orders"), ai}
}

// A validator with access to the caller's state rejects a call the schema
// cannot: an order that belongs to another user. The rejected call is
// answered with feedback naming the field; the other call executes.
func ExampleWithValidator() {
	orderBelongsToUser := func(ctx context.Context, a orderIDArgs, vc saidex.ValidatorContext) error {
		s, _ := vc.State.(sessionState)
		if !strings.HasPrefix(a.OrderID, s.UserID+"-") {
			return &saidex.ValidationIssue{Path: "order_id", Message: "the order does not belong to the user"}
		}
		return nil
	}
	node, err := saidex.NewToolNode([]tools.Tool{newOrdersTool("cancel_order")},
		saidex.WithValidator("cancel_order", saidex.TypedValidator(orderBelongsToUser)))
	if err != nil {
		panic(err)
	}
	msgs := ordersConversation("cancel_order",
		`{"order_id": "u1-100", "user_id": "u1"}`,
		`{"order_id": "u2-200", "user_id": "u1"}`)
	res, err := node.Run(context.Background(), msgs, saidex.WithState(sessionState{UserID: "u1"}))
	if err != nil {
		panic(err)
	}
	for _, c := range res.Calls {
		fmt.Println(c.ID, c.Outcome)
		for _, is := range c.Issues {
			fmt.Printf("  %s: %s\n", is.Path, is.Message)
		}
	}
	// Output:
	// call_1 executed
	// call_2 feedback
	//   /order_id: the order does not belong to the user
}

// An unresolved hook salvages a call the model sent without the user id by
// taking it from the caller's state. The salvaged arguments are validated
// again and executed; any other unresolved call gets the default feedback.
func ExampleWithUnresolvedHook() {
	fillUserID := func(ctx context.Context, call saidex.UnresolvedToolCall) (saidex.Resolution, error) {
		s, ok := call.State.(sessionState)
		if call.ToolName != "get_orders" || call.Args == nil || !ok {
			return saidex.Resolution{}, nil // the default feedback
		}
		call.Args["user_id"] = s.UserID
		return saidex.Salvage(call.Args), nil
	}
	node, err := saidex.NewToolNode([]tools.Tool{newOrdersTool("get_orders")}, saidex.WithUnresolvedHook(fillUserID))
	if err != nil {
		panic(err)
	}
	// The state may travel in the context too: that is how Invoke, whose
	// graph-node signature has no options, receives it.
	ctx := saidex.ContextWithState(context.Background(), sessionState{UserID: "u1"})
	res, err := node.Run(ctx, ordersConversation("get_orders", `{"order_id": "u1-100"}`))
	if err != nil {
		panic(err)
	}
	c := res.Calls[0]
	fmt.Println(c.Outcome, string(c.Arguments))
	fmt.Println(c.Output)
	// Output:
	// salvaged {"order_id":"u1-100","user_id":"u1"}
	// get_orders done for u1-100
}

// A validator asks a human to approve a cancellation by returning an error
// wrapping ErrInterrupt. Run returns it unchanged, before any call
// executes, so the graph can pause and run the node again once approved.
func ExampleErrInterrupt() {
	approved := map[string]bool{}
	needsApproval := func(ctx context.Context, args map[string]any, vc saidex.ValidatorContext) error {
		if id, _ := args["order_id"].(string); !approved[id] {
			return fmt.Errorf("cancel %s: %w", id, saidex.ErrInterrupt)
		}
		return nil
	}
	node, err := saidex.NewToolNode([]tools.Tool{newOrdersTool("cancel_order")},
		saidex.WithValidator("cancel_order", needsApproval))
	if err != nil {
		panic(err)
	}
	msgs := ordersConversation("cancel_order", `{"order_id": "u1-100", "user_id": "u1"}`)

	_, err = node.Invoke(context.Background(), msgs)
	fmt.Println(errors.Is(err, saidex.ErrInterrupt), err)

	approved["u1-100"] = true // the human said yes; the graph resumes
	out, err := node.Invoke(context.Background(), msgs)
	if err != nil {
		panic(err)
	}
	fmt.Println(out[len(out)-1].Parts[0].(llms.ToolCallResponse).Content)
	// Output:
	// true cancel u1-100: saidex: interrupt
	// cancel_order done for u1-100
}

// With UnresolvedRaise, calls that stay invalid make Run return a
// *ToolCallValidationError and nothing executes.
func ExampleWithOnUnresolved() {
	node, err := saidex.NewToolNode([]tools.Tool{newOrdersTool("get_orders")}, saidex.WithOnUnresolved(saidex.UnresolvedRaise))
	if err != nil {
		panic(err)
	}
	msgs := ordersConversation("get_orders", `{"order_id": "u1-100", "user_id": "u1"}`, `{"order_id": "u1-200"}`)
	_, err = node.Run(context.Background(), msgs)
	var ve *saidex.ToolCallValidationError
	if errors.As(err, &ve) {
		for _, c := range ve.Calls {
			fmt.Println(c.CallID, c.ToolName, c.Args)
		}
	}
	// Output:
	// call_2 get_orders map[order_id:u1-200]
}

// WrapModel checks tool calls right after the model call, for code that
// dispatches each call on its own: a call reported ready may run; a call
// whose report is an error (feedback, an unknown tool) must not, and the
// report's Output is the tool message to answer it with.
func ExampleWrapModel() {
	type weatherArgs struct {
		City string `json:"city"`
	}
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(ctx context.Context, a weatherArgs) (string, error) {
			return "sunny in " + a.City, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		fmt.Println(err)
		return
	}
	inner := saidextest.NewModel(saidextest.ToolCalls(
		saidextest.Call("call_1", "get_weather", `{"city":"Paris"}`),
		saidextest.Call("call_2", "get_weather", `{"city":["Rome"]}`),
		saidextest.Call("call_3", "get_wether", `{"city":"Oslo"}`),
	))

	model := saidex.WrapModel(inner, node)
	resp, err := model.GenerateContent(context.Background(), []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Weather in Paris and Rome?"),
	}, llms.WithTools(node.Definitions()))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, choice := range resp.Choices {
		reports, _ := saidex.CheckedCalls(choice)
		for i, tc := range choice.ToolCalls {
			fmt.Printf("%s %s: %s\n", tc.ID, tc.FunctionCall.Arguments, reports[i].Outcome)
			if reports[i].IsError {
				fmt.Printf("  answer it with: %s\n", reports[i].Output)
			}
		}
	}
	// Output:
	// call_1 {"city":"Paris"}: ready
	// call_2 {"city":["Rome"]}: feedback
	//   answer it with: Error: get_weather was not executed because its arguments do not match the tool's schema:
	// - city: expected a string, got an array
	// Call get_weather again with these fields corrected.
	// call_3 {"city":"Oslo"}: unknown_tool
	//   answer it with: Error: get_wether is not a valid tool, try one of [get_weather].
}
