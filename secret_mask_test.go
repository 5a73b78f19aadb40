package saidex

import (
	"context"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/tmc/langchaingo/tools"

	"github.com/saidex/saidex-go/saidextest"
)

// maskRun runs one invalid call of login (nestedAuthSchema) carrying
// shapeSecret, corrected by a model that answers answer every time, and
// returns what the tool received and the call's report.
func maskRun(t *testing.T, answer string) ([]string, CallReport, []saidextest.Request) {
	t.Helper()
	var mu sync.Mutex
	var got []string
	login := ToolWithSchema(plainTool{name: "login", fn: func(_ context.Context, in string) (string, error) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, in)
		return "done", nil
	}}, nestedAuthSchema)
	model := saidextest.NewModel(saidextest.ForcedToolCall(answer))
	node := mustNode(t, []tools.Tool{login}, WithCorrectionModel(model), WithLogger(sanDiscard))
	raw := `{"user":5,"auth":{"password":"` + shapeSecret + `"}}`
	res, err := node.Run(context.Background(), conversation(tc("c1", "login", raw)))
	if err != nil {
		t.Fatal(err)
	}
	return got, res.Calls[0], model.Requests()
}

// TestMaskIsNeverExecuted: a corrected call runs only where the mask is
// the whole value of a secret field, with the real value put back; the
// mask anywhere else (another field, padded, glued, inside a longer
// string, in a key, inside a secret object) refuses the correction, and
// the call is answered with feedback naming no secret.
func TestMaskIsNeverExecuted(t *testing.T) {
	m := SecretMask
	tests := []struct {
		name, answer string
		runs         bool
	}{
		{"whole secret value", `{"user":"bob","auth":{"password":"` + m + `"}}`, true},
		{"parent renamed back", `{"user":"bob","Auth":{"password":"` + m + `"}}`, true},
		{"moved to another field", `{"user":"` + m + `","auth":{"password":"` + m + `"}}`, false},
		{"moved to another field only", `{"user":"` + m + `"}`, false},
		{"padded", `{"user":"bob","auth":{"password":" ` + m + ` "}}`, false},
		{"glued", `{"user":"bob","auth":{"password":"x` + m + `"}}`, false},
		{"inside a longer string", `{"user":"bob and ` + m + `","auth":{"password":"` + m + `"}}`, false},
		{"in a key", `{"user":"bob","auth":{"password":"` + m + `"},"` + m + `":1}`, false},
		{"inside a secret object", `{"user":"bob","auth":{"password":{"v":"` + m + `"}}}`, false},
		{"in an array", `{"user":"bob","auth":{"password":"` + m + `"},"tags":["` + m + `"]}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, rep, reqs := maskRun(t, tt.answer)
			for _, in := range got {
				if strings.Contains(in, m) {
					t.Errorf("the tool received the mask: %s", in)
				}
			}
			if tt.runs {
				if len(got) != 1 || !strings.Contains(got[0], shapeSecret) || rep.Outcome != OutcomeCorrected {
					t.Errorf("the tool received %q (outcome %s), want the real secret, corrected", got, rep.Outcome)
				}
				return
			}
			if len(got) != 0 || rep.Outcome != OutcomeFeedback {
				t.Errorf("the tool received %q (outcome %s), want no run and feedback", got, rep.Outcome)
			}
			for _, s := range []string{rep.Output, rep.RawArguments, rep.CorrectionErr.Error()} {
				if strings.Contains(s, shapeSecret) {
					t.Errorf("a text names the secret: %s", s)
				}
			}
			if len(reqs) < 2 || !strings.Contains(reqs[1].Text(), "placeholder") {
				t.Errorf("the retry does not say the placeholder was misplaced")
			}
		})
	}
}

// TestMaskPlacementProperty generates corrected answers that hold the mask
// at random places and in random forms; every answer holding it other
// than as the whole value of the secret field is refused, and every other
// answer runs with the real secret.
func TestMaskPlacementProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(40, 1))
	forms := []func(string) string{
		func(s string) string { return s },
		func(s string) string { return " " + s },
		func(s string) string { return s + " " },
		func(s string) string { return "x" + s },
		func(s string) string { return s + "x" },
		func(s string) string { return "a " + s + " b" },
		func(s string) string { return s + s },
		func(s string) string { return strings.ToUpper(s) }, // still the mask: '*' has no case
	}
	for i := range 60 {
		// Each slot holds plain text, or the mask in one form.
		slot := func() (string, bool) {
			if rng.IntN(3) > 0 {
				return "v" + strconv.Itoa(rng.IntN(100)), false
			}
			return forms[rng.IntN(len(forms))](SecretMask), true
		}
		user, userMask := slot()
		pw, pwMask := slot()
		note, noteMask := slot()
		key, keyMask := slot()
		if rng.IntN(2) == 0 {
			key, keyMask = "k", false
		}
		answer := `{"user":` + strconv.Quote(user) + `,"auth":{"password":` + strconv.Quote(pw) + `},"note":` + strconv.Quote(note) + `,` + strconv.Quote(key) + `:1}`
		misplaced := userMask || noteMask || keyMask || (pwMask && pw != SecretMask)
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			got, rep, _ := maskRun(t, answer)
			for _, in := range got {
				if strings.Contains(in, SecretMask) {
					t.Fatalf("answer %s: the tool received the mask: %s", answer, in)
				}
			}
			if misplaced && len(got) != 0 {
				t.Fatalf("answer %s: ran with %q", answer, got)
			}
			if !misplaced && (len(got) != 1 || rep.Outcome != OutcomeCorrected) {
				t.Fatalf("answer %s: outcome %s, tool got %q; want it corrected", answer, rep.Outcome, got)
			}
			if !misplaced && pw == SecretMask && !strings.Contains(got[0], shapeSecret) {
				t.Fatalf("answer %s: the secret was not put back: %s", answer, got[0])
			}
			if strings.Contains(rep.Output, shapeSecret) {
				t.Fatalf("the feedback names the secret: %s", rep.Output)
			}
		})
	}
}
