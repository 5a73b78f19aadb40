// Command validators shows checks a JSON Schema cannot express, using the
// caller's state (the signed-in user) passed with saidex.ContextWithState:
//
//   - a validator rejects cancelling an order that belongs to another user,
//     or in another user's name;
//   - a second validator Flags a shipped order: recorded, not rejected;
//   - an unresolved hook salvages calls whose only problem is the user id
//     (missing, or not the signed-in user's) by filling it from the state.
//
// The agent model is a scripted stand-in without an API key; with
// OPENAI_API_KEY set it is OpenAI's OPENAI_MODEL (default gpt-4o-mini).
//
//	go run ./examples/validators
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// CancelArgs is the argument object of cancel_order.
type CancelArgs struct {
	OrderID string `json:"order_id"`
	UserID  string `json:"user_id"`
}

// Session is the graph state the node receives: who is signed in.
type Session struct{ UserID string }

type order struct {
	Owner   string
	Shipped bool
}

// orders stands in for a database.
var orders = map[string]order{
	"A-100": {Owner: "u1"},
	"A-101": {Owner: "u1", Shipped: true},
	"A-102": {Owner: "u1"},
	"B-200": {Owner: "u2"},
}

func main() {
	var agent llms.Model = scriptedAgent()
	if os.Getenv("OPENAI_API_KEY") != "" {
		var err error
		if agent, err = openai.New(openai.WithModel(env("OPENAI_MODEL", "gpt-4o-mini"))); err != nil {
			log.Fatal(err)
		}
	}
	if err := run(context.Background(), os.Stdout, agent); err != nil {
		log.Fatal(err)
	}
}

// scriptedAgent sends four calls: one without user_id, one for another
// user's order, one for a shipped order, and one with a guessed user_id.
func scriptedAgent() *saidextest.Model {
	return saidextest.NewModel(saidextest.ToolCalls(
		saidextest.Call("call_1", "cancel_order", `{"order_id": "A-100"}`),
		saidextest.Call("call_2", "cancel_order", `{"order_id": "B-200", "user_id": "u1"}`),
		saidextest.Call("call_3", "cancel_order", `{"order_id": "A-101", "user_id": "u1"}`),
		saidextest.Call("call_4", "cancel_order", `{"order_id": "A-102", "user_id": "user-123"}`),
	))
}

// belongsToUser rejects calls the signed-in user may not make.
func belongsToUser(_ context.Context, a CancelArgs, vc saidex.ValidatorContext) error {
	s, ok := vc.State.(Session)
	if !ok {
		return errors.New("no signed-in user")
	}
	var issues saidex.ValidationIssues
	if a.UserID != s.UserID {
		issues = append(issues, saidex.ValidationIssue{Path: "user_id", Message: "must be the signed-in user"})
	}
	if orders[a.OrderID].Owner != s.UserID {
		// Same answer for "not yours" and "does not exist": reveal nothing.
		issues = append(issues, saidex.ValidationIssue{Path: "order_id", Message: "the user has no such order"})
	}
	return issues // empty: accepted
}

// shippedNeedsReview records a concern without blocking the call.
func shippedNeedsReview(_ context.Context, a CancelArgs, _ saidex.ValidatorContext) error {
	if orders[a.OrderID].Shipped {
		return saidex.Flag(&saidex.ValidationIssue{Path: "order_id", Message: "the order has shipped; a return must be arranged"})
	}
	return nil
}

// fillUserID salvages a call whose only issues are about user_id (from the
// schema: missing; from belongsToUser: not the signed-in user), taking the
// id from the state; any other call gets the default feedback. Salvaged
// arguments are validated again (saidex.PhaseSalvage) before they run.
func fillUserID(_ context.Context, c saidex.UnresolvedToolCall) (saidex.Resolution, error) {
	s, ok := c.State.(Session)
	if !ok || c.Args == nil {
		return saidex.Resolution{}, nil
	}
	for _, is := range c.Issues {
		if is.Path != "/user_id" {
			return saidex.Resolution{}, nil
		}
	}
	c.Args["user_id"] = s.UserID
	return saidex.Salvage(c.Args), nil
}

func run(ctx context.Context, w io.Writer, agent llms.Model) error {
	cancel := saidex.NewTool("cancel_order", "Cancel one of the user's orders.",
		func(_ context.Context, a CancelArgs) (string, error) {
			return "cancelled " + a.OrderID, nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{cancel},
		saidex.WithValidator("cancel_order", saidex.TypedValidator(belongsToUser)),
		saidex.WithValidator("cancel_order", saidex.TypedValidator(shippedNeedsReview)),
		saidex.WithUnresolvedHook(fillUserID),
	)
	if err != nil {
		return err
	}

	messages := []llms.MessageContent{
		llms.TextParts(llms.ChatMessageTypeHuman, "Cancel my orders A-100, A-101, A-102 and B-200."),
	}
	resp, err := agent.GenerateContent(ctx, messages, llms.WithTools(node.Definitions()))
	if err != nil {
		return err
	}
	ai := saidex.AIMessageFromResponse(resp) // the text and tool calls of every choice
	if !saidex.MessageHasToolCalls(ai) {     // a real model may answer in text instead
		fmt.Fprintf(w, "no tool calls; the model said: %s\n", resp.Choices[0].Content)
		return nil
	}
	messages = append(messages, ai)

	// The state is per run: the same node serves every user.
	res, err := node.Run(saidex.ContextWithState(ctx, Session{UserID: "u1"}), messages)
	if err != nil {
		return err
	}
	for _, c := range res.Calls {
		fmt.Fprintf(w, "%s %s\n  model sent: %s\n", c.ID, c.Outcome, c.RawArguments)
		if c.Outcome == saidex.OutcomeSalvaged {
			fmt.Fprintln(w, "  salvaged:   the unresolved hook (fillUserID) rewrote the call, user_id from the session;")
			fmt.Fprintln(w, "              the rewritten arguments were validated again, then run")
		}
		if c.Arguments != nil {
			fmt.Fprintf(w, "  ran with:   %s\n", c.Arguments)
		}
		for _, is := range c.Flagged {
			fmt.Fprintf(w, "  flagged:    %s: %s\n", is.Path, is.Message)
		}
		if c.IsError {
			for _, is := range c.Issues {
				fmt.Fprintf(w, "  rejected:   %s: %s\n", is.Path, is.Message)
			}
		} else {
			fmt.Fprintf(w, "  result:     %s\n", c.Output)
		}
	}
	return nil
}

func env(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}
