package saidex

import (
	"context"
	"fmt"
	"strings"
)

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

// feedbackFor renders the feedback message of an invalid call.
// TODO(feedback): field-level rendering.
func feedbackFor(c *call) string {
	var b strings.Builder
	if c.noFunc {
		return "Error: the tool call names no function. Call one of the available tools with a JSON object of arguments."
	}
	if c.err != nil {
		fmt.Fprintf(&b, "Error: the arguments of %s could not be parsed: %v. Send the arguments as one JSON object.", c.name, c.err)
		return b.String()
	}
	fmt.Fprintf(&b, "Error: the arguments of %s are invalid:\n", c.name)
	for _, is := range c.issues {
		fmt.Fprintf(&b, "- %s: %s\n", is.Path, is.Message)
	}
	b.WriteString("Call the tool again with corrected arguments.")
	return b.String()
}
