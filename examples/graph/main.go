// Command graph runs a ToolNode inside agent loops, the two ways Go graph
// libraries shape a node:
//
//  1. A ReAct loop over the conversation: model → node.Invoke → model …
//     until the model answers in text. node.Invoke has the node type of
//     tmc/langgraphgo's MessageGraph, so graph.AddNode("tools", node.Invoke)
//     is the same thing.
//  2. A state graph in the style of smallnest/langgraphgo's StateGraph (a
//     map state, nodes func(ctx, state any) (any, error), a conditional edge):
//     stategraph.Node(node, "messages") is the tools node and
//     stategraph.HasToolCalls("messages", "tools", END) the edge after the
//     agent.
//     A tiny local runner stands in for the library.
//
// What to notice: the model's first turn holds a call with broken JSON
// ({'city': 'Paris'}: repaired and run, and the history keeps the repaired
// JSON) and one with a misnamed field (answered with feedback); the loop goes
// on, the model fixes its call, and every tool-call id is answered, so each
// next model turn is one a provider accepts.
//
// The model is scripted without an API key; with OPENAI_API_KEY set it is
// OpenAI's OPENAI_MODEL (default gpt-4o-mini).
//
//	go run ./examples/graph
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"slices"
	"strings"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidextest"
	"github.com/saidex/saidex-go/stategraph"
	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/llms/openai"
	"github.com/tmc/langchaingo/tools"
)

// WeatherArgs is the argument object of get_weather.
type WeatherArgs struct {
	City string `json:"city"`
}

// END is the name of the end of the state graph.
const END = "END"

const maxTurns = 6 // a loop guard: the model gets at most this many turns

func main() {
	loopModel, graphModel := llms.Model(scriptedModel()), llms.Model(scriptedModel())
	if os.Getenv("OPENAI_API_KEY") != "" {
		m, err := openai.New(openai.WithModel(env("OPENAI_MODEL", "gpt-4o-mini")))
		if err != nil {
			log.Fatal(err)
		}
		loopModel, graphModel = m, m
	}
	if err := run(context.Background(), os.Stdout, loopModel, graphModel); err != nil {
		log.Fatal(err)
	}
}

// scriptedModel plays three turns: two calls (one with single-quoted JSON,
// one with "town" for "city"), then the fixed call, then the answer.
func scriptedModel() *saidextest.Model {
	return saidextest.NewModel(saidextest.Sequence(
		saidextest.ToolCalls(
			saidextest.Call("call_1", "get_weather", `{'city': 'Paris'}`),
			saidextest.Call("call_2", "get_weather", `{"town": "Rome"}`),
		),
		saidextest.ToolCalls(saidextest.Call("call_3", "get_weather", `{"city": "Rome"}`)),
		saidextest.Text("Paris is sunny (21°C); Rome is cloudy (17°C)."),
	))
}

func run(ctx context.Context, w io.Writer, loopModel, graphModel llms.Model) error {
	weather := saidex.NewTool("get_weather", "Current weather for a city.",
		func(_ context.Context, a WeatherArgs) (string, error) {
			switch a.City {
			case "Paris":
				return "Paris: sunny, 21°C", nil
			case "Rome":
				return "Rome: cloudy, 17°C", nil
			}
			return a.City + ": no data", nil
		})
	node, err := saidex.NewToolNode([]tools.Tool{weather})
	if err != nil {
		return err
	}
	question := llms.TextParts(llms.ChatMessageTypeHuman, "What is the weather in Paris and Rome?")

	// 1. The ReAct loop.
	conv, err := reactLoop(ctx, loopModel, node, []llms.MessageContent{question})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "== ReAct loop: model -> node.Invoke -> model ==")
	printConversation(w, conv)

	// 2. The state graph. stategraph.Node hands the whole state to the node's
	// validators, hooks and tools as their state (see examples/validators).
	agentNode := func(ctx context.Context, state any) (any, error) {
		msgs, _ := state.(map[string]any)["messages"].([]llms.MessageContent)
		ai, err := callModel(ctx, graphModel, node, msgs)
		if err != nil {
			return nil, err
		}
		// A partial update: only the key this node changes (Clip: a new
		// slice, the state's own is never written to).
		return map[string]any{"messages": append(slices.Clip(msgs), ai)}, nil
	}
	state := map[string]any{"messages": []llms.MessageContent{question}}
	state, err = runStateGraph(ctx, state, agentNode, stategraph.Node(node, "messages"),
		stategraph.HasToolCalls("messages", "tools", END))
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\n== state graph: agent -> HasToolCalls ? tools (stategraph.Node) : END ==")
	printConversation(w, state["messages"].([]llms.MessageContent))
	return nil
}

// reactLoop calls the model and runs its tool calls through the node until
// the model answers without tool calls.
func reactLoop(ctx context.Context, model llms.Model, node *saidex.ToolNode, conv []llms.MessageContent) ([]llms.MessageContent, error) {
	for range maxTurns {
		ai, err := callModel(ctx, model, node, conv)
		if err != nil {
			return nil, err
		}
		conv = append(conv, ai)
		if !saidex.MessageHasToolCalls(ai) {
			return conv, nil // the final answer
		}
		// Every call answered: results, or feedback the model reads next turn.
		if conv, err = node.Invoke(ctx, conv); err != nil {
			return nil, err
		}
	}
	return nil, errors.New("no final answer within the turn limit")
}

// runStateGraph is a stand-in for a state-graph library running the graph
//
//	agent --edge--> tools --> agent ... --edge--> END
//
// Each node returns a partial update that overwrites the state's keys (the
// default of smallnest/langgraphgo's MapSchema).
func runStateGraph(ctx context.Context, state map[string]any, agent, tools func(context.Context, any) (any, error), edge func(context.Context, any) string) (map[string]any, error) {
	nodes := map[string]func(context.Context, any) (any, error){"agent": agent, "tools": tools}
	for current, steps := "agent", 0; current != END; steps++ {
		if steps == 2*maxTurns {
			return nil, errors.New("no final answer within the turn limit")
		}
		update, err := nodes[current](ctx, state)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", current, err)
		}
		for k, v := range update.(map[string]any) {
			state[k] = v
		}
		if current == "agent" {
			current = edge(ctx, state)
		} else {
			current = "agent"
		}
	}
	return state, nil
}

// callModel asks the model for its next turn, offering the node's tools.
func callModel(ctx context.Context, model llms.Model, node *saidex.ToolNode, conv []llms.MessageContent) (llms.MessageContent, error) {
	resp, err := model.GenerateContent(ctx, conv, llms.WithTools(node.Definitions()))
	if err != nil {
		return llms.MessageContent{}, err
	}
	// The text and tool calls of every choice, as one AI message.
	return saidex.AIMessageFromResponse(resp), nil
}

func printConversation(w io.Writer, msgs []llms.MessageContent) {
	for _, msg := range msgs {
		for _, p := range msg.Parts {
			switch p := p.(type) {
			case llms.TextContent:
				fmt.Fprintf(w, "%-5s %s\n", msg.Role+":", p.Text)
			case llms.ToolCall:
				fmt.Fprintf(w, "ai:   %s %s(%s)\n", p.ID, p.FunctionCall.Name, p.FunctionCall.Arguments)
			case llms.ToolCallResponse:
				fmt.Fprintf(w, "tool: %s %s\n", p.ToolCallID, strings.ReplaceAll(p.Content, "\n", "\n             "))
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
