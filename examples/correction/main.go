// Command correction shows the two ways an invalid tool call gets fixed, side
// by side on the same broken agent turn ("days": "three" where an integer
// belongs):
//
//   - the agent corrects (the default): the call is answered with feedback,
//     and the agent spends one more turn, with the whole history, on a new call;
//   - saidex corrects (WithCorrectionModel): a second, cheaper model fixes the
//     arguments inside the node; the conversation only ever holds the
//     corrected call and its result, and the report carries the token usage.
//
// The correction model is run with WithCorrectionContextMessages(0), so none
// of the conversation (here: the user's home address) reaches it.
//
// Without an API key both models are scripted stand-ins. With OPENAI_API_KEY
// set, OpenAI serves them: OPENAI_MODEL (default gpt-4o-mini) the agent,
// OPENAI_CORRECTION_MODEL (default gpt-4o-mini) the correction model.
//
//	go run ./examples/correction
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"
	"sync"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// ForecastArgs is the weather tool's argument object.
type ForecastArgs struct {
	City string `json:"city"`
	Days int    `json:"days" jsonschema:"minimum=1,maximum=14"`
}

// models are the example's two models and the name the token report uses
// for the correction model.
type models struct {
	agent, corrector llms.Model
	correctorName    string
}

func main() {
	m := scriptedModels()
	if os.Getenv("OPENAI_API_KEY") != "" {
		var err error
		if m, err = openAIModels(); err != nil {
			log.Fatal(err)
		}
	}
	if err := run(context.Background(), os.Stdout, m); err != nil {
		log.Fatal(err)
	}
}

// scriptedModels returns stand-ins: an agent that fixes its call once it
// has read the feedback, and a correction model that answers with valid
// arguments and reports token usage the way langchaingo's OpenAI client does.
func scriptedModels() models {
	agent := saidextest.NewModel(saidextest.ToolCalls(saidextest.Call("call_1", "get_forecast", `{"city": "Oslo", "days": 3}`)))
	usage := map[string]any{"PromptTokens": 212, "CompletionTokens": 14, "TotalTokens": 226}
	corrector := saidextest.NewModel(saidextest.WithUsage(usage, saidextest.ForcedToolCall(`{"city": "Oslo", "days": 3}`)))
	return models{agent: agent, corrector: corrector, correctorName: "small-model"}
}

func openAIModels() (models, error) {
	agentName, correctorName := env("OPENAI_MODEL", "gpt-4o-mini"), env("OPENAI_CORRECTION_MODEL", "gpt-4o-mini")
	agent, err := openai.New(openai.WithModel(agentName)) // reads OPENAI_API_KEY
	if err != nil {
		return models{}, err
	}
	corrector, err := openai.New(openai.WithModel(correctorName))
	if err != nil {
		return models{}, err
	}
	return models{agent: agent, corrector: corrector, correctorName: correctorName}, nil
}

func run(ctx context.Context, w io.Writer, m models) error {
	forecast := saidex.NewTool("get_forecast", "Weather forecast for a city.",
		func(_ context.Context, a ForecastArgs) (string, error) {
			return fmt.Sprintf("%s: sunny, 18 degrees, for %d days", a.City, a.Days), nil
		})

	// The same broken turn for both modes. The user's message holds private
	// data that has no business reaching a second provider.
	broken := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "I live at 12 Larch Street, Oslo. Weather at home for the next three days?"),
		{Role: llms.ChatMessageTypeAI, Parts: []llms.ContentPart{llms.ToolCall{
			ID: "call_1", Type: "function",
			FunctionCall: &llms.FunctionCall{Name: "get_forecast", Arguments: `{"city": "Oslo", "days": "three"}`},
		}}},
	}

	// 1. The agent corrects (default): feedback, then one more agent turn.
	agentFixes, err := saidex.NewToolNode([]tools.Tool{forecast})
	if err != nil {
		return err
	}
	conv, err := agentFixes.Invoke(ctx, broken)
	if err != nil {
		return err
	}
	resp, err := m.agent.GenerateContent(ctx, conv, llms.WithTools(agentFixes.Definitions()))
	if err != nil {
		return err
	}
	conv = append(conv, saidex.AIMessageFromResponse(resp)) // the text and calls of every choice
	if conv, err = agentFixes.Invoke(ctx, conv); err != nil {
		return err
	}
	fmt.Fprintln(w, "== agent corrects (default): two agent turns ==")
	printConversation(w, conv[1:])

	// 2. saidex corrects: the correction model fixes the call inside the node.
	seen := &recorder{Model: m.corrector}
	saidexFixes, err := saidex.NewToolNode([]tools.Tool{forecast},
		saidex.WithCorrectionModel(seen, llms.WithModel(m.correctorName)),
		saidex.WithCorrectionContextMessages(0), // privacy: send only the call, no conversation
	)
	if err != nil {
		return err
	}
	res, err := saidexFixes.Run(ctx, broken)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\n== saidex corrects: one agent turn + one small correction call ==")
	// Only the corrected call reaches the conversation (what Invoke returns).
	printConversation(w, append([]llms.MessageContent{res.AIMessage}, res.ToolMessages...))
	c := res.Calls[0]
	fmt.Fprintf(w, "outcome: %s (the model sent %s)\n", c.Outcome, c.RawArguments)
	for name, u := range c.Tokens {
		fmt.Fprintf(w, "correction tokens, %s: input=%d output=%d total=%d\n", name, u.InputTokens, u.OutputTokens, u.TotalTokens)
	}
	reached := "no"
	if strings.Contains(seen.String(), "Larch Street") {
		reached = "yes"
	}
	fmt.Fprintf(w, "privacy: the user's home address (\"12 Larch Street\", in the user's message) reached the correction model: %s;\n", reached)
	fmt.Fprintln(w, "  with WithCorrectionContextMessages(0) it is sent the tool, its schema and the broken call, not the conversation")
	return nil
}

// recorder passes calls through to its model and keeps the text it was
// sent, to show what left for the correction provider.
type recorder struct {
	llms.Model
	mu   sync.Mutex
	text strings.Builder
}

func (r *recorder) GenerateContent(ctx context.Context, msgs []llms.MessageContent, opts ...llms.CallOption) (*llms.ContentResponse, error) {
	r.mu.Lock()
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			if t, ok := p.(llms.TextContent); ok {
				r.text.WriteString(t.Text + "\n")
			}
		}
	}
	r.mu.Unlock()
	return r.Model.GenerateContent(ctx, msgs, opts...)
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.text.String()
}

func printConversation(w io.Writer, msgs []llms.MessageContent) {
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			switch p := p.(type) {
			case llms.ToolCall:
				fmt.Fprintf(w, "ai:   %s(%s)\n", p.FunctionCall.Name, p.FunctionCall.Arguments)
			case llms.ToolCallResponse:
				fmt.Fprintf(w, "tool: %s\n", strings.ReplaceAll(p.Content, "\n", "\n      "))
			case llms.TextContent:
				fmt.Fprintf(w, "%s: %s\n", msg.Role, p.Text)
			}
		}
	}
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
