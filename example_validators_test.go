package saidex_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	saidex "github.com/saidex/saidex-go"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

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
	res, err := node.Run(saidex.ContextWithState(context.Background(), sessionState{UserID: "u1"}), msgs)
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
