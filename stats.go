package saidex

import "context"

// emit is the observability stage: it publishes the run's event.
// TODO(stats): issue "observability".
func (n *ToolNode) emit(ctx context.Context, r *run, res *Result, calls []*call) {}

// TokenUsage counts the tokens spent on correction calls for one model.
type TokenUsage struct {
	InputTokens  int
	OutputTokens int
	TotalTokens  int
}
