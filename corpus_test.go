package saidex_test

import (
	"context"
	"os"
	"testing"

	"github.com/saidex/saidex-go/internal/corpus"
	"github.com/saidex/saidex-go/internal/corpusfile"
)

// devCorpusMinCases is the size of the shared dev corpus when its line
// was last 301/301: the test fails if the file shrinks below it.
const devCorpusMinCases = 301

// TestDevCorpusPassesEveryCase runs the shared dev corpus through a default
// ToolNode and fails on every case that does not pass: a silent corruption
// (schema-valid arguments that differ from what the model meant), an
// over-strict refusal, a wrong issue set, an invented repair or a harness
// error; and when the file holds fewer than devCorpusMinCases cases. It
// skips when the corpus is absent (CI runs it, and corpuseval -min 301).
func TestDevCorpusPassesEveryCase(t *testing.T) {
	const path = "../shared/corpus/dev.jsonl"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus not present: %v", err)
	}
	cases, err := corpusfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) < devCorpusMinCases {
		t.Errorf("%s holds %d cases, want at least %d", path, len(cases), devCorpusMinCases)
	}
	var sum corpus.Summary
	for i := range cases {
		o := corpus.Score(context.Background(), &cases[i])
		sum.Add(o)
		if o.Verdict != corpus.Pass {
			t.Errorf("%s [%s/%s]: %s: %s", o.Case.ID, o.Case.Category, o.Case.Expect, o.Verdict, o.Detail)
		}
	}
	t.Log(sum.Line())
}
