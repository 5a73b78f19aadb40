package saidex_test

import (
	"context"
	"os"
	"testing"

	"github.com/saidex/saidex-go/internal/corpus"
	"github.com/saidex/saidex-go/internal/corpusfile"
)

// TestDevCorpusHasNoSilentCorruption runs the shared dev corpus through a
// default ToolNode and fails on any silent corruption: schema-valid
// arguments that differ from what the model meant. It skips when the corpus
// is absent.
func TestDevCorpusHasNoSilentCorruption(t *testing.T) {
	const path = "../shared/corpus/dev.jsonl"
	if _, err := os.Stat(path); err != nil {
		t.Skipf("corpus not present: %v", err)
	}
	cases, err := corpusfile.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	var sum corpus.Summary
	for i := range cases {
		o := corpus.Score(context.Background(), &cases[i])
		sum.Add(o)
		switch o.Verdict {
		case corpus.Silent:
			t.Errorf("%s [%s/%s]: silent corruption: %s", o.Case.ID, o.Case.Category, o.Case.Expect, o.Detail)
		case corpus.Broken:
			t.Errorf("%s: %s", o.Case.ID, o.Detail)
		}
	}
	t.Log(sum.Line())
}
