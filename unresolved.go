package saidex

import "context"

// resolve is the resolve stage: every call still invalid is answered with
// feedback and is not executed.
func (n *ToolNode) resolve(ctx context.Context, r *run, calls []*call) error {
	for _, c := range calls {
		if c.status != statusInvalid {
			continue
		}
		c.output = feedbackFor(c)
		c.status, c.outcome, c.isError = statusAnswered, OutcomeFeedback, true
	}
	return nil
}
