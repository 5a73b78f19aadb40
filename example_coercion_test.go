package saidex_test

import (
	"context"
	"fmt"
	"strings"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

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
