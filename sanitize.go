package saidex

import (
	"encoding/json"
	"log/slog"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
	"github.com/saidex/saidex-go/internal/jsonread"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/saidex/saidex-go/internal/lenient"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/tmc/langchaingo/llms"

	"github.com/saidex/saidex-go/internal/schemawalk"
)

// WithSanitizeMessages sets whether [ToolNode.Invoke] (and
// [Result.Messages], which it returns) replaces the AI message it handled
// with its sanitized copy, [Result.AIMessage]. Default: true.
//
// The copy carries, for every call that ran with repaired, corrected,
// coerced or salvaged arguments or with secret values, the arguments the
// tool received as canonical JSON (compact, keys sorted, what a model would
// send), values of secret fields masked (see [Secret]); arguments valid as
// sent are kept verbatim; a plain tool's arguments repaired to an object are
// stored as repaired, and a plain tool's argument string that is not a JSON
// object is stored as {"__arg1": string}. Arguments that ran holding a
// number beyond float64's range (1e999), which the clients below cannot
// read back, are stored as "{}", with a warning. Calls answered with
// feedback keep their arguments untouched, with two exceptions that keep
// the history sendable: arguments that are not one JSON object are
// replaced by the repaired object when the repair stage recovered one and
// by "{}" otherwise, as are arguments holding such a number (the feedback
// message quotes or describes what was wrong), and secret values are
// masked. Calls answered before the run (skipped, see [ToolNode.Invoke])
// are not run again, but their arguments are stored the same way: kept
// when they are one JSON object (secret values masked), else the repaired
// object when repair recovers one (for a plain tool, what it would have
// received), else "{}". Dropped calls are removed. (The feedback of a
// call whose arguments do not parse quotes their start, secret values
// masked: see [Secret].) Rewritten calls, and calls with an empty Type (as langchaingo's
// Anthropic client returns them, and OpenAI rejects them), get Type
// "function". langchaingo's Anthropic and Gemini clients unmarshal the
// arguments of every past tool call, so a single malformed call left in the
// history makes every later model turn fail; OpenAI-compatible servers
// reject it too.
//
// Set it to false when your graph state appends the returned messages
// instead of replacing the conversation; [ToolNode.Run] still reports the
// sanitized copy in [Result.AIMessage].
func WithSanitizeMessages(on bool) Option {
	return optionFunc(func(c *config) { c.keepMessages = !on })
}

// SecretMask is what a secret value is replaced with in the sanitized history.
const SecretMask = "**********"

// Secret is a string argument whose value must not stay in the conversation
// history, such as a password or an API key. Use it as the type of a field
// of a [NewTool] argument struct: the schema marks the field
// {"type":"string","writeOnly":true}, the tool receives the real value, and
// the sanitized AI message (see [WithSanitizeMessages]) stores [SecretMask]
// in its place. A schema property with "writeOnly": true or
// "format": "password" is treated the same way for any [Tool].
//
// No text the node writes about a call shows a secret value: the quote of
// unparseable or oversized arguments in feedback, [CallReport].RawArguments
// and Arguments (of [ToolNode.Run] and [CheckedCalls]; [ToolNode.Check]
// leaves Arguments in clear, since its caller runs the call), the calls of a
// [ToolCallValidationError], and the correction prompt (the call's
// arguments and the earlier calls it quotes as context) and its callbacks
// show the values at secret locations as "**********". Arguments that do
// not parse are read as far as their syntax is certain (quotes, keys,
// brackets): the values there are masked, and text that cannot be placed
// (prose, reasoning, anything after an unescaped quote, a comment or an
// unquoted value) is replaced by a marker such as "[12 bytes not shown]",
// since it may hold a secret. Events and log lines carry no argument values
// at all. The correction model answers with the masks where the secrets
// were, and the node puts the real values back before validation (see
// [WithCorrectionModel]). An unresolved hook and validators receive the
// real values, as tools do.
//
// What is secret does not depend on the arguments matching the schema: the
// values at the schema's secret locations (a root "writeOnly" makes the
// whole arguments secret); the members of an object with secret members
// that the schema does not describe (most likely a misnamed secret,
// "passwd" for "password"); any member named like one of the schema's
// secret properties, at any depth and under any parent, compared without
// case, '_' and '-' ("Auth": [{"PASS_WORD": …}]); the same inside strings
// that hold JSON (a double-encoded parent); and for a call of a tool the
// node does not have, the members named like any tool's secret property,
// with the schema of the tool whose name is nearest ("auth.login" for
// "auth_login"). Every value so found, as written and with its JSON string
// encodings, is scrubbed in one pass from every text the node writes
// about the run (tool messages, tool output and panic values included,
// feedback, issues and validator messages, reports, errors, the
// correction model's prompts and callbacks, the history), whatever its
// place there; values shorter than [MinScrubbedSecretLen] are masked at
// their location only. A correction model that renames a member keeping
// its mask gets it restored under the new name. A secret sent to a plain
// tool without a schema is not recognised.
//
// String and LogValue return SecretMask, so fmt and log/slog do not print
// the value; read it with string(s). JSON encoding is not masked.
type Secret string

// JSONSchema returns the schema of a Secret: a write-only string. It is
// called by github.com/invopop/jsonschema when [NewTool] reflects a schema.
func (Secret) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", WriteOnly: true}
}

// String returns [SecretMask], not the value.
func (Secret) String() string { return SecretMask }

// LogValue returns [SecretMask], so log/slog never records the value.
func (Secret) LogValue() slog.Value { return slog.StringValue(SecretMask) }

// sanitize is the clean-history stage: it builds the copy of the AI message
// carrying the arguments that ran and records it in res. The input message
// is not modified: the copy has its own Parts slice and its own
// FunctionCall values.
func (n *ToolNode) sanitize(r *run, res *Result, calls []*call) {
	ai := r.messages[r.aiIndex]
	out := llms.MessageContent{Role: ai.Role, Parts: make([]llms.ContentPart, 0, len(ai.Parts))}
	fcs := make([]llms.FunctionCall, len(calls)) // one backing array for every copy's FunctionCall
	changed := false
	k := 0
	for _, p := range ai.Parts {
		tc, isValue := p.(llms.ToolCall)
		ptc, isPtr := p.(*llms.ToolCall)
		if !isValue && (!isPtr || ptc == nil) || k >= len(calls) {
			out.Parts = append(out.Parts, p)
			continue
		}
		if isPtr {
			tc = *ptc
		}
		c := calls[k]
		k++
		if c.status == statusDropped {
			changed = true
			continue
		}
		fc := &fcs[k-1]
		if tc.FunctionCall != nil {
			*fc = *tc.FunctionCall
		}
		if args, rewrite := n.sanitizedArguments(c); rewrite || tc.FunctionCall == nil {
			fc.Arguments = args
			tc.Type = "function"
			changed = true
		}
		if tc.Type == "" { // as the Anthropic client returns calls; OpenAI rejects it
			tc.Type = "function"
			changed = true
		}
		tc.FunctionCall = fc
		if isPtr {
			cp := tc // a copy, so tc itself does not escape for every part
			out.Parts = append(out.Parts, &cp)
		} else {
			out.Parts = append(out.Parts, tc)
		}
	}
	res.AIMessage, res.AIMessageChanged = out, changed
}

// sanitizedArguments returns the arguments the sanitized copy stores for c,
// and whether they differ from the model's own argument string.
func (n *ToolNode) sanitizedArguments(c *call) (string, bool) {
	switch {
	case c.noFunc:
		return "{}", true
	case c.status == statusSkipped: // answered before this run
		return n.answeredArguments(c)
	case c.cut: // never read (cut.go): one JSON object is kept, secret values masked; anything else is {}
		if m, ok := jsonObject(c.raw); ok {
			if s, masked, ok := encodeMasked(m, c.secrets(), c.scrub); ok && masked > 0 {
				return s, true
			}
			return c.raw, false
		}
		return "{}", true
	case len(c.raw) > n.cfg.maxArgumentBytes: // refused unparsed (WithMaxArgumentBytes); never parsed here either
		return "{}", true
	case c.tool == nil: // an unknown tool: answered with an error, keep what parses
		if m, ok := jsonObject(c.raw); ok {
			if c.secrets() != nil { // masked by every tool's secret names
				if s, masked, ok := encodeMasked(m, c.secrets(), c.scrub); ok && masked > 0 {
					return s, true
				}
			}
			return c.raw, false
		}
		return "{}", true
	case c.tool.schema == nil: // a plain tool received the raw string, or its clean repair
		if c.repaired && isJSONObject(c.args) {
			return c.args, true
		}
		if isJSONObject(c.raw) {
			return c.raw, false
		}
		s, _ := jsonvalue.Encode(map[string]string{"__arg1": c.args})
		return s, true
	}
	secrets := c.tool.secret
	if c.ran() || c.status == statusStopped { // a stopped call had valid arguments, kept to run it again
		if c.outcome == OutcomeExecuted && !c.repaired && secrets == nil && c.args == c.raw {
			// The model's own arguments parsed as they were (c.value is
			// their decoding, or rawValid says the raw text is an object):
			// keep them unless they are not an object the clients read
			// back. The precheck does not bound numbers, so rawValid
			// vouches only for text that holds no number beyond float64.
			if (c.rawValid && !mayExceedFloat64(c.raw)) || isJSONObject(c.raw) {
				return c.raw, false
			}
		}
		var s string
		ok := false
		if v, isObject := c.value.(map[string]any); isObject && c.outcome == OutcomeExecuted && secrets == nil && len(c.tool.validators) == 0 {
			// An executed call's c.value is the decoding of c.args (by
			// repair or coercion), which nothing could have changed (no
			// validator saw it): encode it without decoding c.args again.
			var err error
			s, err = jsonvalue.Encode(v)
			ok = err == nil && fitsFloat64(v)
		} else if secrets != nil {
			s, _, ok = c.canonicalRead(c.args) // decoded once per run (textRead)
		} else {
			s, _, ok = canonicalJSON(c.args, secrets, c.scrub)
		}
		if !ok {
			n.cfg.log().Warn("saidex: the arguments a tool ran with are not JSON; storing {} in the sanitized message",
				slog.String("tool", c.name), slog.String("call_id", c.id), slog.String("outcome", string(c.outcome)))
			return "{}", true
		}
		return s, s != c.raw
	}
	// Answered with feedback: untouched unless unsendable or holding a secret.
	if secrets != nil {
		if m, ok := c.objectRead(c.raw); ok {
			if s, masked, ok := c.encodeRead(m); ok && masked > 0 {
				return s, true
			}
			return c.raw, false
		}
	} else if isJSONObject(c.raw) {
		return c.raw, false
	}
	if c.err == nil {
		if s, _, ok := canonicalJSON(c.args, secrets, c.scrub); ok {
			return s, true
		}
	}
	return "{}", true
}

// canonicalRead is canonicalJSON of text, one of c's argument texts, by
// its secrets (non-nil), on the decoding c keeps of it (see call.read):
// that decoding is shared, so the secret values are masked in a copy.
func (c *call) canonicalRead(text string) (string, int, bool) {
	m, ok := c.objectRead(text)
	if !ok {
		return "", 0, false
	}
	return c.encodeRead(m)
}

// objectRead is jsonObject of text, one of c's argument texts, on the
// decoding c keeps of it (see call.read), by its secrets (non-nil). The
// object is shared: never change it.
func (c *call) objectRead(text string) (map[string]any, bool) {
	v, ok, strict := c.read(c.secrets(), text).decoded()
	m, isObject := v.(map[string]any)
	if t := strings.TrimLeft(text, " \t\r\n"); !ok || !strict || !isObject || len(t) == 0 || t[0] != '{' || !fitsFloat64(m) {
		return nil, false // what jsonObject refuses
	}
	return m, true
}

// encodeRead is encodeMasked of an object objectRead returned, by c's
// secrets (non-nil) and scrubber, masked in a copy.
func (c *call) encodeRead(m map[string]any) (string, int, bool) {
	v, masked := maskShared(c.secrets().loc(), m)
	return encodeScrubbed(v, masked, c.scrub)
}

// answeredArguments returns the arguments the sanitized copy stores for a
// call answered before this run, which this run neither repaired nor
// validated: the arguments as sent when they are one JSON object (secret
// values masked), else what a call answered with feedback gets: the
// repaired object when repair recovers one (for a plain tool, its clean
// repair, else {"__arg1": string}, as when it runs), else "{}". Such a call
// may have been answered by another executor, or by a run whose history
// was not sanitized; its siblings are rewritten, and the provider clients
// read every past call's arguments, so it must not keep text they refuse.
func (n *ToolNode) answeredArguments(c *call) (string, bool) {
	if c.secrets() == nil && !mayExceedFloat64(c.raw) && strings.HasPrefix(strings.TrimLeft(c.raw, " \t\r\n"), "{") && jsonread.Valid(c.raw) {
		return c.raw, false // one JSON object, checked on its bytes: the common case, no decoding
	}
	if m, ok := jsonObject(c.raw); ok {
		if c.secrets() != nil {
			if s, masked, ok := encodeMasked(m, c.secrets(), c.scrub); ok && masked > 0 {
				return s, true
			}
		}
		return c.raw, false
	}
	switch {
	case len(c.raw) > n.cfg.maxArgumentBytes, c.tool == nil:
		return "{}", true
	case c.tool.schema == nil:
		if res, err := lenient.Repair(c.raw, lenient.Options{StripThinking: n.cfg.stripThinking, FixSyntax: n.cfg.jsonRepair}); err == nil && isJSONObject(res.JSON) {
			return res.JSON, true
		}
		s, _ := jsonvalue.Encode(map[string]string{"__arg1": c.raw})
		return s, true
	}
	opt := n.cfg.repairOptions()
	opt.schema = c.tool.schema // the reading the repair stage takes
	if res, err := repairArguments(c.raw, opt); err == nil {
		if m, isObject := res.value.(map[string]any); isObject && fitsFloat64(m) {
			if s, _, ok := encodeMasked(m, c.tool.secret, c.scrub); ok {
				return s, true
			}
		}
	}
	return "{}", true
}

// isJSONObject reports whether s is exactly one JSON object that the
// provider clients can read back: langchaingo's Anthropic and Gemini clients
// json.Unmarshal past arguments into a map, which fails on a number beyond
// float64 (1e999) although the text is valid JSON.
func isJSONObject(s string) bool {
	_, ok := jsonObject(s)
	return ok
}

// jsonObject decodes s when it is what isJSONObject accepts: one decode,
// by jsonread, which reads what encoding/json reads.
func jsonObject(s string) (map[string]any, bool) {
	t := strings.TrimLeft(s, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return nil, false
	}
	v, err := decodeJSON(s)
	m, isObject := v.(map[string]any)
	return m, err == nil && isObject && fitsFloat64(m)
}

// canonicalJSON re-encodes s, when it is what isJSONObject accepts,
// compactly, with object keys sorted, numbers as written and no HTML
// escaping, after masking the secret values secrets marks. It returns how
// many values were masked, and false for any other s.
func canonicalJSON(s string, secrets *secretSchema, sc *scrubber) (string, int, bool) {
	m, ok := jsonObject(s)
	if !ok {
		return "", 0, false
	}
	return encodeMasked(m, secrets, sc)
}

// encodeMasked is canonicalJSON for the decoded object m, which it may
// modify in place; the encoding is then scrubbed of the secret values sc
// holds (a scrubbed text counts as one more value masked).
func encodeMasked(m map[string]any, secrets *secretSchema, sc *scrubber) (string, int, bool) {
	v, masked := secrets.mask(m)
	return encodeScrubbed(v, masked, sc)
}

// encodeScrubbed encodes v, in which masked values were masked, and
// scrubs the text of the secret values sc holds (a scrubbed text counts
// as one more value masked).
func encodeScrubbed(v any, masked int, sc *scrubber) (string, int, bool) {
	text, err := jsonvalue.Encode(v)
	if err != nil {
		return "", 0, false
	}
	if out := sc.json(text); out != text {
		text = out
		masked++
	}
	return text, masked, true
}

// fitsFloat64 reports whether every number in the decoded JSON value v is
// within float64's range, so that its encoding is an object the provider
// clients' json.Unmarshal into a map reads back (see isJSONObject).
func fitsFloat64(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			if !fitsFloat64(e) {
				return false
			}
		}
	case []any:
		for _, e := range x {
			if !fitsFloat64(e) {
				return false
			}
		}
	case json.Number:
		_, err := strconv.ParseFloat(string(x), 64)
		return err == nil
	}
	return true
}

// mayExceedFloat64 reports whether the JSON text s may hold a number
// beyond float64's range: one written with an exponent, or with more than
// 308 digits in a row. false is certain; true only sends s to the full
// check (isJSONObject). It reads s once and allocates nothing.
func mayExceedFloat64(s string) bool {
	digits := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case '0' <= c && c <= '9':
			if digits++; digits > 308 {
				return true
			}
		case (c == 'e' || c == 'E') && digits > 0:
			return true
		default:
			digits = 0
		}
	}
	return false
}

// secretSchema locates the secret values of a tool's arguments: those at
// a location where some schema that may apply ("writeOnly": true or
// "format": "password") marks them, the members no schema describes of an
// object that has secret members (see secretMember), and, at any depth
// and under any parent, the members named as a secret property of the
// schema is (names, compared by normName). The schemas that may apply to a
// value are its schemas with those they reach through $ref and allOf, the
// alternatives of anyOf and oneOf, then and else (schemawalk.Possible).
type secretSchema struct {
	root  *santhosh.Schema // nil: secrets by name only
	names map[string]bool

	// where is loc's answer, computed once by newSecretSchema (the
	// schemas that may apply to the root are walked once per tool, not
	// once per reading); built is false for a secretSchema made
	// otherwise, whose loc computes it each time.
	where lenient.Secrets
	built bool
}

// newSecretSchema returns the secretSchema of root and names with its
// locations computed (see loc).
func newSecretSchema(root *santhosh.Schema, names map[string]bool) *secretSchema {
	s := &secretSchema{root: root, names: names}
	s.where, s.built = s.computeLoc(), true
	return s
}

// secretsOf returns where schema root keeps secrets, or nil when no schema
// it reaches is a secret.
func secretsOf(root *santhosh.Schema) *secretSchema {
	if !slices.ContainsFunc(schemawalk.Reachable(root), isSecret) {
		return nil
	}
	return newSecretSchema(root, secretNames(root))
}

// secretMember returns the schemas that may apply to member name of an
// object the schemas of set apply to, and whether its value is secret:
// because they mark it so, or because no schema applies to it while the
// object has secret members. Such an unknown member is most likely a
// misnamed secret ("passwd" for "password"), so it is masked too.
func secretMember(set schemawalk.Set, name string) (schemawalk.Set, bool) {
	sub, _ := set.Property(name)
	sub = sub.Possible()
	if len(sub) > 0 {
		return sub, slices.ContainsFunc(sub, isSecret)
	}
	for _, s := range set {
		for _, p := range s.Properties {
			if slices.ContainsFunc(schemawalk.Of(p).Possible(), isSecret) {
				return nil, true
			}
		}
	}
	return nil, false
}

// isSecret reports whether s marks its value secret.
func isSecret(s *santhosh.Schema) bool {
	return s.WriteOnly || (s.Format != nil && s.Format.Name == "password")
}

// mask replaces every non-null value v holds at a secret location (see
// secretSchema) by SecretMask. It may modify v in place; it returns the
// result and the number of values masked. A nil s masks nothing.
func (s *secretSchema) mask(v any) (any, int) {
	if s == nil {
		return v, 0
	}
	return maskLoc(s.loc(), v)
}

// maskShared is maskLoc for a v shared with other readers: v is left
// unchanged, and an object or array that holds a masked value is copied
// (only those: the rest of the result shares v's values).
func maskShared(loc lenient.Secrets, v any) (any, int) {
	if v == nil || loc == nil {
		return v, 0
	}
	if loc.Secret() {
		return SecretMask, 1
	}
	total := 0
	switch x := v.(type) {
	case map[string]any:
		var out map[string]any // x's copy, made at the first change
		for k, e := range x {
			sub := loc.Member(k)
			var ne any
			var m int
			if sub != nil && sub.Secret() && e != nil {
				ne, m = SecretMask, 1
			} else {
				ne, m = maskShared(sub, e)
			}
			if m == 0 {
				continue // ne is e
			}
			if out == nil {
				out = maps.Clone(x)
			}
			out[k] = ne
			total += m
		}
		if out != nil {
			return out, total
		}
	case []any:
		var out []any
		for i, e := range x {
			ne, m := maskShared(loc.Item(i), e)
			if m == 0 {
				continue
			}
			if out == nil {
				out = slices.Clone(x)
			}
			out[i] = ne
			total += m
		}
		if out != nil {
			return out, total
		}
	}
	return v, total
}

func maskLoc(loc lenient.Secrets, v any) (any, int) {
	if v == nil || loc == nil {
		return v, 0
	}
	if loc.Secret() {
		return SecretMask, 1
	}
	total := 0
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			sub := loc.Member(k)
			if sub != nil && sub.Secret() && e != nil {
				x[k] = SecretMask
				total++
				continue
			}
			var m int
			x[k], m = maskLoc(sub, e)
			total += m
		}
	case []any:
		for i, e := range x {
			var m int
			x[i], m = maskLoc(loc.Item(i), e)
			total += m
		}
	}
	return v, total
}
