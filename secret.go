package saidex

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/jsonpointer"
	"github.com/saidex/saidex-go/internal/jsonread"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/saidex/saidex-go/internal/lenient"
	"github.com/saidex/saidex-go/internal/nearest"
	"github.com/saidex/saidex-go/internal/schemawalk"
	santhosh "github.com/santhosh-tekuri/jsonschema/v6"
)

// This file keeps secret values out of every text the node writes about
// arguments: feedback, reports, errors, correction prompts. The sanitized
// history masks decoded values (sanitize.go); what is shown of an
// argument string that may not parse is masked here, by lenient.Mask,
// which places values the way the schema walker does.

// quotedMask is SecretMask as a JSON string, what a masked value becomes
// in a text shown: JSON text stays JSON.
const quotedMask = `"` + SecretMask + `"`

// secretLoc is where a value sits for lenient.Mask: the schemas that may
// apply to it (the set maskSecrets walks). The locations of its members
// and items are computed once and kept in the memo its secretSchema's
// locations share (see locMemo), so that reading a text walks the
// schemas only where no text was read before.
type secretLoc struct {
	set    schemawalk.Set
	secret bool // some schema of set marks the value secret
	memo   *locMemo
}

// locMemo keeps the locations Member and Item computed, for every
// secretLoc of one secretSchema: at most maxLocMemo of them (member names
// are the caller's, and a recursive schema has no end of locations);
// past that, a location is computed each time it is asked for. It is safe
// for concurrent use: runs share their tools' secretSchemas.
type locMemo struct {
	mu   sync.RWMutex
	locs map[locKey]lenient.Secrets
}

// locKey names a member (by name) or an item (by index) of a secretLoc.
type locKey struct {
	of   *secretLoc
	name string
	item int // -1 for a member
}

// maxLocMemo bounds the locations one secretSchema keeps.
const maxLocMemo = 4096

func (m *locMemo) get(k locKey) (lenient.Secrets, bool) {
	m.mu.RLock()
	l, ok := m.locs[k]
	m.mu.RUnlock()
	return l, ok
}

func (m *locMemo) put(k locKey, l lenient.Secrets) {
	m.mu.Lock()
	if len(m.locs) < maxLocMemo {
		if m.locs == nil {
			m.locs = map[locKey]lenient.Secrets{}
		}
		m.locs[k] = l
	}
	m.mu.Unlock()
}

func locOf(set schemawalk.Set, memo *locMemo) lenient.Secrets {
	if len(set) == 0 {
		return nil
	}
	return &secretLoc{set: set, secret: slices.ContainsFunc(set, isSecret), memo: memo}
}

func (l *secretLoc) Secret() bool { return l.secret }

func (l *secretLoc) Member(name string) lenient.Secrets {
	k := locKey{of: l, name: name, item: -1}
	if loc, ok := l.memo.get(k); ok {
		return loc
	}
	var loc lenient.Secrets
	sub, secret := secretMember(l.set, name)
	if secret && len(sub) == 0 { // unknown beside secrets: masked as one
		loc = secretHere{}
	} else {
		loc = locOf(sub, l.memo)
	}
	l.memo.put(k, loc)
	return loc
}

func (l *secretLoc) Item(i int) lenient.Secrets {
	k := locKey{of: l, item: i}
	if loc, ok := l.memo.get(k); ok {
		return loc
	}
	loc := locOf(l.set.Item(i).Possible(), l.memo)
	l.memo.put(k, loc)
	return loc
}

// secretHere is the location of a member secretMember masks for want of
// a schema.
type secretHere struct{}

func (secretHere) Secret() bool                  { return true }
func (secretHere) Member(string) lenient.Secrets { return nil }
func (secretHere) Item(int) lenient.Secrets      { return nil }

// maskText returns what may be shown of an argument text, valid or not:
// values at secret locations (see secretSchema.loc) replaced by the quoted
// mask, and the text lenient.Mask cannot place hidden (see [lenient.Mask]).
func (s *secretSchema) maskText(text string) lenient.Masked {
	return lenient.Mask(text, s.loc(), quotedMask)
}

// shown returns text as it may be shown: as it is without secrets, else
// masked.
func (s *secretSchema) shown(text string) string {
	if s == nil {
		return text
	}
	return s.maskText(text).Text
}

// secrets returns where the call's tool keeps secrets (for a call of an
// unknown tool, the secret names of every tool and the schema of the tool
// its name is closest to), or nil.
func (c *call) secrets() *secretSchema {
	if c.tool == nil {
		return c.unknownSecrets
	}
	return c.tool.secret
}

// shown returns an argument text of the call as a text the node writes
// may show it: masked at its secret locations, then scrubbed of every
// secret value the run collected.
func (c *call) shown(text string) string {
	sec := c.secrets()
	if sec == nil {
		return c.scrub.text(text)
	}
	return c.read(sec, text).scrubbed(c.scrub)
}

// shownJSON is shown for JSON text, which stays JSON.
func (c *call) shownJSON(text string) string {
	sec := c.secrets()
	if sec == nil {
		return c.scrub.json(text)
	}
	rd := c.read(sec, text)
	return c.scrub.jsonOf(rd.masked().Text, rd.scrubbed(c.scrub))
}

// textRead is what the secret handling reads of one argument text, each
// reading done once, when first needed: where the text masks (see
// secretSchema.maskText), its decoding (readArgumentsStrict), and the masked
// text scrubbed by a run's scrubber. A call keeps the reads of its texts
// (call.read), so that collecting its secret values, its report, the
// history and the scrub read each text once per run.
type textRead struct {
	text string
	sec  *secretSchema

	mask     lenient.Masked
	maskDone bool

	value     any  // readArgumentsStrict(text); shared: read it, never change it
	valueOK   bool // value is set
	strict    bool // value is the JSON decoding of text (decodeJSON), not a repair
	valueDone bool

	shown   string // mask.Text scrubbed by shownBy
	shownBy *scrubber
	shownOK bool
}

// callReads are the reads of a call's texts: its raw arguments and the
// arguments it ended with (the same text for a call valid as sent).
type callReads [2]textRead

// read returns the read of text, one of the call's argument texts, by
// sec. The call keeps two: a third text (arguments corrected again)
// takes the place of the second. It is not safe for concurrent use: the
// node reads a call's texts from one goroutine at a time.
func (c *call) read(sec *secretSchema, text string) *textRead {
	if c.reads == nil {
		c.reads = new(callReads)
	}
	rs := c.reads
	for i := range rs {
		if r := &rs[i]; r.sec == sec && r.sec != nil && r.text == text {
			return r
		}
	}
	r := &rs[1]
	if rs[0].sec == nil {
		r = &rs[0]
	}
	*r = textRead{text: text, sec: sec}
	return r
}

// masked returns the text masked (see secretSchema.maskText).
func (r *textRead) masked() *lenient.Masked {
	if !r.maskDone {
		r.mask, r.maskDone = r.sec.maskText(r.text), true
	}
	return &r.mask
}

// decoded returns the text's decoding (see readArgumentsStrict), which the
// caller must not change, and whether it is the JSON decoding of the
// text (decodeJSON's) rather than a repair's.
func (r *textRead) decoded() (v any, ok, strict bool) {
	if !r.valueDone {
		r.value, r.valueOK, r.strict = readArgumentsStrict(r.text)
		r.valueDone = true
	}
	return r.value, r.valueOK, r.strict
}

// scrubbed returns the masked text scrubbed by s.
func (r *textRead) scrubbed(s *scrubber) string {
	if !r.shownOK || r.shownBy != s {
		r.shown, r.shownBy, r.shownOK = s.text(r.masked().Text), s, true
	}
	return r.shown
}

// shownArguments returns the arguments of a call of tool name as they may
// be shown (in a correction prompt's context): masked when that tool's
// schema has secrets (for an unknown tool, by every tool's secret names),
// and scrubbed of the secret values they hold.
func (n *ToolNode) shownArguments(name, args string) string {
	sec := n.secretsFor(name)
	if sec == nil {
		return args
	}
	vals := map[string]bool{}
	rd := &textRead{text: args, sec: sec}
	sec.collectRead(rd, vals, 0)
	return newScrubber(vals).text(rd.masked().Text)
}

// maskedPrompt returns the arguments a correction prompt shows and the
// real values it masked, by pointer, to restore in the answer
// (restoreSecrets). A pointer masked twice with different values (two
// objects, a repeated key) has no value to restore.
func (s *secretSchema) maskedPrompt(text string) (string, map[string]any) {
	m := s.maskText(text)
	known := make(map[string]any, len(m.Values))
	ambiguous := map[string]bool{}
	for _, v := range m.Values {
		real, ok := secretValue(v.Text)
		if prev, seen := known[v.Pointer]; !ok || (seen && !jsonEqual(prev, real)) {
			ambiguous[v.Pointer] = true
		}
		known[v.Pointer] = real
	}
	for p := range ambiguous {
		delete(known, p)
	}
	return m.Text, known
}

// secretValue decodes the text of one masked value, JSON or as a model
// writes it (single quotes, Python literals), as repair reads it.
func secretValue(text string) (any, bool) {
	if v, err := jsonread.Decode(text); err == nil {
		return v, true
	}
	res, err := lenient.Repair(`{"v":`+text+`}`, lenient.Options{FixSyntax: true})
	if err != nil {
		return nil, false
	}
	v, err := jsonread.Read(res.JSON)
	m, ok := v.(map[string]any)
	if err != nil || !ok || len(m) != 1 {
		return nil, false
	}
	val, ok := m["v"]
	return val, ok
}

func jsonEqual(a, b any) bool {
	x, err1 := jsonvalue.Encode(a)
	y, err2 := jsonvalue.Encode(b)
	return err1 == nil && err2 == nil && x == y
}

// restoreSecrets puts the real values back in a correction model's answer
// v, in place: a value at a secret location (loc) that is exactly the
// mask becomes the value masked at that pointer in the prompt. The mask
// anywhere else (in another field, padded, glued to text, inside a longer
// string or a secret object, in a key) is an issue, and so is a mask with
// no value to restore: the answer is then retried and never reaches the
// tool holding the mask.
func restoreSecrets(loc lenient.Secrets, v any, ptr string, known map[string]any) (any, []Issue) {
	if loc != nil && loc.Secret() {
		return restoreOne(v, ptr, nil, known)
	}
	var issues []Issue
	switch x := v.(type) {
	case string:
		if strings.Contains(x, SecretMask) {
			issues = append(issues, misplacedMask(ptr))
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			e := x[k]
			p := jsonpointer.Append(ptr, k)
			if strings.Contains(k, SecretMask) {
				issues = append(issues, misplacedMask(p))
				continue
			}
			var sub lenient.Secrets
			if loc != nil {
				sub = loc.Member(k)
			}
			var is []Issue
			if sub != nil && sub.Secret() {
				x[k], is = restoreOne(e, p, x, known)
			} else {
				x[k], is = restoreSecrets(sub, e, p, known)
			}
			issues = append(issues, is...)
		}
	case []any:
		for i, e := range x {
			var sub lenient.Secrets
			if loc != nil {
				sub = loc.Item(i)
			}
			var is []Issue
			x[i], is = restoreSecrets(sub, e, jsonpointer.Append(ptr, strconv.Itoa(i)), known)
			issues = append(issues, is...)
		}
	}
	return v, issues
}

// misplacedMask is the issue of a mask where no secret value may stand as
// a whole: it names the placeholder, never a value.
func misplacedMask(ptr string) Issue {
	return Issue{Path: ptr, Kind: IssueOther,
		Message: "holds the placeholder " + quotedMask + " of a secret value where it does not stand alone as the value of a secret field; keep each placeholder exactly as it was, as the whole value of the field that held it"}
}

// holdsMask reports whether v holds the mask text in any key or string.
func holdsMask(v any) bool {
	switch x := v.(type) {
	case string:
		return strings.Contains(x, SecretMask)
	case map[string]any:
		for k, e := range x {
			if strings.Contains(k, SecretMask) || holdsMask(e) {
				return true
			}
		}
	case []any:
		return slices.ContainsFunc(x, holdsMask)
	}
	return false
}

// restoreOne restores the secret value v at ptr, a member of the answer's
// object parent (nil for an array item or the root). Only v exactly the
// mask is restored; a v holding the mask otherwise is an issue, and any
// other v (a value the correction model wrote) is kept. A mask with no
// value masked at ptr takes the value of a sibling member that was masked
// in the prompt and is gone from the answer, when there is exactly one:
// the correction model renamed a misnamed key ("passwd" to "password");
// else the one value masked under the same name (compared as secret names
// are, see normName) elsewhere: the model moved the field's parent
// ("Auth" to "auth").
func restoreOne(v any, ptr string, parent map[string]any, known map[string]any) (any, []Issue) {
	if v != SecretMask {
		if holdsMask(v) {
			return v, []Issue{misplacedMask(ptr)}
		}
		return v, nil
	}
	if real, ok := known[ptr]; ok {
		return deepCopyJSON(real), nil
	}
	if parent != nil {
		dir, _ := jsonpointer.Split(ptr)
		var moved []string
		for p := range known {
			if d, name := jsonpointer.Split(p); d == dir {
				if _, kept := parent[name]; !kept {
					moved = append(moved, p)
				}
			}
		}
		if len(moved) == 1 {
			return deepCopyJSON(known[moved[0]]), nil
		}
	}
	_, name := jsonpointer.Split(ptr)
	var same []string
	for p := range known {
		if _, n := jsonpointer.Split(p); normName(n) == normName(name) {
			same = append(same, p)
		}
	}
	if len(same) == 1 {
		return deepCopyJSON(known[same[0]]), nil
	}
	return v, []Issue{{Path: ptr, Kind: IssueOther,
		Message: "holds the placeholder " + quotedMask + " of a secret value, but the assistant sent no value here that it stands for; keep each placeholder where it was"}}
}

// normName is a property name as secret names are compared: lower case,
// without '_' and '-' ("Pass_Word" is "password").
func normName(name string) string {
	clean := true
	for i := 0; i < len(name); i++ {
		if b := name[i]; b == '_' || b == '-' || 'A' <= b && b <= 'Z' || b >= 0x80 {
			clean = false
			break
		}
	}
	if clean {
		return name
	}
	var b strings.Builder
	for _, r := range strings.ToLower(name) {
		if r != '_' && r != '-' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// nameLoc is where a value sits for the secret rules: a member whose name
// is one of names (see normName), at any depth and whatever its parent, is
// secret; so is a value the schema part marks (nil where the schema does
// not describe the value).
type nameLoc struct {
	names  map[string]bool
	schema lenient.Secrets
}

func (l nameLoc) Secret() bool { return l.schema != nil && l.schema.Secret() }

func (l nameLoc) Member(name string) lenient.Secrets {
	if l.names[normName(name)] {
		return secretHere{}
	}
	var sub lenient.Secrets
	if l.schema != nil {
		sub = l.schema.Member(name)
	}
	return l.at(sub)
}

func (l nameLoc) Item(i int) lenient.Secrets {
	var sub lenient.Secrets
	if l.schema != nil {
		sub = l.schema.Item(i)
	}
	return l.at(sub)
}

func (l nameLoc) at(schema lenient.Secrets) lenient.Secrets {
	if len(l.names) == 0 {
		return schema
	}
	return nameLoc{names: l.names, schema: schema}
}

// loc returns where the arguments of s's tool keep secrets: by the schema
// and by name. It is computed once, by newSecretSchema.
func (s *secretSchema) loc() lenient.Secrets {
	if s.built {
		return s.where
	}
	return s.computeLoc()
}

func (s *secretSchema) computeLoc() lenient.Secrets {
	var schema lenient.Secrets
	if s.root != nil {
		schema = locOf(schemawalk.Of(s.root).Possible(), new(locMemo))
	}
	if len(s.names) == 0 {
		return schema
	}
	return nameLoc{names: s.names, schema: schema}
}

// secretNames returns the names (see normName) of the properties that the
// schemas reachable from root mark secret, nil for none.
func secretNames(root *santhosh.Schema) map[string]bool {
	var names map[string]bool
	for _, x := range schemawalk.Reachable(root) {
		for name, p := range x.Properties {
			if slices.ContainsFunc(schemawalk.Of(p).Possible(), isSecret) {
				if names == nil {
					names = map[string]bool{}
				}
				names[normName(name)] = true
			}
		}
	}
	return names
}

// secretsFor returns where a call of tool name keeps secrets: its tool's
// schema, or for a tool the node does not have, the secret names of every
// tool with the schema of the tool whose name is closest (see
// [ToolNode.suggest]), nil when no tool has secrets.
func (n *ToolNode) secretsFor(name string) *secretSchema {
	if t := n.tools[name]; t != nil {
		return t.secret
	}
	if len(n.names.secret) == 0 {
		return nil
	}
	var root *santhosh.Schema
	if t := n.tools[n.suggest(name)]; t != nil && t.secret != nil {
		root = t.secret.root
	}
	return newSecretSchema(root, n.names.secret)
}

// collectAt adds to vals the secret values of one argument text (at
// depth layers of string encoding), read every way the node reads
// arguments: the values lenient.Mask masks at secret
// locations (schema paths and secret names, in text that may not parse);
// in the decoding of the text (or of its repair), the values at secret
// locations and the strings that decode as JSON holding one (a
// double-encoded parent); and, in text that decodes in no way, every
// string literal that holds JSON with a secret name in it. Each value is
// added with its encodings as JSON string content.
func (s *secretSchema) collectAt(text string, vals map[string]bool, depth int) {
	if s == nil || text == "" {
		return
	}
	s.collectRead(&textRead{text: text, sec: s}, vals, depth)
}

// collectRead is collectAt of the text rd reads (by s), reading it
// through rd.
func (s *secretSchema) collectRead(rd *textRead, vals map[string]bool, depth int) {
	text := rd.text
	if s == nil || text == "" {
		return
	}
	loc := s.loc()
	if loc != nil && loc.Secret() { // root writeOnly: every token of the text is secret
		addTokens(text, vals, depth)
		return
	}
	for _, v := range rd.masked().Values {
		addValueText(v.Text, vals)
	}
	if v, ok, _ := rd.decoded(); ok {
		collectValue(loc, v, vals, depth)
	}
	if depth < maxSecretEncodings && len(s.names) > 0 {
		collectEncoded(text, s.names, vals, depth)
	}
}

// addTokens adds every token of text, which need not parse: the content of
// each string literal (as written and decoded, with its encodings) and
// each run of other text between JSON's punctuation and white space; a
// string's content is read as such a text too (it may be JSON encoded as
// a string), up to maxSecretEncodings layers deep. A literal followed by a
// colon is a key, the schema's vocabulary, and is not added (see
// addDecoded).
func addTokens(text string, vals map[string]bool, depth int) {
	addString(strings.TrimSpace(text), vals)
	for i := 0; i < len(text); {
		switch c := text[i]; {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(text) && text[j] != c {
				if text[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j, len(text))
			lit := text[i:min(end+1, len(text))]
			if isKey(text[min(end+1, len(text)):]) {
				i = end + 1
				continue
			}
			addValueText(lit, vals)
			vals[text[i+1:end]] = true
			if v, ok := secretValue(lit); ok && depth < maxSecretEncodings {
				if inner, ok := v.(string); ok {
					addTokens(inner, vals, depth+1) // a JSON text encoded as a string
				}
			}
			i = end + 1
		case strings.IndexByte("{}[],: \t\r\n", c) >= 0:
			i++
		default:
			j := i
			for j < len(text) && strings.IndexByte("{}[],: \t\r\n\"'", text[j]) < 0 {
				j++
			}
			if !isKey(text[j:]) { // a bare key is vocabulary too
				vals[text[i:j]] = true
			}
			i = j
		}
	}
}

// isKey reports whether rest, the text after a string literal, starts with
// a colon after white space: the literal is an object's key.
func isKey(rest string) bool {
	return strings.HasPrefix(strings.TrimLeft(rest, " \t\r\n"), ":")
}

// collectEncoded reads every double-quoted string literal of text, which
// need not parse: one that decodes to JSON text is read as arguments by
// the secret names (collectAt), and when it holds a secret value, the
// whole string is secret too.
func collectEncoded(text string, names map[string]bool, vals map[string]bool, depth int) {
	for i := 0; i < len(text); i++ {
		if text[i] != '"' {
			continue
		}
		j := i + 1
		for j < len(text) && text[j] != '"' {
			if text[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(text) {
			return
		}
		lit := text[i : j+1]
		i = j
		if strings.IndexByte(lit, '\\') < 0 {
			continue // no escaped quote: the literal holds no JSON string or key
		}
		str, err := jsonread.Decode(lit)
		if err != nil {
			continue
		}
		inner, _ := str.(string)
		if t := strings.TrimSpace(inner); t == "" || (t[0] != '{' && t[0] != '[' && t[0] != '"') {
			continue
		}
		found := map[string]bool{}
		newSecretSchema(nil, names).collectAt(inner, found, depth+1)
		if len(found) > 0 {
			for v := range found {
				vals[v] = true
			}
			addDecoded(inner, vals)
			vals[lit[1:len(lit)-1]] = true // as written, escapes and all
		}
	}
}

// collectValue adds the secret values of the decoded v, which sits at loc.
// It reports whether v holds one.
func collectValue(loc lenient.Secrets, v any, vals map[string]bool, depth int) bool {
	if loc == nil {
		return false
	}
	if loc.Secret() {
		addDecoded(v, vals)
		return true
	}
	found := false
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			found = collectValue(loc.Member(k), e, vals, depth) || found
		}
	case []any:
		for i, e := range x {
			found = collectValue(loc.Item(i), e, vals, depth) || found
		}
	case string:
		if depth >= maxSecretEncodings {
			return false
		}
		if inner, ok := encodedJSON(x); ok && collectValue(loc, inner, vals, depth+1) {
			addDecoded(x, vals) // the whole encoded text is secret too
			return true
		}
	}
	return found
}

// encodedJSON decodes a string value that holds JSON text: an object, an
// array or a string.
func encodedJSON(s string) (any, bool) {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '{' && t[0] != '[' && t[0] != '"') {
		return nil, false
	}
	v, err := jsonread.Decode(t)
	return v, err == nil
}

// readArgumentsStrict decodes an argument text: as JSON, else as repair
// reads it. strict reports whether the value is the text's JSON decoding
// (decodeJSON's) rather than its repair's.
func readArgumentsStrict(text string) (v any, ok, strict bool) {
	if v, err := decodeJSON(text); err == nil {
		return v, true, true
	}
	res, err := lenient.Repair(text, lenient.Options{StripThinking: true, FixSyntax: true})
	if err != nil {
		return nil, false, false
	}
	v, err = jsonread.Read(res.JSON)
	return v, err == nil, false
}

// addValueText adds the text of one masked value as written (a string's
// content between its quotes), and its decoding.
func addValueText(text string, vals map[string]bool) {
	t := strings.TrimSpace(text)
	if len(t) >= 2 && (t[0] == '"' || t[0] == '\'') && t[len(t)-1] == t[0] {
		vals[t[1:len(t)-1]] = true // a string: its content, so that a scrub keeps the quotes
	} else {
		vals[t] = true
	}
	if v, ok := secretValue(t); ok {
		addDecoded(v, vals)
	}
}

// addDecoded adds a decoded secret value: a string with its encodings as
// JSON string content (up to maxSecretEncodings layers, with and without
// HTML escaping), a number as written, and every leaf of an object or
// array, with its JSON text. An object's keys are not added: they are the
// schema's vocabulary ("username", "password"), not secret values, and
// scrubbing them would rewrite every text that names them.
func addDecoded(v any, vals map[string]bool) {
	switch x := v.(type) {
	case string:
		addString(x, vals)
	case json.Number:
		vals[string(x)] = true
	case map[string]any:
		for _, e := range x {
			addDecoded(e, vals)
		}
		if t, err := jsonvalue.Encode(x); err == nil {
			addString(t, vals)
		}
	case []any:
		for _, e := range x {
			addDecoded(e, vals)
		}
		if t, err := jsonvalue.Encode(x); err == nil {
			addString(t, vals)
		}
	}
}

func addString(s string, vals map[string]bool) {
	if len(s) < MinScrubbedSecretLen {
		return
	}
	vals[s] = true
	plain, html := s, s
	for range maxSecretEncodings {
		p, h := quoteContent(plain, false), quoteContent(html, true)
		if p == plain && h == html {
			break // nothing to escape: every further layer is the same
		}
		plain, html = p, h
		vals[plain], vals[html] = true, true
	}
}

// quoteContent returns s encoded as the content of a JSON string (without
// the quotes) exactly as encoding/json encodes it, with its HTML escaping
// when html; s itself, without allocating, when nothing in it is escaped.
func quoteContent(s string, html bool) string {
	i := 0
	for i < len(s) && jsonSafe(s[i], html) {
		i++
	}
	if i == len(s) {
		return s
	}
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+16)
	b = append(b, s[:i]...)
	start := i
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if jsonSafe(c, html) {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default: // other control bytes, and <, > and & when html
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1: // invalid UTF-8
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029': // escaped for JSONP, as encoding/json does
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return string(b)
}

// jsonSafe reports whether encoding/json writes byte c of a string as it
// is: printable ASCII but '"' and '\\' (and, when html, '<', '>' and
// '&'), DEL included.
func jsonSafe(c byte, html bool) bool {
	if c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' {
		return false
	}
	return !html || (c != '<' && c != '>' && c != '&')
}

// toolIndex is what the node knows of its tools' names, computed once in
// NewToolNode so that a call of an unknown tool costs O(its own size):
// the secret names of every tool, and the tools by key (see toolKey) and
// by name for the did-you-mean (nearest.Index).
type toolIndex struct {
	secret map[string]bool // normName of every secret property of every tool
	any    bool            // some tool's schema has secrets
	byKey  map[string]int  // toolKey -> the tool's index in order; keys two tools share left out
	near   *nearest.Index  // over order
}

// indexNames computes the node's toolIndex.
func (n *ToolNode) indexNames() toolIndex {
	ix := toolIndex{byKey: make(map[string]int, len(n.order)), near: nearest.NewIndex(n.order)}
	shared := map[string]bool{}
	for i, name := range n.order {
		k := toolKey(name)
		if _, dup := ix.byKey[k]; dup {
			shared[k] = true
		}
		ix.byKey[k] = i
		t := n.tools[name]
		if t.secret == nil {
			continue
		}
		ix.any = true
		for s := range t.secret.names {
			if ix.secret == nil {
				ix.secret = map[string]bool{}
			}
			ix.secret[s] = true
		}
	}
	for k := range shared {
		delete(ix.byKey, k)
	}
	return ix
}

// maxToolKey bounds the key of a called name that is compared: the
// longest tool name a node accepts.
const maxToolKey = maxToolNameLength

// toolKey is a tool name as a near miss is compared: lower-case ASCII
// letters and digits only ("auth.login", "Auth_Login" and "auth-login"
// are "authlogin"), at most maxToolKey bytes.
func toolKey(name string) string {
	b := make([]byte, 0, min(len(name), maxToolKey))
	for i := 0; i < len(name) && len(b) < maxToolKey; i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', '0' <= c && c <= '9':
			b = append(b, c)
		case 'A' <= c && c <= 'Z':
			b = append(b, c+'a'-'A')
		}
	}
	return string(b)
}

// maxSuggestDistance is how many edits a called name may be from a tool's
// name for the tool to be the one it most likely meant.
const maxSuggestDistance = 2

// suggest returns the node's tool a call of the unknown tool name most
// likely meant: the one with the same key (see toolKey: "auth.login" for
// "auth_login"), else the closest by name within maxSuggestDistance
// edits; "" when none is. A call of it is masked by that tool's schema
// too.
func (n *ToolNode) suggest(name string) string {
	if i, ok := n.names.byKey[toolKey(name)]; ok {
		return n.order[i]
	}
	if near := n.names.near.Closest(name, 1); len(near) == 1 && nearest.Within(name, n.order[near[0]], maxSuggestDistance) {
		return n.order[near[0]]
	}
	return ""
}
