package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"desk"
)

// A tool is declared once, as a list of params: the JSON schema the client
// sees and the checks its arguments go through are both made from that list,
// so they cannot drift apart. A handler gets arguments that have the right
// types and names; the rules about their values are the core's.
type tool struct {
	name string
	desc string
	// params, in the order the schema lists them.
	params []param
	// readOnly and destructive become the tool's annotations, so clients
	// can ask before a write and skip asking for a read.
	readOnly, destructive bool
	// mayBlock marks a tool whose call may wait (pair_read): it runs on
	// the SDK's path, where the session reads on (a cancel, the next
	// call) while it waits.
	mayBlock bool
	// unknown, if set, words the refusal of an argument the tool does not
	// take (update_issue points at set_status for status).
	unknown func(name string) string
	run     func(ctx context.Context, s *server, a *args) (any, error)
}

// Parameter types, as JSON schema names them.
const (
	tString  = "string"
	tInteger = "integer"
	tNumber  = "number"
	tBoolean = "boolean"
	tArray   = "array"
	tObject  = "object"
)

// param is one argument of a tool.
type param struct {
	name     string
	typ      string
	desc     string
	required bool
	// enum lists the values the schema offers. The check refuses others
	// unless lenient is set, which leaves the refusal (and its hint) to the
	// core: agents asking for "passed" must hear why not, not a bare enum.
	enum    []string
	lenient bool
	min     *int
	max     *int
	// items is the schema of an array's items; schema replaces the whole
	// generated schema where one type is not enough (a step is a text or
	// an object).
	items  map[string]any
	schema map[string]any
	// nullable accepts null as "none" (link_parent's parent).
	nullable bool
}

func intp(i int) *int { return &i }

// schemaOf builds the tool's input schema.
func (t *tool) schemaOf() map[string]any {
	props := map[string]any{}
	var required []string
	for _, p := range t.params {
		props[p.name] = p.jsonSchema()
		if p.required {
			required = append(required, p.name)
		}
	}
	s := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

func (p *param) jsonSchema() map[string]any {
	if p.schema != nil {
		s := map[string]any{}
		for k, v := range p.schema {
			s[k] = v
		}
		if p.desc != "" {
			s["description"] = p.desc
		}
		return s
	}
	// A nullable param still declares one type: several clients refuse
	// type lists; null is accepted all the same.
	s := map[string]any{"type": p.typ}
	if p.desc != "" {
		s["description"] = p.desc
	}
	if len(p.enum) > 0 {
		s["enum"] = p.enum
	}
	if p.min != nil {
		s["minimum"] = *p.min
	}
	if p.max != nil {
		s["maximum"] = *p.max
	}
	if p.items != nil {
		s["items"] = p.items
	}
	return s
}

// args are a tool call's checked arguments.
type args struct {
	tool string
	m    map[string]json.RawMessage
}

// argError is a mistake in a call's arguments: the tool was not run.
func argError(format string, a ...any) error {
	return desk.Errorf(desk.Invalid, format, a...)
}

// check decodes raw arguments and checks them against the tool's params:
// a JSON object, no unknown names, every required one present, each of
// the declared type. Models often send numbers and booleans as strings and
// lists as one comma-separated string; those are accepted.
func (t *tool) check(raw json.RawMessage) (*args, error) {
	a := &args{tool: t.name, m: map[string]json.RawMessage{}}
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && !bytes.Equal(raw, []byte("null")) {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		if err := d.Decode(&a.m); err != nil || a.m == nil {
			return nil, argError("%s: the arguments must be a JSON object", t.name)
		}
	}
	var unknown []string
	for k := range a.m {
		if !t.takes(k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		if t.unknown != nil {
			if msg := t.unknown(unknown[0]); msg != "" {
				return nil, argError("%s", msg)
			}
		}
		return nil, argError("%s does not take %s; it takes %s", t.name, quoteList(unknown), t.paramNames())
	}
	for i := range t.params {
		p := &t.params[i]
		v, ok := a.m[p.name]
		if ok && isNull(v) {
			if p.nullable {
				continue
			}
			delete(a.m, p.name)
			ok = false
		}
		if !ok {
			if p.required {
				return nil, argError("%s: missing argument '%s' (%s)", t.name, p.name, p.desc)
			}
			continue
		}
		norm, err := p.coerce(v)
		if err != nil {
			return nil, argError("%s: argument '%s' %s", t.name, p.name, err)
		}
		a.m[p.name] = norm
	}
	return a, nil
}

// takes reports whether the tool has a parameter called name. A call names
// a handful of a tool's parameters: looking along the list cost less than
// the map of them it made on every call.
func (t *tool) takes(name string) bool {
	for i := range t.params {
		if t.params[i].name == name {
			return true
		}
	}
	return false
}

func (t *tool) paramNames() string {
	if len(t.params) == 0 {
		return "no arguments"
	}
	names := make([]string, len(t.params))
	for i, p := range t.params {
		names[i] = p.name
	}
	return strings.Join(names, ", ")
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "'" + n + "'"
	}
	return strings.Join(q, ", ")
}

// coerce checks v against the param's type and returns it in canonical
// form, accepting the near misses models make.
func (p *param) coerce(v json.RawMessage) (json.RawMessage, error) {
	if p.schema != nil {
		return v, nil // the handler decodes its own shape
	}
	var s string
	isString := json.Unmarshal(v, &s) == nil
	switch p.typ {
	case tString:
		if !isString {
			var n json.Number
			if json.Unmarshal(v, &n) == nil {
				return json.Marshal(n.String())
			}
			return nil, fmt.Errorf("must be a string")
		}
		if len(p.enum) > 0 && !p.lenient {
			low := strings.ToLower(strings.TrimSpace(s))
			if !desk.OneOf(low, p.enum) && !desk.OneOf(strings.TrimSpace(s), p.enum) {
				return nil, fmt.Errorf("is %q; use one of %s", s, strings.Join(p.enum, ", "))
			}
		}
		return v, nil
	case tInteger, tNumber:
		text := string(bytes.TrimSpace(v))
		if isString {
			text = strings.TrimSpace(s)
		}
		f, err := strconv.ParseFloat(text, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
			if p.typ == tInteger {
				return nil, fmt.Errorf("must be a whole number")
			}
			return nil, fmt.Errorf("must be a number")
		}
		if p.typ == tInteger {
			if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
				return nil, fmt.Errorf("must be a whole number")
			}
			if p.min != nil && int(f) < *p.min {
				return nil, fmt.Errorf("must be at least %d", *p.min)
			}
			if p.max != nil && int(f) > *p.max {
				return nil, fmt.Errorf("must be at most %d", *p.max)
			}
			return json.RawMessage(strconv.FormatInt(int64(f), 10)), nil
		}
		return json.RawMessage(text), nil
	case tBoolean:
		if isString {
			b, err := strconv.ParseBool(strings.TrimSpace(s))
			if err != nil {
				return nil, fmt.Errorf("must be true or false")
			}
			return json.Marshal(b)
		}
		var b bool
		if json.Unmarshal(v, &b) != nil {
			return nil, fmt.Errorf("must be true or false")
		}
		return v, nil
	case tArray:
		var list []json.RawMessage
		if json.Unmarshal(v, &list) != nil {
			if !isString {
				return nil, fmt.Errorf("must be a list")
			}
			// "a, b" for a list of strings.
			return json.Marshal(desk.SplitList(s))
		}
		if p.min != nil && len(list) < *p.min {
			return nil, fmt.Errorf("must list at least %d item(s)", *p.min)
		}
		if p.items != nil && p.items["type"] == tString {
			for _, it := range list {
				var s string
				if json.Unmarshal(it, &s) != nil {
					return nil, fmt.Errorf("must be a list of strings")
				}
			}
		}
		return v, nil
	case tObject:
		var m map[string]json.RawMessage
		if json.Unmarshal(v, &m) != nil {
			return nil, fmt.Errorf("must be an object")
		}
		return v, nil
	}
	return v, nil
}

func isNull(v json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(v), []byte("null")) }

// has reports whether the call gave name (null counts for nullable params).
func (a *args) has(name string) bool { _, ok := a.m[name]; return ok }

// raw returns the argument as given.
func (a *args) raw(name string) json.RawMessage { return a.m[name] }

// str returns a string argument, or "".
func (a *args) str(name string) string {
	var s string
	_ = json.Unmarshal(a.m[name], &s)
	return s
}

// strp returns a string argument, or nil when it was not given.
func (a *args) strp(name string) *string {
	if !a.has(name) || isNull(a.m[name]) {
		return nil
	}
	s := a.str(name)
	return &s
}

// integer returns an integer argument, or def.
func (a *args) integer(name string, def int) int {
	v, ok := a.m[name]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(string(v))
	if err != nil {
		return def
	}
	return n
}

// boolean returns a boolean argument, or false.
func (a *args) boolean(name string) bool {
	var b bool
	_ = json.Unmarshal(a.m[name], &b)
	return b
}

// list returns a list-of-strings argument; a comma-separated string in a
// list ("to_check,failed") counts as its parts.
func (a *args) list(name string) []string {
	var list []string
	if json.Unmarshal(a.m[name], &list) != nil {
		return nil
	}
	var out []string
	for _, s := range list {
		out = append(out, desk.SplitList(s)...)
	}
	return out
}

// fields returns the arguments that are issue fields, for the core's
// decoder, with the tool's own names taken out.
func (a *args) fields(names ...string) map[string]json.RawMessage {
	m := map[string]json.RawMessage{}
	for _, n := range names {
		if v, ok := a.m[n]; ok {
			m[n] = v
		}
	}
	return m
}
