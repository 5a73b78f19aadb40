package saidexanthropic_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	anthropic "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/toolrunner"
	"github.com/saidex/saidex-go"
	"github.com/saidex/saidex-go/saidexanthropic"
	"github.com/saidex/saidex-go/saidexanthropic/anthropictest"
)

type betaWeatherArgs struct {
	City string `json:"city" jsonschema:"required"`
	Days int    `json:"days,omitempty" jsonschema:"minimum=1,maximum=14"`
}

// betaWeather returns the SDK's own beta tool, made by toolrunner, and the
// arguments it ran with.
func betaWeather(t *testing.T) (anthropic.BetaTool, func() []betaWeatherArgs) {
	t.Helper()
	var mu sync.Mutex
	var ran []betaWeatherArgs
	tool, err := toolrunner.NewBetaToolFromJSONSchema("get_weather", "Weather forecast for a city.",
		func(_ context.Context, a betaWeatherArgs) (anthropic.BetaToolResultBlockParamContentUnion, error) {
			mu.Lock()
			ran = append(ran, a)
			mu.Unlock()
			return anthropic.BetaToolResultBlockParamContentUnion{OfText: &anthropic.BetaTextBlockParam{
				Text: fmt.Sprintf("%s: sunny for %d days", a.City, a.Days)}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	return tool, func() []betaWeatherArgs {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(ran)
	}
}

func TestBetaToolsAnswerWithFeedbackBeforeExecute(t *testing.T) {
	ctx := context.Background()
	srv, client := newServer(t, anthropictest.Reply{Content: []anthropictest.Block{
		anthropictest.ToolUse("toolu_ok", "get_weather", `{"city":"Paris","days":2}`),
		anthropictest.ToolUse("toolu_coerce", "get_weather", `{"city":"Oslo","days":"3"}`),
		anthropictest.ToolUse("toolu_range", "get_weather", `{"city":"Rome","days":30}`),
		anthropictest.ToolUse("toolu_missing", "get_weather", `{"days":2}`),
	}}, done)
	tool, ran := betaWeather(t)
	guarded, err := saidexanthropic.BetaTools([]anthropic.BetaTool{tool}, saidex.WithCoercion(saidex.CoercionLax))
	if err != nil {
		t.Fatal(err)
	}
	runner := client.Beta.Messages.NewToolRunner(guarded, anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{
			Model: "claude-test", MaxTokens: 1024,
			Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("Weather?"))},
		},
		DisableThread: true, // the local server keeps no thread
	})
	final, err := runner.RunToCompletion(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if final.StopReason != anthropic.BetaStopReasonEndTurn {
		t.Errorf("final stop reason %q", final.StopReason)
	}
	checkNextRequest(t, srv, []wantCall{
		{"toolu_ok", `{"city":"Paris","days":2}`, false, "Paris: sunny for 2 days"},
		{"toolu_coerce", `{"city":"Oslo","days":"3"}`, false, "Oslo: sunny for 3 days"},
		{"toolu_range", `{"city":"Rome","days":30}`, true, "Error: get_weather was not executed because its arguments do not match the tool's schema:\n- days: must be at most 14"},
		{"toolu_missing", `{"days":2}`, true, "city"},
	})
	got := ran()
	slices.SortFunc(got, func(a, b betaWeatherArgs) int { return strings.Compare(a.City, b.City) })
	if want := []betaWeatherArgs{{"Oslo", 3}, {"Paris", 2}}; !slices.Equal(got, want) {
		t.Errorf("the tool ran with %v, want %v", got, want)
	}
}

func TestBetaToolsExecuteReturnsFeedbackError(t *testing.T) {
	tool, ran := betaWeather(t)
	guarded, err := saidexanthropic.BetaTools([]anthropic.BetaTool{tool})
	if err != nil {
		t.Fatal(err)
	}
	g := guarded[0]
	if g.Name() != "get_weather" || g.Description() != tool.Description() {
		t.Errorf("the wrapped tool is %q %q", g.Name(), g.Description())
	}
	_, err = g.Execute(context.Background(), []byte(`{"city": "Rome", "days": 0}`))
	var fe *saidexanthropic.FeedbackError
	if !errors.As(err, &fe) || fe.Outcome != saidex.OutcomeFeedback || !strings.Contains(fe.Feedback, "days: must be at least 1") ||
		"Error: "+err.Error() != fe.Feedback {
		t.Fatalf("Execute = %v, want a *FeedbackError whose text, after the runner's \"Error: \", is the feedback", err)
	}
	out, err := g.Execute(context.Background(), []byte(`{'city': 'Rome', 'days': 1,}`))
	if err != nil || len(out) != 1 || out[0].OfText == nil || out[0].OfText.Text != "Rome: sunny for 1 days" {
		t.Fatalf("Execute on repairable input = %v, %v", out, err)
	}
	if len(ran()) != 1 {
		t.Errorf("runs %v, want one", ran())
	}
	if _, err := saidexanthropic.BetaTools([]anthropic.BetaTool{nil}); !errors.Is(err, saidex.ErrInvalidConfig) {
		t.Errorf("BetaTools(nil tool) = %v, want ErrInvalidConfig", err)
	}
}

// The streaming runner runs the same guarded tools.
func TestBetaToolsStreamingRunner(t *testing.T) {
	ctx := context.Background()
	srv, client := newServer(t, anthropictest.Reply{Content: []anthropictest.Block{
		anthropictest.ToolUse("toolu_ok", "get_weather", `{"city":"Paris","days":2}`),
		anthropictest.ToolUse("toolu_range", "get_weather", `{"city":"Rome","days":30}`),
	}}, done)
	tool, ran := betaWeather(t)
	guarded, err := saidexanthropic.BetaTools([]anthropic.BetaTool{tool})
	if err != nil {
		t.Fatal(err)
	}
	runner := client.Beta.Messages.NewToolRunnerStreaming(guarded, anthropic.BetaToolRunnerParams{
		BetaMessageNewParams: anthropic.BetaMessageNewParams{
			Model: "claude-test", MaxTokens: 1024,
			Messages: []anthropic.BetaMessageParam{anthropic.NewBetaUserMessage(anthropic.NewBetaTextBlock("Weather?"))},
		},
		DisableThread: true,
	})
	for events, err := range runner.AllStreaming(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		for _, err := range events {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	checkNextRequest(t, srv, []wantCall{
		{"toolu_ok", `{"city":"Paris","days":2}`, false, "Paris: sunny for 2 days"},
		{"toolu_range", `{"city":"Rome","days":30}`, true, "days: must be at most 14"},
	})
	if got := ran(); len(got) != 1 || got[0] != (betaWeatherArgs{"Paris", 2}) {
		t.Errorf("runs %v", got)
	}
}
