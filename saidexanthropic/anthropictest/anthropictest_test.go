package anthropictest_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/saidex/saidex-go/saidexanthropic/anthropictest"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var reply = anthropictest.Reply{Content: []anthropictest.Block{
	anthropictest.Text("Checking."),
	anthropictest.ToolUse("toolu_1", "get_weather", `{"city": "Paris", "days": 2}`),
}}

func client(s *anthropictest.Server) anthropic.Client {
	return anthropic.NewClient(option.WithBaseURL(s.URL), option.WithAPIKey("k"), option.WithMaxRetries(0))
}

var params = anthropic.MessageNewParams{Model: "claude-test", MaxTokens: 10,
	Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("hi"))}}

// A JSON reply and a streamed one read back, through the SDK, as the
// scripted blocks; the request is recorded.
func TestReplies(t *testing.T) {
	for _, streamed := range []bool{false, true} {
		s := anthropictest.NewServer(reply)
		c := client(s)
		var msg anthropic.Message
		if streamed {
			st := c.Messages.NewStreaming(context.Background(), params)
			for st.Next() {
				if err := msg.Accumulate(st.Current()); err != nil {
					t.Fatal(err)
				}
			}
			if err := st.Err(); err != nil {
				t.Fatal(err)
			}
			st.Close()
		} else {
			m, err := c.Messages.New(context.Background(), params)
			if err != nil {
				t.Fatal(err)
			}
			msg = *m
		}
		s.Close()
		if len(msg.Content) != 2 || msg.Content[0].Text != "Checking." || msg.Content[1].ID != "toolu_1" ||
			msg.Content[1].Name != "get_weather" || strings.ReplaceAll(string(msg.Content[1].Input), " ", "") != `{"city":"Paris","days":2}` ||
			msg.StopReason != anthropic.StopReasonToolUse {
			t.Errorf("streamed=%v: the reply reads back as %s", streamed, msg.RawJSON())
		}
		reqs := s.Requests()
		if len(reqs) != 1 || reqs[0].Stream != streamed || reqs[0].Refused != "" || len(reqs[0].Messages) != 1 ||
			reqs[0].Messages[0].Content[0].Text != "hi" {
			t.Errorf("streamed=%v: recorded %+v", streamed, reqs)
		}
	}
}

// A request that comes when no reply is left is refused with HTTP 400.
func TestNoReplyLeft(t *testing.T) {
	s := anthropictest.NewServer()
	defer s.Close()
	c := client(s)
	_, err := c.Messages.New(context.Background(), params)
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || !strings.Contains(err.Error(), "no scripted reply left") {
		t.Errorf("err = %v", err)
	}
	if _, ok := s.Last(); !ok {
		t.Error("the refused request was not recorded")
	}
}
