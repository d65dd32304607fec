// Package jsonshape records the keys of JSON answers, for tests that hold
// every answer of desk to one shape: the same keys whatever the desk holds,
// a field that can be empty present as [] or null, never left out.
package jsonshape

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Set is what is known of each kind of answer, by the name a test gives it
// (a route and a variant, a command).
type Set map[string]Shape

// Shape is what is known of one kind of answer: for every path in it
// ("issues[].plan"), the keys of the objects found there and the JSON types
// found there.
type Shape map[string]*Spot

// Spot is one path of a Shape.
type Spot struct {
	Keys  []string // sorted; nil until an object is seen
	Types map[string]bool
}

// Opaque reports whether the objects at path are data rather than records:
// the game's own location (its keys are the ones the game sent), an
// activity entry's detail (its keys are the action's), the counts keyed by
// a desk's own areas, seeds, sizes and milestones, the repo links keyed by
// folder, and the payload a client sent as it sent it.
func Opaque(path string) bool {
	for _, name := range []string{"location", "detail", "counts.area", "counts.seed", "counts.milestone", "counts.size", "links", "missing_links", "raw"} {
		if path == name || strings.HasSuffix(path, "."+name) {
			return true
		}
	}
	return false
}

// Add records v, one answer of kind answer, and returns where it disagrees
// with itself or with what was known: keys missing from one object that
// another at the same path has, or a list that is null elsewhere.
func (s Set) Add(answer string, v any) []string {
	sh := s[answer]
	if sh == nil {
		sh = Shape{}
		s[answer] = sh
	}
	return sh.add(answer, "", v)
}

func (sh Shape) add(answer, path string, v any) []string {
	s := sh[path]
	if s == nil {
		s = &Spot{Types: map[string]bool{}}
		sh[path] = s
	}
	var problems []string
	switch v := v.(type) {
	case map[string]any:
		s.Types["object"] = true
		if Opaque(path) {
			return nil
		}
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		if s.Keys == nil {
			s.Keys = keys
		} else if !slices.Equal(s.Keys, keys) {
			problems = append(problems, fmt.Sprintf("%s: %s has keys %s in one place and %s in another",
				answer, Name(path), Diff(s.Keys, keys), Diff(keys, s.Keys)))
			s.Keys = Union(s.Keys, keys)
		}
		for _, k := range keys {
			problems = append(problems, sh.add(answer, join(path, k), v[k])...)
		}
	case []any:
		s.Types["array"] = true
		for _, e := range v {
			problems = append(problems, sh.add(answer, path+"[]", e)...)
		}
	case nil:
		s.Types["null"] = true
	default:
		s.Types[fmt.Sprintf("%T", v)] = true
	}
	if s.Types["array"] && s.Types["null"] {
		problems = append(problems, fmt.Sprintf("%s: %s is a list in one place and null in another", answer, Name(path)))
		delete(s.Types, "null")
	}
	return problems
}

// Keys returns the keys known at path of answer, or nil.
func (s Set) Keys(answer, path string) []string {
	if sp := s[answer][path]; sp != nil {
		return sp.Keys
	}
	return nil
}

// Compare returns where the answers a and b both know name different keys
// at the same path, or hold a list at a path where the other holds null;
// aName and bName say which is which.
func Compare(a, b Set, aName, bName string) []string {
	var problems []string
	answers := make([]string, 0, len(a))
	for answer := range a {
		answers = append(answers, answer)
	}
	sort.Strings(answers)
	for _, answer := range answers {
		sa, sb := a[answer], b[answer]
		if sb == nil {
			continue
		}
		paths := make([]string, 0, len(sa))
		for p := range sa {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			x, y := sa[p], sb[p]
			if y == nil {
				continue
			}
			if x.Keys != nil && y.Keys != nil && !slices.Equal(x.Keys, y.Keys) {
				problems = append(problems, fmt.Sprintf("%s: %s has keys %s on the %s desk and %s on the %s desk",
					answer, Name(p), Diff(x.Keys, y.Keys), aName, Diff(y.Keys, x.Keys), bName))
			}
			if x.Types["array"] && y.Types["null"] || x.Types["null"] && y.Types["array"] {
				problems = append(problems, fmt.Sprintf("%s: %s is a list on one of the %s and %s desks and null on the other",
					answer, Name(p), aName, bName))
			}
		}
	}
	return problems
}

// Diff shows keys, marking with + those that other lacks.
func Diff(keys, other []string) string {
	var out []string
	for _, k := range keys {
		if !slices.Contains(other, k) {
			out = append(out, "+"+k)
		}
	}
	if len(out) == 0 {
		return "{…}"
	}
	return "{… " + strings.Join(out, " ") + "}"
}

// Union returns the sorted keys of a and b.
func Union(a, b []string) []string {
	out := slices.Clone(a)
	for _, k := range b {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// Name is path as a message names it.
func Name(path string) string {
	if path == "" {
		return "the answer"
	}
	return path
}
