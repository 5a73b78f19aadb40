package saidexopenai_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/saidex/saidex-go/saidexopenai"
	"github.com/saidex/saidex-go/saidexopenai/openaitest"
)

func responseParams(input ...responses.ResponseInputItemUnionParam) responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: "gpt-test",
		Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}}
}

var userItem = responses.ResponseInputItemParamOfMessage("weather?", responses.EasyInputMessageRoleUser)

// lastInput returns the input items of the server's last request, which it
// must have accepted.
func lastInput(t *testing.T, srv *openaitest.Server) []openaitest.ResponseItem {
	t.Helper()
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	if last.Rejected != "" {
		t.Fatalf("the server rejected the request: %s", last.Rejected)
	}
	items, err := openaitest.ResponseInput(last.Body)
	if err != nil {
		t.Fatal(err)
	}
	return items
}

// TestResponsesStockLoop shows the server's rule: answering only the call
// the program knows fails the next request with OpenAI's error.
func TestResponsesStockLoop(t *testing.T) {
	ctx := context.Background()
	srv := openaitest.NewServer(openaitest.Reply{Calls: brokenTurn}, openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	resp, err := client.Responses.New(ctx, responseParams(userItem))
	if err != nil {
		t.Fatal(err)
	}
	fc := resp.Output[0].AsFunctionCall()
	next := responseParams(functionOutput(t, fc.CallID, "sunny"))
	next.PreviousResponseID = openai.String(resp.ID)
	_, err = client.Responses.New(ctx, next)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Message != "No tool output found for function call call_broken." {
		t.Fatalf("err = %v, want HTTP 400 No tool output found for function call call_broken.", err)
	}
}

// functionOutput builds a function_call_output item the way the program's
// own code would (the guard's items are tested against the server).
func functionOutput(t *testing.T, callID, output string) responses.ResponseInputItemUnionParam {
	t.Helper()
	var item responses.ResponseInputItemUnionParam
	if err := item.UnmarshalJSON([]byte(`{"type":"function_call_output","call_id":"` + callID + `","output":"` + output + `"}`)); err != nil {
		t.Fatal(err)
	}
	return item
}

func TestRunResponse(t *testing.T) {
	wantArgs := map[string]string{
		"call_valid":      `{"city":"Paris","days":2}`,
		"call_broken":     `{}`,
		"call_invalid":    `{"days":"three"}`,
		"call_unknown":    `{"to":"Mars"}`,
		"call_repairable": `{"city":"Oslo","days":1}`,
	}
	wantOut := map[string]string{
		"call_valid":      "Paris: sunny for 2 days",
		"call_broken":     "nothing was executed",
		"call_invalid":    "city",
		"call_unknown":    "teleport is not a valid tool",
		"call_repairable": "Oslo: sunny for 1 days",
	}
	for _, stateful := range []bool{false, true} {
		name := map[bool]string{false: "history kept by the program", true: "previous_response_id"}[stateful]
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			g, runs := newGuard(t)
			srv := openaitest.NewServer(openaitest.Reply{Text: "Let me check.", Calls: brokenTurn}, openaitest.Reply{Text: "done"})
			defer srv.Close()
			client := srv.Client()
			params := responseParams(userItem)
			params.Tools = g.ResponseTools()
			resp, err := client.Responses.New(ctx, params)
			if err != nil {
				t.Fatal(err)
			}
			turn, err := g.RunResponse(ctx, params.Input.OfInputItemList, resp)
			if err != nil {
				t.Fatal(err)
			}
			next := responseParams(append([]responses.ResponseInputItemUnionParam{userItem}, turn.Input()...)...)
			if stateful {
				next = responseParams(turn.Outputs...)
				next.PreviousResponseID = openai.String(resp.ID)
			}
			if _, err := client.Responses.New(ctx, next); err != nil {
				t.Fatalf("next request: %v", err)
			}
			if got, want := runs.list(), []string{wantArgs["call_repairable"], wantArgs["call_valid"]}; !slices.Equal(got, want) {
				t.Errorf("the tool ran with %q, want %q", got, want)
			}

			items := lastInput(t, srv)
			var outputs []string
			for _, it := range items {
				switch it.Type {
				case "function_call":
					if stateful {
						t.Errorf("function_call %s sent again with previous_response_id", it.CallID)
					}
					if it.Arguments != wantArgs[it.CallID] {
						t.Errorf("call %s sent back with arguments %s, want %s", it.CallID, it.Arguments, wantArgs[it.CallID])
					}
					if !strings.HasPrefix(it.ID, "fc_") || it.Name == "" {
						t.Errorf("call %s sent back without its item id or name: %+v", it.CallID, it)
					}
				case "function_call_output":
					outputs = append(outputs, it.CallID)
					var out string
					if err := jsonString(it.Output, &out); err != nil || !strings.Contains(out, wantOut[it.CallID]) {
						t.Errorf("the output of %s is %s, want it to contain %q", it.CallID, it.Output, wantOut[it.CallID])
					}
				}
			}
			if want := []string{"call_valid", "call_broken", "call_invalid", "call_unknown", "call_repairable"}; !slices.Equal(outputs, want) {
				t.Errorf("function_call_output call_ids %v, want %v", outputs, want)
			}
		})
	}
}

func TestRunResponseCut(t *testing.T) {
	ctx := context.Background()
	g, runs := newGuard(t)
	srv := openaitest.NewServer(openaitest.Reply{Finish: "max_output_tokens", Calls: []openaitest.Call{
		{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`},
		{ID: "call_b", Name: "get_weather", Arguments: `{"city":"Os`},
	}}, openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	resp, err := client.Responses.New(ctx, responseParams(userItem))
	if err != nil {
		t.Fatal(err)
	}
	turn, err := g.RunResponse(ctx, nil, resp)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.Responses.New(ctx, responseParams(append([]responses.ResponseInputItemUnionParam{userItem}, turn.Input()...)...)); err != nil {
		t.Fatal(err)
	}
	if len(runs.list()) != 0 {
		t.Errorf("a cut reply ran %v", runs.list())
	}
	for _, it := range lastInput(t, srv) {
		if it.Type == "function_call_output" && !strings.Contains(string(it.Output), "output-token limit") {
			t.Errorf("the output of %s is %s, want the output-limit notice", it.CallID, it.Output)
		}
		if it.Type == "function_call" && it.CallID == "call_b" && it.Arguments != "{}" {
			t.Errorf("the cut call is sent back with %s, want {}", it.Arguments)
		}
	}
}

func TestCheckResponse(t *testing.T) {
	ctx := context.Background()
	g, runs := newGuard(t)
	srv := openaitest.NewServer(openaitest.Reply{Calls: brokenTurn}, openaitest.Reply{Text: "done"})
	defer srv.Close()
	client := srv.Client()
	resp, err := client.Responses.New(ctx, responseParams(userItem))
	if err != nil {
		t.Fatal(err)
	}
	chk, err := g.CheckResponse(ctx, nil, resp)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs.list()) != 0 {
		t.Fatal("CheckResponse ran a tool")
	}
	var ready []string
	outputs := map[string]string{}
	for _, r := range chk.Ready {
		ready = append(ready, r.ID+" "+r.Arguments)
		outputs[r.ID] = "ran"
	}
	if want := []string{`call_valid {"city":"Paris","days":2}`, `call_repairable {"city":"Oslo","days":1}`}; !slices.Equal(ready, want) {
		t.Errorf("Ready %q, want %q", ready, want)
	}
	if _, err := chk.Outputs(nil); !errors.Is(err, saidexopenai.ErrNoOutput) {
		t.Errorf("Outputs(nil): err = %v, want ErrNoOutput", err)
	}
	outs, err := chk.Outputs(outputs)
	if err != nil {
		t.Fatal(err)
	}
	input := append(append([]responses.ResponseInputItemUnionParam{userItem}, chk.Items...), outs...)
	if _, err := client.Responses.New(ctx, responseParams(input...)); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, it := range lastInput(t, srv) {
		if it.Type == "function_call_output" {
			n++
		}
		if it.Type == "function_call" && it.CallID == "call_repairable" && it.Arguments != `{"city":"Oslo","days":1}` {
			t.Errorf("call_repairable sent back with %s", it.Arguments)
		}
	}
	if n != len(brokenTurn) {
		t.Errorf("%d outputs sent, want %d", n, len(brokenTurn))
	}
}

// TestStoppedRepliesRunNothing: a reply that stopped before it was
// complete for a reason other than the output limit (a content filter, a
// failed or unfinished Response) runs no call and returns
// ErrIncompleteReply.
func TestStoppedRepliesRunNothing(t *testing.T) {
	ctx := context.Background()
	g, runs := newGuard(t)
	calls := []openaitest.Call{{ID: "call_a", Name: "get_weather", Arguments: `{"city":"Paris","days":2}`}}
	srv := openaitest.NewServer(openaitest.Reply{Finish: "content_filter", Calls: calls})
	defer srv.Close()
	client := srv.Client()
	completion, err := client.Chat.Completions.New(ctx, userParams("weather?"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := g.RunChat(ctx, nil, completion.Choices[0]); !errors.Is(err, saidexopenai.ErrIncompleteReply) {
		t.Errorf("RunChat after content_filter: %v", err)
	}
	if _, err := g.CheckChat(ctx, nil, completion.Choices[0]); !errors.Is(err, saidexopenai.ErrIncompleteReply) {
		t.Errorf("CheckChat after content_filter: %v", err)
	}
	for _, status := range []string{"failed", "cancelled", "in_progress", "queued"} {
		var resp responses.Response
		if err := json.Unmarshal([]byte(`{"id":"resp_1","object":"response","status":"`+status+`","output":[
			{"type":"function_call","id":"fc_1","call_id":"call_a","name":"get_weather","arguments":"{\"city\":\"Paris\",\"days\":2}","status":"completed"}]}`), &resp); err != nil {
			t.Fatal(err)
		}
		if _, err := g.RunResponse(ctx, nil, &resp); !errors.Is(err, saidexopenai.ErrIncompleteReply) {
			t.Errorf("RunResponse of a %s Response: %v", status, err)
		}
		if _, err := g.CheckResponse(ctx, nil, &resp); !errors.Is(err, saidexopenai.ErrIncompleteReply) {
			t.Errorf("CheckResponse of a %s Response: %v", status, err)
		}
	}
	if len(runs.list()) != 0 {
		t.Errorf("a stopped reply ran %v", runs.list())
	}
}
