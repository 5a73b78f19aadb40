// Package saidex is drop-in tool-call middleware for agents built on
// github.com/tmc/langchaingo.
//
// Models emit broken tool calls: argument JSON that does not parse, reasoning
// text around it, a string where an integer belongs, a misnamed key, a
// missing field, an unknown tool. A [ToolNode] sits where a stock tool
// executor sits and, for every tool call of the last AI message, runs
//
//	repair -> validate -> correct -> resolve -> execute
//
// It guarantees that every tool call with a usable id is answered by exactly
// one tool message, so the next model turn is never rejected for an
// unanswered call id.
//
// Each stage lives in the file named after it: repair.go, validate.go,
// correct.go, unresolved.go, execute.go, then sanitize.go (the clean copy of
// the AI message) and stats.go (events); toolnode.go reads as the pipeline.
//
// Package github.com/saidex/saidex-go/agent runs a ToolNode in langchaingo's
// agents.Executor; it is separate so that this package does not import
// langchaingo's agents and chains.
package saidex
