// Package schemawalk walks compiled JSON Schemas (santhosh-tekuri/jsonschema
// v6): which schemas apply to a value, to a member of an object, and to an
// item of an array. It is the one place that knows how $ref, allOf and the
// object and array applicators lead from one schema to others; every part
// of saidex that reads a tool schema (the precheck, coercion, correction
// routing, feedback, secret masking) walks it through this package.
//
// References are those of the compiled schema: the compiler has resolved
// every $ref to a *jsonschema.Schema (Schema.Ref), local ones ("#/$defs/X",
// "#anchor", a relative $id) as well as any remote one its loader
// provided. saidex compiles tool schemas with a loader that refuses every
// remote document, so in practice every reference is local. $dynamicRef
// and $recursiveRef are followed to their static target: the dynamic scope
// is not modelled, so a consumer that must be exact (the precheck) refuses
// schemas that use them.
//
// Before draft 2019-09, $ref overrides its siblings; the compiler then
// compiles none of the applicators beside it, and Of follows only the
// reference.
package schemawalk

import (
	"maps"
	"slices"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Set is the schemas that apply to one value together: all of them must
// accept it. A Set holds each schema once; nil and empty are the same
// (no constraint).
type Set []*jsonschema.Schema

// Of returns s with every schema it reaches through $ref, $dynamicRef,
// $recursiveRef and allOf, transitively, in depth-first order starting
// with s. A nil s gives an empty set.
func Of(s *jsonschema.Schema) Set {
	return Set(nil).add(s)
}

// add appends s and the schemas it reaches to set, skipping those set
// already holds.
func (set Set) add(s *jsonschema.Schema) Set {
	if s == nil || slices.Contains(set, s) {
		return set
	}
	set = append(set, s)
	if s.Bool != nil {
		return set
	}
	for _, x := range sameValue(s) {
		set = set.add(x)
	}
	return set
}

// sameValue returns the subschemas of s that always apply to the value s
// applies to.
func sameValue(s *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	if s.Ref != nil {
		out = append(out, s.Ref)
		if s.DraftVersion < 2019 {
			return out // $ref overrides its siblings
		}
	}
	if s.RecursiveRef != nil {
		out = append(out, s.RecursiveRef)
	}
	if s.DynamicRef != nil && s.DynamicRef.Ref != nil {
		out = append(out, s.DynamicRef.Ref)
	}
	return append(out, s.AllOf...)
}

// Alternatives returns the alternatives of the set's schemas: for each
// anyOf and oneOf of a schema in set, the set of each of its entries.
// At least one alternative of each group applies (exactly one for
// oneOf); which one depends on the value.
func (set Set) Alternatives() [][]Set {
	var groups [][]Set
	for _, s := range set {
		for _, list := range [][]*jsonschema.Schema{s.AnyOf, s.OneOf} {
			if len(list) == 0 {
				continue
			}
			g := make([]Set, len(list))
			for i, a := range list {
				g[i] = Of(a)
			}
			groups = append(groups, g)
		}
	}
	return groups
}

// Possible returns the schemas that may apply to the value: the set, the
// alternatives of anyOf and oneOf, then and else, and dependentSchemas,
// each with the schemas they reach, transitively.
func (set Set) Possible() Set {
	out := slices.Clip(set)
	for i := 0; i < len(out); i++ {
		s := out[i]
		var more []*jsonschema.Schema
		more = append(more, s.AnyOf...)
		more = append(more, s.OneOf...)
		more = append(more, s.Then, s.Else)
		for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
			more = append(more, s.DependentSchemas[k])
		}
		for _, x := range more {
			out = out.add(x)
		}
	}
	return out
}

// Property returns the schemas that apply to the member name of an object
// the set applies to: for each schema, properties[name] and every matching
// patternProperties entry, else its additionalProperties schema. allowed
// is false when a schema of the set forbids the member
// (additionalProperties false, with no property or pattern naming it).
func (set Set) Property(name string) (out Set, allowed bool) {
	allowed = true
	for _, s := range set {
		p, named := s.Properties[name]
		if named {
			out = out.add(p)
		}
		matched := false
		for re, p := range s.PatternProperties {
			if re.MatchString(name) {
				out = out.add(p)
				matched = true
			}
		}
		if named || matched {
			continue
		}
		switch a := s.AdditionalProperties.(type) {
		case *jsonschema.Schema:
			out = out.add(a)
		case bool:
			allowed = allowed && a
		}
	}
	return out, allowed
}

// Additional returns the schemas that apply to a member of an object the
// set applies to that no properties entry names and no patternProperties
// entry matches: the additionalProperties schemas. allowed is false when
// a schema of the set forbids such a member (additionalProperties false).
func (set Set) Additional() (out Set, allowed bool) {
	allowed = true
	for _, s := range set {
		switch a := s.AdditionalProperties.(type) {
		case *jsonschema.Schema:
			out = out.add(a)
		case bool:
			allowed = allowed && a
		}
	}
	return out, allowed
}

// PropertyNames returns the names the set's schemas list under
// properties, sorted, each once.
func (set Set) PropertyNames() []string {
	var names []string
	for _, s := range set {
		for name := range s.Properties {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	slices.Sort(names)
	return names
}

// Required returns the names the set's schemas require, each once, in
// the order the schemas list them.
func (set Set) Required() []string {
	var names []string
	for _, s := range set {
		for _, r := range s.Required {
			if !slices.Contains(names, r) {
				names = append(names, r)
			}
		}
	}
	return names
}

// Item returns the schemas that apply to item i of an array the set
// applies to: prefixItems[i] or else items (draft 2020-12), or the items
// schema, the i-th entry of an items array or else additionalItems
// (earlier drafts).
func (set Set) Item(i int) Set {
	var out Set
	for _, s := range set {
		if i < len(s.PrefixItems) {
			out = out.add(s.PrefixItems[i])
		} else {
			out = out.add(s.Items2020)
		}
		switch it := s.Items.(type) {
		case *jsonschema.Schema:
			out = out.add(it)
		case []*jsonschema.Schema:
			if i < len(it) {
				out = out.add(it[i])
			} else if a, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
				out = out.add(a)
			}
		}
	}
	return out
}

// Subschemas calls fn for every direct subschema of s, in a fixed order.
// sameValue reports whether the subschema applies to the same value as s
// (an applicator such as $ref, allOf, not or if) rather than to a member,
// an item or a member name of it.
func Subschemas(s *jsonschema.Schema, fn func(sub *jsonschema.Schema, sameValue bool)) {
	same := func(ss ...*jsonschema.Schema) {
		for _, x := range ss {
			if x != nil {
				fn(x, true)
			}
		}
	}
	child := func(ss ...*jsonschema.Schema) {
		for _, x := range ss {
			if x != nil {
				fn(x, false)
			}
		}
	}
	same(s.Ref, s.RecursiveRef, s.Not, s.If, s.Then, s.Else)
	if s.DynamicRef != nil {
		same(s.DynamicRef.Ref)
	}
	same(s.AllOf...)
	same(s.AnyOf...)
	same(s.OneOf...)
	for _, k := range slices.Sorted(maps.Keys(s.DependentSchemas)) {
		same(s.DependentSchemas[k])
	}
	for _, k := range slices.Sorted(maps.Keys(s.Dependencies)) {
		if d, ok := s.Dependencies[k].(*jsonschema.Schema); ok {
			same(d)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(s.Properties)) {
		child(s.Properties[k])
	}
	patterns := make([]jsonschema.Regexp, 0, len(s.PatternProperties))
	for re := range s.PatternProperties {
		patterns = append(patterns, re)
	}
	slices.SortFunc(patterns, func(a, b jsonschema.Regexp) int {
		switch x, y := a.String(), b.String(); {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	})
	for _, re := range patterns {
		child(s.PatternProperties[re])
	}
	if a, ok := s.AdditionalProperties.(*jsonschema.Schema); ok {
		child(a)
	}
	child(s.PropertyNames, s.UnevaluatedProperties, s.Contains, s.Items2020, s.UnevaluatedItems, s.ContentSchema)
	child(s.PrefixItems...)
	switch it := s.Items.(type) {
	case *jsonschema.Schema:
		child(it)
	case []*jsonschema.Schema:
		child(it...)
	}
	if a, ok := s.AdditionalItems.(*jsonschema.Schema); ok {
		child(a)
	}
}

// Reachable returns every schema reachable from root, root first, each
// once, in the order Subschemas visits them depth first.
func Reachable(root *jsonschema.Schema) []*jsonschema.Schema {
	var out []*jsonschema.Schema
	seen := map[*jsonschema.Schema]bool{}
	var visit func(s *jsonschema.Schema)
	visit = func(s *jsonschema.Schema) {
		if seen[s] {
			return
		}
		seen[s] = true
		out = append(out, s)
		Subschemas(s, func(sub *jsonschema.Schema, _ bool) { visit(sub) })
	}
	if root != nil {
		visit(root)
	}
	return out
}
