package saidex

// sanitize is the clean-history stage: it builds the updated copy of the AI
// message carrying the arguments that ran.
// TODO(sanitize): issue "Clean message history".
func (n *ToolNode) sanitize(r *run, res *Result, calls []*call) {}
