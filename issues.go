package saidex

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/saidex/saidex-go/internal/jsonpointer"
	"github.com/saidex/saidex-go/internal/nearest"
	"github.com/saidex/saidex-go/internal/schemawalk"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// IssueKind is the JSON Schema keyword a field issue is about, or
// [IssueOutputLimit] for a call the output limit cut.
type IssueKind string

// The kinds of field issue.
const (
	IssueRequired   IssueKind = "required"   // a required member is missing
	IssueType       IssueKind = "type"       // the value has the wrong type
	IssueEnum       IssueKind = "enum"       // the value is not one of the allowed values (enum or const)
	IssueAdditional IssueKind = "additional" // the member is not in the schema
	IssueFormat     IssueKind = "format"     // the string does not match its format
	IssueMinimum    IssueKind = "minimum"    // the number is below the minimum (or exclusive minimum)
	IssueMaximum    IssueKind = "maximum"    // the number is above the maximum (or exclusive maximum)
	IssuePattern    IssueKind = "pattern"    // the string does not match the pattern
	IssueMinItems   IssueKind = "minItems"   // the array has too few items
	IssueOther      IssueKind = "other"      // any other keyword

	// IssueOutputLimit: the reply holding the call was cut by the model's
	// output-token limit (see [WithFinishReason]); its Path is "" and it
	// is the call's only issue.
	IssueOutputLimit IssueKind = "output_limit"

	// IssueValidator: a [Validator] rejected (or flagged) the value.
	IssueValidator IssueKind = "validator"
)

// Issue is one field-level problem with a call's arguments.
//
// Validation reports each problem once, at the deepest location it applies
// to: a value of the wrong type yields only an IssueType for that value.
// Issues are sorted by Path (array indexes in numeric order), then by Kind.
type Issue struct {
	// Path is an RFC 6901 JSON Pointer into the arguments; "" is the root.
	// For IssueRequired it points to where the missing member would be; for
	// IssueAdditional to the unexpected member; otherwise to the offending
	// value.
	Path string
	// Kind is the keyword that failed.
	Kind IssueKind
	// Message says what is wrong, for a human or a model, without the field
	// name and without the value that was sent (so it is safe to log).
	Message string
	// Allowed lists the allowed values of an IssueEnum, and of a missing
	// member (IssueRequired) whose schema is an enum, as the schema gives
	// them (numbers as json.Number). It is nil for the issues of a
	// validation past the 50 a call keeps (see CallReport.Issues).
	Allowed []any
	// Expected is the type the schema wants ("integer", "string or null"),
	// for IssueType and IssueRequired; "" when the schema names no type.
	Expected string
	// Instead is, for an IssueRequired, the name of a member of the same
	// object that the schema does not describe and that most likely stands
	// for the missing one: its name is the missing one's up to case, '_'
	// and '-', or within an edit distance of a third of its length, or it
	// is the only such member where only this one is missing. The feedback
	// names it (did you mean), whether or not the schema forbids unknown
	// members. Empty otherwise.
	Instead string
	// Flagged reports that a tool validator recorded the issue with [Flag]
	// without rejecting the call.
	Flagged bool
}

// issueMapper turns santhosh-tekuri's error tree into issues.
type issueMapper struct {
	s    *compiledSchema
	root any
}

// found is an issue as the mapper carries it up the error tree: with the
// number of tokens of its path, and for an IssueType the type of the value
// sent, so that comparing issues by depth, or merging the type issues of
// alternatives, never reformats or rewalks a path.
//
// Its Allowed is still the schema's own slice, and an IssueEnum's message
// is still to be written (enum): issuesOf does both, for the issues a call
// keeps only, since each costs as much as the enum is long.
type found struct {
	Issue
	depth  int
	got    string
	enum   *kind.Enum     // the error of an IssueEnum whose Message is to be written
	secret bool           // the enum's value is a secret (see isSecret)
	near   *nearest.Index // the enum's values, indexed at compile time (nil for a short enum)
}

// issuesOf returns the issues of fs, sorted already. The first maxIssues
// (the ones a call keeps, see capIssues) get a copy of their allowed values
// and, for an enum, a message listing the values closest to the one sent;
// the others, the first allowed values in schema order and no Allowed, so
// that n issues against an enum of m values cost O(n + m), not O(n·m).
func issuesOf(fs []found) []Issue {
	if len(fs) == 0 {
		return nil
	}
	out := make([]Issue, len(fs))
	for i, f := range fs {
		is := f.Issue
		kept := i < maxIssues
		if is.Allowed != nil {
			if kept {
				is.Allowed = slices.Clone(is.Allowed)
			} else {
				is.Allowed = nil
			}
		}
		if f.enum != nil {
			if kept && !f.secret {
				is.Message = "must be " + oneOfNear(f.enum.Want, f.enum.Got, true, f.near)
			} else {
				is.Message = "must be " + oneOf(f.enum.Want)
			}
		}
		out[i] = is
	}
	return out
}

// collect maps one error and its causes, appending their issues to out.
// Its cost is linear in the size of the error tree plus the length of the
// issues' paths: a node that only groups causes (a schema, a $ref, an
// allOf) formats no pointer and copies no issue, so an error as deep as a
// value nested thousands of levels costs no more per level than a shallow
// one.
func (m *issueMapper) collect(e *jsonschema.ValidationError, out *[]found) {
	switch k := e.ErrorKind.(type) {
	case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
		for _, c := range e.Causes {
			m.collect(c, out)
		}
		return
	case *kind.AnyOf:
		*out = append(*out, m.bestAlternative(e.InstanceLocation, e.Causes)...)
		return
	case *kind.OneOf:
		if len(k.Subschemas) == 0 {
			*out = append(*out, m.bestAlternative(e.InstanceLocation, e.Causes)...)
			return
		}
	}
	for _, is := range m.leaf(e) {
		f := found{Issue: is, depth: strings.Count(is.Path, "/")}
		switch k := e.ErrorKind.(type) {
		case *kind.Type:
			f.got = k.Got
		case *kind.Enum:
			f.enum = k
			// The closest values to a secret would tell something of it.
			f.secret = m.s.byLocation[e.SchemaURL] != nil && isSecret(m.s.byLocation[e.SchemaURL])
			f.near = m.s.enumNear[e.SchemaURL]
		}
		*out = append(*out, f)
	}
}

// leaf maps an error that is not a group of causes.
func (m *issueMapper) leaf(e *jsonschema.ValidationError) []Issue {
	path := jsonpointer.Format(e.InstanceLocation)
	switch k := e.ErrorKind.(type) {
	case *kind.OneOf:
		return []Issue{{Path: path, Kind: IssueOther, Message: "matches more than one of the alternatives the schema allows; it must match exactly one"}}
	case *kind.Type:
		return []Issue{typeIssue(path, k.Want, k.Got)}
	case *kind.Enum:
		return []Issue{{Path: path, Kind: IssueEnum, Allowed: k.Want}} // Message: see issuesOf
	case *kind.Const:
		return []Issue{{Path: path, Kind: IssueEnum, Allowed: []any{k.Want}, Message: "must be " + oneOf([]any{k.Want})}}
	case *kind.Required:
		return m.missing(e, path, k.Missing, "")
	case *kind.DependentRequired:
		return m.missing(e, path, k.Missing, k.Prop)
	case *kind.Dependency:
		return m.missing(e, path, k.Missing, k.Prop)
	case *kind.AdditionalProperties:
		out := make([]Issue, 0, len(k.Properties))
		for _, p := range k.Properties {
			out = append(out, Issue{Path: jsonpointer.Append(path, p), Kind: IssueAdditional, Message: "unknown field; remove it"})
		}
		return out
	case *kind.FalseSchema:
		if len(e.InstanceLocation) > 0 {
			if _, inObject := valueAt(m.root, e.InstanceLocation[:len(e.InstanceLocation)-1]).(map[string]any); inObject {
				return []Issue{{Path: path, Kind: IssueAdditional, Message: "unknown field; remove it"}}
			}
		}
		return []Issue{{Path: path, Kind: IssueOther, Message: "the schema allows no value here"}}
	case *kind.Format:
		return []Issue{{Path: path, Kind: IssueFormat, Message: formatMessage(k.Want)}}
	case *kind.Minimum:
		return []Issue{{Path: path, Kind: IssueMinimum, Message: "must be at least " + ratString(k.Want)}}
	case *kind.ExclusiveMinimum:
		return []Issue{{Path: path, Kind: IssueMinimum, Message: "must be greater than " + ratString(k.Want)}}
	case *kind.Maximum:
		return []Issue{{Path: path, Kind: IssueMaximum, Message: "must be at most " + ratString(k.Want)}}
	case *kind.ExclusiveMaximum:
		return []Issue{{Path: path, Kind: IssueMaximum, Message: "must be less than " + ratString(k.Want)}}
	case *kind.Pattern:
		return []Issue{{Path: path, Kind: IssuePattern, Message: "must match the regular expression " + strconv.Quote(k.Want)}}
	case *kind.MinItems:
		return []Issue{{Path: path, Kind: IssueMinItems, Message: fmt.Sprintf("must have at least %d %s", k.Want, plural(k.Want, "item", "items"))}}
	}
	return []Issue{{Path: path, Kind: IssueOther, Message: otherMessage(e.ErrorKind)}}
}

// missing maps the members a required-like keyword names to issues at
// where each member would be.
func (m *issueMapper) missing(e *jsonschema.ValidationError, path string, names []string, because string) []Issue {
	set := schemawalk.Of(m.s.byLocation[e.SchemaURL])
	out := make([]Issue, 0, len(names))
	instead := sentInstead(set, valueAt(m.root, e.InstanceLocation), names)
	for k, name := range names {
		is := Issue{Path: jsonpointer.Append(path, name), Kind: IssueRequired, Instead: instead[k]}
		if sub, _ := set.Property(name); len(sub) > 0 {
			is.Expected, is.Allowed = describe(sub)
		}
		is.Message = "required field is missing"
		if because != "" {
			is.Message = fmt.Sprintf("required when %q is present, but missing", because)
		}
		if is.Expected != "" {
			is.Message += "; expected " + article(is.Expected)
		}
		if len(is.Allowed) > 0 {
			is.Message += ", " + oneOf(is.Allowed)
		}
		out = append(out, is)
	}
	return out
}

// sentInstead returns, for each missing member of names, the member of obj
// that stands for it (see [Issue].Instead), or "": each member of obj that
// no schema of set (or of its alternatives) describes stands for at most
// one missing member, the first whose name it is close to.
func sentInstead(set schemawalk.Set, obj any, names []string) []string {
	out := make([]string, len(names))
	members, ok := obj.(map[string]any)
	if !ok || len(members) == 0 {
		return out
	}
	possible := set.Possible()
	var unknown []string
	for key := range members {
		if !describes(possible, key) {
			unknown = append(unknown, key)
		}
	}
	if len(unknown) == 0 {
		return out
	}
	slices.Sort(unknown)
	if len(unknown) > maxInsteadCandidates {
		unknown = unknown[:maxInsteadCandidates] // bounds the pairing's cost on hostile input
	}
	if len(names) == 1 && len(unknown) == 1 {
		out[0] = unknown[0]
		return out
	}
	for k, name := range names {
		for i, key := range unknown {
			if key != "" && closeNames(name, key) {
				out[k] = key
				unknown[i] = "" // taken
				break
			}
		}
	}
	return out
}

// maxInsteadCandidates bounds the unknown members sentInstead compares
// with the missing ones: the first in name order.
const maxInsteadCandidates = 256

// describes reports whether a schema of set names the member key under
// properties or matches it with patternProperties.
func describes(set schemawalk.Set, key string) bool {
	for _, s := range set {
		if _, ok := s.Properties[key]; ok {
			return true
		}
		for re := range s.PatternProperties {
			if re.MatchString(key) {
				return true
			}
		}
	}
	return false
}

// closeNames reports whether key is most likely a misspelling of name:
// the same up to case, '_' and '-', or within an edit distance of a third
// of name's length.
func closeNames(name, key string) bool {
	if normName(name) == normName(key) { // secret.go: case, '_' and '-' ignored
		return true
	}
	return nearest.Within(name, key, utf8.RuneCountInString(name)/3)
}

// bestAlternative picks the issues of the anyOf/oneOf alternative that
// best explains the failure at loc. Alternatives whose only complaint is
// the type of the value itself are set aside: if every alternative is one,
// the value gets a single type issue naming every type allowed; otherwise
// the alternative with the fewest issues (then the deepest, then the first)
// is reported.
func (m *issueMapper) bestAlternative(loc []string, causes []*jsonschema.ValidationError) []found {
	var (
		best      []found
		bestFound bool
		wants     []string
		got       string
	)
	for _, c := range causes {
		var alt []found
		m.collect(c, &alt)
		issues := finishFound(alt)
		// The causes are at loc or below it: an issue as deep as loc is at loc.
		if len(issues) == 1 && issues[0].Kind == IssueType && issues[0].depth == len(loc) {
			for _, t := range strings.Split(issues[0].Expected, " or ") {
				if !slices.Contains(wants, t) {
					wants = append(wants, t)
				}
			}
			got = issues[0].got
			continue
		}
		if len(issues) == 0 {
			continue
		}
		if !bestFound || len(issues) < len(best) || (len(issues) == len(best) && maxDepth(issues) > maxDepth(best)) {
			best, bestFound = issues, true
		}
	}
	if bestFound {
		return best
	}
	path := jsonpointer.Format(loc)
	if len(wants) > 0 {
		return []found{{Issue: typeIssue(path, wants, got), depth: len(loc), got: got}}
	}
	return []found{{Issue: Issue{Path: path, Kind: IssueOther, Message: "matches none of the alternatives the schema allows"}, depth: len(loc)}}
}

func maxDepth(issues []found) int {
	d := 0
	for _, is := range issues {
		d = max(d, is.depth)
	}
	return d
}

// valueAt returns the value at an instance location of root, nil if absent.
func valueAt(root any, loc []string) any {
	v := root
	for _, tok := range loc {
		switch x := v.(type) {
		case map[string]any:
			v = x[tok]
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
	}
	return v
}

// finishFound deduplicates issues by (Path, Kind), drops every issue at
// or below a location whose value has the wrong type, and sorts them. Its
// cost is O(n log n) comparisons of paths for n issues, however many of them
// have the wrong type.
func finishFound(issues []found) []found {
	if len(issues) == 0 {
		return nil
	}
	var paths []string
	for _, is := range issues {
		if is.Kind == IssueType {
			paths = append(paths, is.Path)
		}
	}
	typed := newTypedLocations(paths)
	out := issues[:0:0]
	seen := map[[2]string]bool{}
	for _, is := range issues {
		key := [2]string{is.Path, string(is.Kind)}
		if seen[key] {
			continue
		}
		if is.Kind != IssueType && typed.covers(is.Path) {
			continue
		}
		seen[key] = true
		out = append(out, is)
	}
	slices.SortStableFunc(out, func(a, b found) int { return compareIssues(a.Issue, b.Issue) })
	return out
}

// typedLocations holds the locations whose value has the wrong type: only
// the outermost ones (a location below another adds nothing), sorted by
// compareSlashFirst. In that order a location's descendants follow it,
// before any other location, so the one location that can hold a path is
// the greatest not after it: covers is a binary search, where a scan of
// every location made n issues cost n² comparisons.
type typedLocations []string

func newTypedLocations(paths []string) typedLocations {
	if len(paths) == 0 {
		return nil
	}
	sorted := slices.Clone(paths)
	slices.SortFunc(sorted, compareSlashFirst)
	out := sorted[:0]
	for _, p := range sorted {
		if len(out) == 0 || !atOrBelow(p, out[len(out)-1]) {
			out = append(out, p)
		}
	}
	return typedLocations(out)
}

// covers reports whether path is one of the locations or below one.
func (t typedLocations) covers(path string) bool {
	if len(t) == 0 {
		return false
	}
	i, exact := slices.BinarySearchFunc(t, path, compareSlashFirst)
	return exact || i > 0 && atOrBelow(path, t[i-1])
}

// atOrBelow reports whether JSON pointer path is loc or below it.
func atOrBelow(path, loc string) bool {
	return strings.HasPrefix(path, loc) && (len(path) == len(loc) || path[len(loc)] == '/')
}

// compareSlashFirst orders strings byte by byte, with '/' before every
// other byte, then the shorter first.
func compareSlashFirst(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] == b[i] {
			continue
		}
		switch {
		case a[i] == '/':
			return -1
		case b[i] == '/':
			return 1
		}
		return cmp.Compare(a[i], b[i])
	}
	return cmp.Compare(len(a), len(b))
}

var kindRank = map[IssueKind]int{
	IssueRequired: 0, IssueAdditional: 1, IssueType: 2, IssueEnum: 3, IssueFormat: 4,
	IssueMinimum: 5, IssueMaximum: 6, IssuePattern: 7, IssueMinItems: 8, IssueOther: 9,
}

// compareIssues orders issues by path, token by token with array indexes
// in numeric order, then by kind.
func compareIssues(a, b Issue) int {
	if c := jsonpointer.Compare(a.Path, b.Path); c != 0 {
		return c
	}
	ra, oka := kindRank[a.Kind]
	rb, okb := kindRank[b.Kind]
	if !oka {
		ra = len(kindRank)
	}
	if !okb {
		rb = len(kindRank)
	}
	if c := cmp.Compare(ra, rb); c != 0 {
		return c
	}
	if c := strings.Compare(string(a.Kind), string(b.Kind)); c != 0 {
		return c
	}
	return strings.Compare(a.Message, b.Message)
}
