package saidex

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/tmc/langchaingo/llms"
)

func TestGroupToolResponses(t *testing.T) {
	human := llms.TextParts(llms.ChatMessageTypeHuman, "hi")
	resp := func(id, name string) llms.ToolCallResponse {
		return llms.ToolCallResponse{ToolCallID: id, Name: name, Content: "r" + id + name}
	}
	ans := func(rs ...llms.ToolCallResponse) llms.MessageContent {
		m := llms.MessageContent{Role: llms.ChatMessageTypeTool}
		for _, r := range rs {
			m.Parts = append(m.Parts, r)
		}
		return m
	}
	ai := func(parts ...llms.ContentPart) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts}
	}
	a, b := tc("a", "f", `{}`), tc("b", "g", `{}`)
	h1, h2, g1 := tc("", "h", `{"n":1}`), tc("", "h", `{"n":2}`), tc("", "g", `{}`)
	tests := []struct {
		name string
		in   []llms.MessageContent
		want []llms.MessageContent
	}{
		{
			name: "answers out of order become one message in call order",
			in:   []llms.MessageContent{human, ai(llms.TextPart("x"), a, b), ans(resp("b", "g")), ans(resp("a", "f")), human},
			want: []llms.MessageContent{human, ai(llms.TextPart("x"), a, b), ans(resp("a", "f"), resp("b", "g")), human},
		},
		{
			name: "calls without id (Gemini) are matched by name, calls of one tool in order",
			in:   []llms.MessageContent{ai(h1, g1, h2), ans(resp("", "h")), ans(resp("", "g")), ans(resp("", "h"))},
			want: []llms.MessageContent{ai(h1, g1, h2), ans(resp("", "h"), resp("", "g"), resp("", "h"))},
		},
		{
			name: "a single answered call is one tool message as before",
			in:   []llms.MessageContent{human, ai(a), ans(resp("a", "f"))},
			want: []llms.MessageContent{human, ai(a), ans(resp("a", "f"))},
		},
		{
			name: "stray answers follow the grouped message, in order",
			in:   []llms.MessageContent{ai(a, b), ans(resp("z", "q")), ans(resp("b", "g")), ans(resp("y", "q"))},
			want: []llms.MessageContent{ai(a, b), ans(resp("b", "g")), ans(resp("z", "q")), ans(resp("y", "q"))},
		},
		{
			name: "every turn of a conversation is grouped; messages without calls are unchanged",
			in: []llms.MessageContent{human, ai(a, b), ans(resp("a", "f")), ans(resp("b", "g")),
				ai(llms.TextPart("ok")), human, ai(b, a), ans(resp("a", "f")), ans(resp("b", "g"))},
			want: []llms.MessageContent{human, ai(a, b), ans(resp("a", "f"), resp("b", "g")),
				ai(llms.TextPart("ok")), human, ai(b, a), ans(resp("b", "g"), resp("a", "f"))},
		},
		{
			name: "an AI message without tool messages after it is unchanged",
			in:   []llms.MessageContent{ai(a, b), human},
			want: []llms.MessageContent{ai(a, b), human},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := deepCopy(tt.in)
			got := GroupToolResponses(tt.in)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
			if !reflect.DeepEqual(tt.in, before) {
				t.Error("input modified")
			}
		})
	}
}

// matchResponsesByScan is the reference for matchResponses: for each call
// in order, a scan of every response for the first one not yet taken that
// answers it (quadratic; matchResponses indexes the responses instead).
func matchResponsesByScan(ai llms.MessageContent, after []llms.MessageContent) []int {
	type response struct {
		msg  int
		r    llms.ToolCallResponse
		used bool
	}
	answers := func(r llms.ToolCallResponse, tc llms.ToolCall) bool {
		if r.ToolCallID != tc.ID {
			return false
		}
		if tc.ID != "" {
			return true
		}
		name := ""
		if tc.FunctionCall != nil {
			name = tc.FunctionCall.Name
		}
		return r.Name == name
	}
	var rs []response
	for i, m := range after {
		if m.Role != llms.ChatMessageTypeTool {
			continue
		}
		for _, p := range m.Parts {
			switch r := p.(type) {
			case llms.ToolCallResponse:
				rs = append(rs, response{msg: i, r: r})
			case *llms.ToolCallResponse:
				if r != nil {
					rs = append(rs, response{msg: i, r: *r})
				}
			}
		}
	}
	calls := toolCallsOf(ai)
	out := make([]int, len(calls))
	seen := map[string]bool{}
	for k, tc := range calls {
		out[k] = -1
		if tc.ID != "" {
			if seen[tc.ID] {
				continue
			}
			seen[tc.ID] = true
		}
		for j := range rs {
			if r := &rs[j]; !r.used && answers(r.r, tc) {
				r.used, out[k] = true, r.msg
				break
			}
		}
	}
	return out
}

// Each call takes the first response not yet taken that answers it: by id,
// or, without id, by tool name; a repeated id is never answered; responses
// are found in any part of any tool message, by value or by pointer, and
// other messages are skipped.
func TestMatchResponses(t *testing.T) {
	ai := func(parts ...llms.ContentPart) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts}
	}
	ans := func(parts ...llms.ContentPart) llms.MessageContent {
		return llms.MessageContent{Role: llms.ChatMessageTypeTool, Parts: parts}
	}
	r := func(id, name string) llms.ToolCallResponse { return llms.ToolCallResponse{ToolCallID: id, Name: name} }
	rp := func(id, name string) *llms.ToolCallResponse { x := r(id, name); return &x }
	noFunc := llms.ToolCall{ID: ""}
	tests := []struct {
		name  string
		ai    llms.MessageContent
		after []llms.MessageContent
		want  []int
	}{
		{"by id, in any order", ai(tc("a", "f", ""), tc("b", "f", "")), []llms.MessageContent{ans(r("b", "f")), ans(r("a", "f"))}, []int{1, 0}},
		{"an id answers whatever the name", ai(tc("a", "f", "")), []llms.MessageContent{ans(r("a", "other"))}, []int{0}},
		{"a repeated id is never answered", ai(tc("a", "f", ""), tc("a", "f", "")), []llms.MessageContent{ans(r("a", "f")), ans(r("a", "f"))}, []int{0, -1}},
		{"without id, by name, in order", ai(tc("", "h", ""), tc("", "g", ""), tc("", "h", "")),
			[]llms.MessageContent{ans(r("", "h")), ans(r("", "g")), ans(r("", "h"))}, []int{0, 1, 2}},
		{"a response without id does not answer a call with one", ai(tc("a", "h", "")), []llms.MessageContent{ans(r("", "h"))}, []int{-1}},
		{"a response with an id does not answer a call without", ai(tc("", "h", "")), []llms.MessageContent{ans(r("x", "h"))}, []int{-1}},
		{"a call without function matches a response without id or name", ai(noFunc), []llms.MessageContent{ans(r("", "f")), ans(r("", ""))}, []int{1}},
		{"parts of one message, by pointer, nil pointers skipped", ai(tc("a", "f", ""), tc("b", "f", "")),
			[]llms.MessageContent{ans((*llms.ToolCallResponse)(nil), rp("b", "f"), r("a", "f"))}, []int{0, 0}},
		{"non-tool messages are skipped", ai(tc("a", "f", "")),
			[]llms.MessageContent{{Role: llms.ChatMessageTypeHuman, Parts: []llms.ContentPart{r("a", "f")}}, ans(r("a", "f"))}, []int{1}},
		{"more responses than calls", ai(tc("", "h", "")), []llms.MessageContent{ans(r("", "h")), ans(r("", "h"))}, []int{0}},
		{"no responses", ai(tc("a", "f", ""), llms.TextPart("x")), nil, []int{-1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchResponses(tt.ai, tt.after); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("matchResponses = %v, want %v", got, tt.want)
			}
			if got := matchResponsesByScan(tt.ai, tt.after); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("the reference = %v, want %v", got, tt.want)
			}
		})
	}
}

// matchResponses agrees with the scan on random messages: ids drawn from a
// few (so they repeat), empty ids, a few names, responses spread over
// messages by value and by pointer.
func TestMatchResponsesAgreesWithTheScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(24, 4))
	pick := func(xs ...string) string { return xs[rng.IntN(len(xs))] }
	for i := range 5000 {
		var parts []llms.ContentPart
		for range rng.IntN(8) {
			if rng.IntN(6) == 0 {
				parts = append(parts, llms.TextPart("t"))
				continue
			}
			parts = append(parts, tc(pick("", "", "a", "b", "c"), pick("f", "g"), "{}"))
		}
		var after []llms.MessageContent
		for range rng.IntN(8) {
			m := llms.MessageContent{Role: llms.ChatMessageTypeTool}
			if rng.IntN(8) == 0 {
				m.Role = llms.ChatMessageTypeHuman
			}
			for range 1 + rng.IntN(2) {
				resp := llms.ToolCallResponse{ToolCallID: pick("", "", "a", "b", "c", "d"), Name: pick("f", "g")}
				if rng.IntN(2) == 0 {
					m.Parts = append(m.Parts, &resp)
				} else {
					m.Parts = append(m.Parts, resp)
				}
			}
			after = append(after, m)
		}
		ai := llms.MessageContent{Role: llms.ChatMessageTypeAI, Parts: parts}
		if got, want := matchResponses(ai, after), matchResponsesByScan(ai, after); !reflect.DeepEqual(got, want) {
			t.Fatalf("case %d: matchResponses = %v, the scan = %v\nai %+v\nafter %+v", i, got, want, ai, after)
		}
	}
}

// Matching examines at most one response per call, however many calls
// and responses there are: a scan of the responses for each call (as
// matchResponsesByScan does) examines a number that grows with the square
// of the calls, which made a message of 10,000 calls, half of them
// answered, 40 times as slow as one of 1,000.
func TestMatchResponsesExaminesOneResponsePerCall(t *testing.T) {
	for _, n := range []int{10, 10000} {
		msgs := halfAnswered(n)
		out, probes := matchResponsesCounted(msgs[1], msgs[2:])
		answered := 0
		for _, k := range out {
			if k >= 0 {
				answered++
			}
		}
		if answered != n/2 || probes > len(out) {
			t.Errorf("%d calls: %d answered (want %d), %d responses examined (want at most %d)", n, answered, n/2, probes, len(out))
		}
	}
}
