package saidex

import (
	"errors"
	"strings"

	"github.com/tmc/langchaingo/llms"
)

// ErrOutputLimit is the error of every call of a reply that the model's
// output-token limit cut short (see [WithFinishReason]): [CallReport].Err
// is it for such a call, and errors.Is finds it.
var ErrOutputLimit = errors.New("saidex: the reply was cut by the output-token limit")

// WithFinishReason gives one run the finish reason (stop reason) of the
// model response that holds the AI message, as the provider reported it:
// llms.ContentChoice.StopReason for langchaingo, ResponseMeta.FinishReason
// for Eino, the choice's FinishReason or the message's StopReason for the
// providers' own SDKs. [WrapModel] passes it for you. Default: none (""),
// which cuts nothing.
//
// When [IsOutputLimit] reports that the reason means the output-token limit
// cut the reply, no call of the message runs: not the last one, whose
// arguments the limit cut, nor the ones before it, since the whole turn was
// cut short and the model may have meant more calls, or other calls, than
// it sent. Each pending call is answered with feedback that says so and
// asks for shorter or split calls, and reports [OutcomeOutputLimit] with
// one issue of kind [IssueOutputLimit] and Err [ErrOutputLimit]. This holds
// whatever the arguments look like, valid JSON or closable, and when an SDK
// accumulator replaced a cut call's arguments by "{}": the feedback never
// names a missing field. Such calls are neither repaired, nor sent to the
// correction model or the unresolved hook; with
// [WithOnUnresolved]([UnresolvedRaise]) they are unresolved calls of the
// [*ToolCallValidationError] instead. Calls that the history already
// answers are skipped as always, and the feedback counts toward
// [WithFeedbackLimit] like any other.
func WithFinishReason(reason string) RunOption {
	return runOptionFunc(func(c *runConfig) { c.outputLimit = IsOutputLimit(reason) })
}

// IsOutputLimit reports whether a provider's finish reason says that the
// model stopped because it reached its output-token limit. It recognises,
// ignoring case, '_', '-' and spaces:
//
//   - "length": OpenAI's Chat Completions and every OpenAI-compatible
//     server (Ollama's, vLLM's, DeepSeek's, Groq's…), Mistral;
//   - "model_length": Mistral, when the model's context ran out;
//   - "max_tokens": Anthropic (langchaingo's anthropic and bedrock
//     clients, anthropic-sdk-go), Amazon Bedrock's Converse API and Nova;
//   - "model_context_window_exceeded": Anthropic, when the context window
//     ran out before the output limit;
//   - "MAX_TOKENS": Gemini and Vertex AI REST, Cohere;
//   - "FinishReasonMaxTokens": langchaingo's googleai and vertex clients
//     (the genai enum's String form);
//   - "max_output_tokens": OpenAI's Responses API
//     (incomplete_details.reason).
//
// langchaingo's ollama client sets no StopReason; use Ollama through its
// OpenAI-compatible endpoint (langchaingo's openai client) for the cut to
// be seen.
func IsOutputLimit(reason string) bool {
	if reason == "" {
		return false
	}
	var b [32]byte
	k := 0
	for i := 0; i < len(reason); i++ {
		ch := reason[i]
		switch {
		case ch == '_' || ch == '-' || ch == ' ':
			continue
		case 'A' <= ch && ch <= 'Z':
			ch += 'a' - 'A'
		}
		if k == len(b) {
			return false
		}
		b[k] = ch
		k++
	}
	switch string(b[:k]) {
	case "length", "modellength", "maxtokens", "finishreasonmaxtokens", "maxoutputtokens", "modelcontextwindowexceeded":
		return true
	}
	return false
}

// cutShort is the output-limit stage: in a run whose reply the output
// limit cut (WithFinishReason), every pending call becomes invalid with
// the output-limit issue, before repair, so that nothing reads, corrects
// or runs it; resolve answers it (limit.go's answerUnresolved). Dropped
// calls stay dropped.
func (n *ToolNode) cutShort(r *run, calls []*call) {
	if !r.outputLimit {
		return
	}
	for _, c := range calls {
		if c.status == statusDropped || c.status == statusSkipped {
			continue
		}
		c.status, c.outcome, c.cut = statusInvalid, OutcomeOutputLimit, true
		c.args, c.value, c.err = "", nil, ErrOutputLimit
		c.issues = []Issue{{Kind: IssueOutputLimit,
			Message: "the reply was cut by the output-token limit, so these arguments may be incomplete"}}
	}
}

// outputLimitFeedback answers a call of a reply the output limit cut. It
// names no field: the call may have been complete, or cut anywhere.
func outputLimitFeedback(c *call) string {
	var b strings.Builder
	b.WriteString(feedbackHead)
	if c.name == "" {
		b.WriteString("this tool call")
	} else {
		b.WriteString(c.name)
	}
	b.WriteString(notExecuted) // the marker of the node's feedback (limit.go)
	b.WriteString(" the reply that holds it was cut off by the output-token limit: its arguments are incomplete, ")
	b.WriteString("and no tool call of that reply was executed. ")
	b.WriteString("Send the call again, complete: keep its arguments shorter, or split the content over several smaller calls.")
	return b.String()
}

// outputLimitNotice is the line [WrapModel] appends to the text of a
// response the output limit cut, so that a node that later runs the AI
// message built from it refuses its calls without being told the finish
// reason (see markedCut).
const outputLimitNotice = "[saidex: the output-token limit cut this reply off, so none of its tool calls was executed]"

// markedCut reports whether the AI message ai carries WrapModel's
// output-limit notice as the last line of one of its text parts: a fixed
// rule, read from the history alone, as the node's feedback is (limit.go).
func markedCut(ai llms.MessageContent) bool {
	for _, p := range ai.Parts {
		var text string
		switch t := p.(type) {
		case llms.TextContent:
			text = t.Text
		case *llms.TextContent:
			if t == nil {
				continue
			}
			text = t.Text
		default:
			continue
		}
		if strings.HasSuffix(strings.TrimRight(text, " \t\r\n"), outputLimitNotice) {
			return true
		}
	}
	return false
}
