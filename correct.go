package saidex

import "context"

// correct is the correction stage: with a correction model, correctable
// invalid calls are corrected concurrently.
// TODO(correct): issue "Correction by a model".
func (n *ToolNode) correct(ctx context.Context, r *run, calls []*call) error {
	return nil
}
