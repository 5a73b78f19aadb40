package saidex

import (
	"slices"
	"strconv"

	"github.com/saidex/saidex-go/internal/jsonpointer"
	"github.com/saidex/saidex-go/internal/jsonread"
	"github.com/saidex/saidex-go/internal/jsonvalue"
	"github.com/saidex/saidex-go/internal/lenient"
	"github.com/saidex/saidex-go/internal/schemawalk"
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
// apply to it (the set maskSecrets walks).
type secretLoc struct{ set schemawalk.Set }

func locOf(set schemawalk.Set) lenient.Secrets {
	if len(set) == 0 {
		return nil
	}
	return secretLoc{set}
}

func (l secretLoc) Secret() bool { return slices.ContainsFunc(l.set, isSecret) }

func (l secretLoc) Member(name string) lenient.Secrets {
	sub, secret := secretMember(l.set, name)
	if secret && len(sub) == 0 { // unknown beside secrets: masked as one
		return secretHere{}
	}
	return locOf(sub)
}

// secretHere is the location of a member secretMember masks for want of
// a schema.
type secretHere struct{}

func (secretHere) Secret() bool                  { return true }
func (secretHere) Member(string) lenient.Secrets { return nil }
func (secretHere) Item(int) lenient.Secrets      { return nil }

func (l secretLoc) Item(i int) lenient.Secrets { return locOf(l.set.Item(i).Possible()) }

// maskText returns what may be shown of an argument text, valid or not:
// values at secret locations replaced by the quoted mask, and the text
// lenient.Mask cannot place hidden (see [lenient.Mask]).
func (s *secretSchema) maskText(text string) lenient.Masked {
	return lenient.Mask(text, locOf(schemawalk.Of(s.root).Possible()), quotedMask)
}

// shown returns text as it may be shown: as it is without secrets, else
// masked.
func (s *secretSchema) shown(text string) string {
	if s == nil {
		return text
	}
	return s.maskText(text).Text
}

// secrets returns where the call's tool keeps secrets, or nil.
func (c *call) secrets() *secretSchema {
	if c.tool == nil {
		return nil
	}
	return c.tool.secret
}

// shownArguments returns the arguments of a call of tool name as they may
// be shown (in a correction prompt's context): masked when that tool's
// schema has secrets.
func (n *ToolNode) shownArguments(name, args string) string {
	if t := n.tools[name]; t != nil {
		return t.secret.shown(args)
	}
	return args
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
// v, in place: a value at a secret location that is the mask becomes the
// value masked at that pointer in the prompt. A mask with no value to
// restore (the assistant sent none there) is an issue, so that the
// answer is retried and never reaches the tool holding the mask.
func restoreSecrets(set schemawalk.Set, v any, ptr string, known map[string]any) (any, []Issue) {
	if v == nil || len(set) == 0 {
		return v, nil
	}
	if slices.ContainsFunc(set, isSecret) {
		return restoreOne(v, ptr, nil, known)
	}
	var issues []Issue
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			sub, secret := secretMember(set, k)
			var is []Issue
			if secret {
				x[k], is = restoreOne(e, jsonpointer.Append(ptr, k), x, known)
			} else {
				x[k], is = restoreSecrets(sub, e, jsonpointer.Append(ptr, k), known)
			}
			issues = append(issues, is...)
		}
	case []any:
		for i, e := range x {
			var is []Issue
			x[i], is = restoreSecrets(set.Item(i).Possible(), e, jsonpointer.Append(ptr, strconv.Itoa(i)), known)
			issues = append(issues, is...)
		}
	}
	return v, issues
}

// restoreOne restores the secret value v at ptr, a member of the answer's
// object parent (nil for an array item or the root). A mask with no value
// masked at ptr takes the value of a sibling member that was masked in the
// prompt and is gone from the answer, when there is exactly one: the
// correction model renamed a misnamed key ("passwd" to "password").
func restoreOne(v any, ptr string, parent map[string]any, known map[string]any) (any, []Issue) {
	if v != SecretMask {
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
	return v, []Issue{{Path: ptr, Kind: IssueOther,
		Message: "holds the placeholder " + quotedMask + " of a secret value, but the assistant sent no value here that it stands for; keep each placeholder where it was"}}
}
