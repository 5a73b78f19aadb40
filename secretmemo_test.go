package saidex

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/llms"
	"github.com/tmc/langchaingo/tools"
)

// Runs that share a node share its tools' memoized secret locations: run
// concurrently (under -race), each reports the same masked arguments and
// history as a run alone, and no text carries the secret.
func TestSecretLocationsSharedByConcurrentRuns(t *testing.T) {
	n := mustNode(t, []tools.Tool{ToolWithSchema(plainTool{name: "login", fn: func(context.Context, string) (string, error) {
		return "ok", nil
	}}, nestedAuthSchema)}, WithLogger(sanDiscard))
	raw := func(i int) string {
		return `{"user":"u` + strconv.Itoa(i) + `","auth":{"password":"` + shapeSecret + `","pass_` + strconv.Itoa(i) + `":1},"note":"n"}`
	}
	alone := func(i int) string {
		res, err := n.Run(context.Background(), conversation(tc("c1", "login", raw(i))))
		if err != nil {
			t.Error(err)
			return ""
		}
		return res.Calls[0].RawArguments + " " + string(res.Calls[0].Arguments) + " " + res.AIMessage.Parts[0].(llms.ToolCall).FunctionCall.Arguments
	}
	const runs = 8
	var want [runs]string
	for i := range runs {
		want[i] = alone(i)
		if strings.Contains(want[i], shapeSecret) {
			t.Fatalf("run %d shows the secret: %s", i, want[i])
		}
	}
	var wg sync.WaitGroup
	for i := range runs {
		wg.Go(func() {
			if got := alone(i); got != want[i] {
				t.Errorf("run %d concurrently: %s, alone: %s", i, got, want[i])
			}
		})
	}
	wg.Wait()
}
