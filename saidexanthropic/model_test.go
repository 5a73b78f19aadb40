package saidexanthropic_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexanthropic"
	"github.com/saidex/saidex-go/saidexanthropic/anthropictest"
)

// A call that breaks the schema is corrected by Claude through the SDK's
// own client: the correction request forces the tool, the call
// runs with the corrected arguments, and they are what the next request
// sends back.
func TestCorrectionModelThroughTheSDK(t *testing.T) {
	ctx := context.Background()
	corrSrv, corrClient := newServer(t, anthropictest.Reply{Content: []anthropictest.Block{
		anthropictest.ToolUse("toolu_fix", "get_weather", `{"city":"Rome","days":14}`),
	}})
	g, ran := newGuard(t, saidex.WithCorrectionModel(saidexanthropic.CorrectionModel(corrClient, "claude-haiku-test")))
	srv, client := newServer(t, anthropictest.Reply{Content: []anthropictest.Block{
		anthropictest.ToolUse("toolu_range", "get_weather", `{"city":"Rome","days":30}`),
	}}, done)
	params := firstParams(g)
	msg, err := client.Messages.New(ctx, params)
	if err != nil {
		t.Fatal(err)
	}
	turn, err := g.Run(ctx, params.Messages, msg)
	if err != nil {
		t.Fatal(err)
	}
	params.Messages = append(params.Messages, turn.Messages()...)
	if _, err := client.Messages.New(ctx, params); err != nil {
		t.Fatal(err)
	}
	checkNextRequest(t, srv, []wantCall{{"toolu_range", `{"city":"Rome","days":14}`, false, "Rome: sunny for 14 days"}})
	if c := turn.Calls[0]; c.Outcome != saidex.OutcomeCorrected || c.Tokens["claude-test"].OutputTokens != 5 {
		t.Errorf("report: outcome %s, tokens %v; want corrected, usage keyed by the response's model", c.Outcome, c.Tokens)
	}
	if got := ran.all(); len(got) != 1 || got[0] != (weatherArgs{"Rome", 14}) {
		t.Errorf("runs %v", got)
	}
	req, ok := corrSrv.Last()
	if !ok {
		t.Fatal("no correction request")
	}
	var body struct {
		Model      string            `json:"model"`
		ToolChoice map[string]string `json:"tool_choice"`
		Tools      []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil {
		t.Fatal(err)
	}
	if body.Model != "claude-haiku-test" || body.ToolChoice["type"] != "tool" || body.ToolChoice["name"] != "get_weather" ||
		len(body.Tools) != 1 || body.Tools[0].Name != "get_weather" || !strings.Contains(string(body.Tools[0].InputSchema), `"maximum":14`) {
		t.Errorf("correction request: %s", req.Body)
	}
	if len(req.Messages) != 1 || !strings.Contains(req.Messages[0].Content[0].Text, "get_weather") {
		t.Errorf("correction prompt: %+v", req.Messages)
	}
}
