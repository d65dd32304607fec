package desk

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// IssueFields is a partial set of issue fields as a client sends them, for a
// new issue or an edit. A nil field was not given.
type IssueFields struct {
	Title       *string
	Body        *string
	Kind        *string
	Status      *string
	Priority    *string
	Area        *string
	Tags        *[]string
	Location    *Location // replaces the whole location
	Commands    *[]LocationCommand
	Command     *string // replaces the first command; "" removes it
	Seed        **int64 // the location's world seed; a nil *int64 clears it
	Source      *string
	ExternalRef *string
	Size        *string
	Milestone   *string
	Parent      **string // the parent's id; a nil *string removes the parent
}

// issueFieldNames are the keys DecodeIssueFields consumes.
var issueFieldNames = []string{
	"title", "body", "kind", "status", "priority", "area", "tags", "location", "commands",
	"command", "seed", "source", "external_ref", "size", "milestone", "parent",
}

// DecodeObject reads a JSON object into its members, with an error that
// names the problem when the text is not one.
func DecodeObject(data []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(&m); err != nil || m == nil {
		msg := "expected a JSON object"
		if err != nil {
			msg += ": " + err.Error()
		}
		return nil, Errorf(Invalid, "%s", msg)
	}
	if d.More() {
		return nil, Errorf(Invalid, "expected one JSON object, found more after it")
	}
	return m, nil
}

// DecodeIssueFields takes the issue fields out of a JSON object's members and
// checks them; the members it does not know (author, actor, attachments ...)
// stay in m for the caller.
func DecodeIssueFields(m map[string]json.RawMessage) (IssueFields, error) {
	var f IssueFields
	var err error
	str := func(key string, limit int) *string {
		raw, ok := m[key]
		if !ok || err != nil {
			return nil
		}
		var s string
		if s, err = decodeString(key, raw, limit); err != nil {
			return nil
		}
		return &s
	}
	f.Title = str("title", MaxTitle*4)
	f.Body = str("body", MaxBody)
	f.Kind = str("kind", 20)
	f.Status = str("status", 20)
	f.Priority = str("priority", 20)
	f.Area = str("area", MaxArea*4)
	f.Source = str("source", 20)
	f.ExternalRef = str("external_ref", MaxExternalRef)
	f.Size = str("size", 10)
	f.Milestone = str("milestone", MaxMilestone)
	f.Command = str("command", MaxCommand)
	if err != nil {
		return f, err
	}
	if raw, ok := m["tags"]; ok {
		tags, err := DecodeTags(raw)
		if err != nil {
			return f, err
		}
		f.Tags = &tags
	}
	if raw, ok := m["location"]; ok && !isNull(raw) {
		loc, err := DecodeLocation(raw)
		if err != nil {
			return f, err
		}
		f.Location = &loc
	} else if ok {
		f.Location = &Location{}
	}
	if raw, ok := m["commands"]; ok {
		cmds, err := DecodeCommands("commands", raw)
		if err != nil {
			return f, err
		}
		f.Commands = &cmds
	}
	if raw, ok := m["seed"]; ok {
		seed, err := decodeOptInt("seed", raw)
		if err != nil {
			return f, err
		}
		f.Seed = &seed
	}
	if raw, ok := m["parent"]; ok {
		if isNull(raw) {
			var none *string
			f.Parent = &none
		} else {
			s, err := decodeString("parent", raw, 40)
			if err != nil {
				return f, err
			}
			p := &s
			if strings.TrimSpace(s) == "" || strings.EqualFold(strings.TrimSpace(s), "none") {
				p = nil
			}
			f.Parent = &p
		}
	}
	for _, k := range issueFieldNames {
		delete(m, k)
	}
	return f, f.Normalize()
}

// Normalize trims and checks every field that is set: enums, lengths, the
// title's white space, the tags.
func (f *IssueFields) Normalize() error {
	if f.Title != nil {
		t := CollapseSpace(*f.Title)
		if t == "" {
			return Errorf(Invalid, "title: must not be empty")
		}
		if len(t) > MaxTitle {
			return Errorf(Invalid, "title: longer than %d characters; put the detail in the body", MaxTitle)
		}
		f.Title = &t
	}
	enum := func(p *string, field string, set []string, lower bool) error {
		if p == nil {
			return nil
		}
		v := strings.TrimSpace(*p)
		if lower {
			v = strings.ToLower(v)
		}
		*p = v
		return checkEnum(field, v, set)
	}
	if err := enum(f.Kind, "kind", Kinds, true); err != nil {
		return err
	}
	if err := enum(f.Status, "status", Statuses, true); err != nil {
		return err
	}
	if err := enum(f.Priority, "priority", Priorities, true); err != nil {
		return err
	}
	if err := enum(f.Source, "source", Sources, true); err != nil {
		return err
	}
	if f.Size != nil {
		s := strings.ToUpper(strings.TrimSpace(*f.Size))
		if s != "" && !OneOf(s, Sizes) {
			return Errorf(Invalid, "size: %q is not one of S, M, L (or empty)", *f.Size)
		}
		f.Size = &s
	}
	trim := func(p *string, field string, limit int) error {
		if p == nil {
			return nil
		}
		*p = CollapseSpace(*p)
		if len(*p) > limit {
			return Errorf(Invalid, "%s: longer than %d characters", field, limit)
		}
		return nil
	}
	if err := trim(f.Area, "area", MaxArea); err != nil {
		return err
	}
	if err := trim(f.Milestone, "milestone", MaxMilestone); err != nil {
		return err
	}
	if f.ExternalRef != nil {
		r := strings.TrimSpace(*f.ExternalRef)
		f.ExternalRef = &r
	}
	if f.Tags != nil {
		tags, err := NormalizeTags(*f.Tags)
		if err != nil {
			return err
		}
		f.Tags = &tags
	}
	if f.Location != nil {
		if err := f.Location.Normalize(); err != nil {
			return err
		}
	}
	if f.Commands != nil {
		cmds, err := NormalizeCommands("commands", *f.Commands)
		if err != nil {
			return err
		}
		f.Commands = &cmds
	}
	if f.Command != nil {
		c := strings.TrimSpace(*f.Command)
		if len(c) > MaxCommand {
			return Errorf(Invalid, "command: longer than %d characters", MaxCommand)
		}
		f.Command = &c
	}
	return nil
}

// ApplyLocation applies the location, commands, command and seed fields to
// loc, in that order: a new location replaces the old, a command list
// replaces the list, a lone command the first entry.
func (f *IssueFields) ApplyLocation(loc Location) Location {
	if f.Location != nil {
		loc = *f.Location
		loc.Commands = append([]LocationCommand(nil), loc.Commands...)
	}
	if f.Commands != nil {
		loc.Commands = append([]LocationCommand(nil), (*f.Commands)...)
		loc.SyncCommand()
	}
	if f.Command != nil {
		loc.SetFirstCommand(*f.Command)
	}
	if f.Seed != nil {
		loc.Seed = *f.Seed
	}
	return loc
}

// TouchesLocation reports whether any location field is set.
func (f *IssueFields) TouchesLocation() bool {
	return f.Location != nil || f.Commands != nil || f.Command != nil || f.Seed != nil
}

// NormalizeTags trims tags, drops empty and repeated ones (case-insensitive)
// and checks their lengths.
func NormalizeTags(tags []string) ([]string, error) {
	out := make([]string, 0, len(tags))
	seen := map[string]bool{}
	for _, t := range tags {
		t = CollapseSpace(strings.TrimPrefix(strings.TrimSpace(t), "#"))
		if t == "" || seen[strings.ToLower(t)] {
			continue
		}
		if len(t) > MaxTag {
			return nil, Errorf(Invalid, "tags: %q is longer than %d characters", t, MaxTag)
		}
		seen[strings.ToLower(t)] = true
		out = append(out, t)
	}
	if len(out) > MaxTags {
		return nil, Errorf(Invalid, "tags: at most %d tags", MaxTags)
	}
	return out, nil
}

// SplitList splits a comma separated value into its trimmed, non-empty parts.
func SplitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// DecodeTags reads tags given as a JSON list of strings or one comma
// separated string.
func DecodeTags(raw json.RawMessage) ([]string, error) {
	if isNull(raw) {
		return []string{}, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return SplitList(s), nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, Errorf(Invalid, "tags: expected a list of strings or a comma separated string")
	}
	return list, nil
}

// DecodeCommands reads a command list: items are command texts or
// {command, label} objects.
func DecodeCommands(field string, raw json.RawMessage) ([]LocationCommand, error) {
	if isNull(raw) {
		return []LocationCommand{}, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		var one string
		if json.Unmarshal(raw, &one) == nil {
			return []LocationCommand{{Command: one}}, nil
		}
		return nil, Errorf(Invalid, "%s: expected a list of commands ({command, label} or text)", field)
	}
	out := make([]LocationCommand, 0, len(items))
	for i, it := range items {
		var s string
		if json.Unmarshal(it, &s) == nil {
			out = append(out, LocationCommand{Command: s})
			continue
		}
		var c struct {
			Command *string `json:"command"`
			Label   *string `json:"label"`
		}
		if err := json.Unmarshal(it, &c); err != nil || c.Command == nil {
			return nil, Errorf(Invalid, "%s[%d]: expected {command, label} with a command text", field, i)
		}
		lc := LocationCommand{Command: *c.Command}
		if c.Label != nil {
			lc.Label = *c.Label
		}
		out = append(out, lc)
	}
	return out, nil
}

// NormalizeCommands trims commands, drops empty ones and checks the limits.
func NormalizeCommands(field string, cmds []LocationCommand) ([]LocationCommand, error) {
	out := make([]LocationCommand, 0, len(cmds))
	for i, c := range cmds {
		c.Command = strings.TrimSpace(c.Command)
		c.Label = CollapseSpace(c.Label)
		if c.Command == "" {
			continue
		}
		if len(c.Command) > MaxCommand {
			return nil, Errorf(Invalid, "%s[%d]: command longer than %d characters", field, i, MaxCommand)
		}
		if len(c.Label) > MaxCommandLabel {
			return nil, Errorf(Invalid, "%s[%d]: label longer than %d characters", field, i, MaxCommandLabel)
		}
		out = append(out, c)
	}
	if len(out) > MaxCommands {
		return nil, Errorf(Invalid, "%s: at most %d commands; each takes the owner to one place", field, MaxCommands)
	}
	return out, nil
}

// DecodeLocation reads a location: an object with the known keys (unknown
// keys move into extra) or a bare command text.
func DecodeLocation(raw json.RawMessage) (Location, error) {
	var loc Location
	var s string
	if json.Unmarshal(raw, &s) == nil {
		loc.Commands = []LocationCommand{{Command: s}}
		return loc, loc.Normalize()
	}
	var m map[string]json.RawMessage
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		return loc, Errorf(Invalid, "location: expected an object like {\"command\": \"/goto 1 2 3\", \"place\": \"Harbor\"} or a command text")
	}
	var err error
	num := func(key string) *float64 {
		r, ok := m[key]
		delete(m, key)
		if !ok || isNull(r) || err != nil {
			return nil
		}
		var f float64
		if f, err = decodeNumber("location."+key, r); err != nil {
			return nil
		}
		return &f
	}
	text := func(key string) string {
		r, ok := m[key]
		delete(m, key)
		if !ok || isNull(r) || err != nil {
			return ""
		}
		var v string
		if v, err = decodeString("location."+key, r, MaxPlaceText); err != nil {
			return ""
		}
		return v
	}
	loc.X, loc.Y, loc.Z, loc.Yaw, loc.Pitch = num("x"), num("y"), num("z"), num("yaw"), num("pitch")
	loc.Place, loc.Time, loc.Weather = text("place"), text("time"), text("weather")
	if r, ok := m["action"]; ok && err == nil && !isNull(r) {
		loc.Action, err = decodeString("location.action", r, MaxCommand)
	}
	delete(m, "action")
	if err != nil {
		return loc, err
	}
	if r, ok := m["seed"]; ok {
		if loc.Seed, err = decodeOptInt("location.seed", r); err != nil {
			return loc, err
		}
		delete(m, "seed")
	}
	if r, ok := m["commands"]; ok {
		if loc.Commands, err = DecodeCommands("location.commands", r); err != nil {
			return loc, err
		}
		delete(m, "commands")
	}
	if r, ok := m["command"]; ok {
		cmd, err := decodeString("location.command", r, MaxCommand)
		if err != nil && !isNull(r) {
			return loc, err
		}
		if len(loc.Commands) == 0 && strings.TrimSpace(cmd) != "" {
			loc.Commands = []LocationCommand{{Command: cmd}}
		}
		delete(m, "command")
	}
	if r, ok := m["extra"]; ok {
		var extra map[string]any
		if err := json.Unmarshal(r, &extra); err != nil && !isNull(r) {
			return loc, Errorf(Invalid, "location.extra: expected an object")
		}
		loc.Extra = extra
		delete(m, "extra")
	}
	for k, r := range m {
		var v any
		if err := json.Unmarshal(r, &v); err != nil {
			return loc, Errorf(Invalid, "location.%s: not valid JSON", k)
		}
		if loc.Extra == nil {
			loc.Extra = map[string]any{}
		}
		loc.Extra[k] = v
	}
	return loc, loc.Normalize()
}

// Normalize checks the commands and keeps Command equal to the first one.
func (l *Location) Normalize() error {
	if len(l.Commands) == 0 && strings.TrimSpace(l.Command) != "" {
		l.Commands = []LocationCommand{{Command: l.Command}}
	}
	cmds, err := NormalizeCommands("location.commands", l.Commands)
	if err != nil {
		return err
	}
	l.Commands = cmds
	l.SyncCommand()
	l.Place, l.Time, l.Weather = strings.TrimSpace(l.Place), strings.TrimSpace(l.Time), strings.TrimSpace(l.Weather)
	l.Action = strings.TrimSpace(l.Action)
	if len(l.Extra) == 0 {
		l.Extra = nil
	}
	return nil
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func decodeString(field string, raw json.RawMessage, limit int) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		if isNull(raw) {
			return "", nil
		}
		return "", Errorf(Invalid, "%s: expected a string", field)
	}
	if len(s) > limit {
		return "", Errorf(Invalid, "%s: longer than %d characters", field, limit)
	}
	return s, nil
}

func decodeNumber(field string, raw json.RawMessage) (float64, error) {
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return 0, Errorf(Invalid, "%s: expected a number", field)
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, Errorf(Invalid, "%s: expected a number", field)
	}
	return f, nil
}

// decodeOptInt reads an integer, a numeric string, or null/"" (nil).
func decodeOptInt(field string, raw json.RawMessage) (*int64, error) {
	if isNull(raw) {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		s = strings.TrimSpace(s)
		if s == "" || strings.EqualFold(s, "none") {
			return nil, nil
		}
		raw = json.RawMessage(s)
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err != nil {
		return nil, Errorf(Invalid, "%s: expected an integer", field)
	}
	v, err := strconv.ParseInt(string(n), 10, 64)
	if err != nil {
		return nil, Errorf(Invalid, "%s: %s is not an integer", field, n)
	}
	return &v, nil
}

// DecodeOptInt reads an optional integer member: a number, a numeric string,
// or null, "" and "none" for no value.
func DecodeOptInt(field string, raw json.RawMessage) (*int64, error) { return decodeOptInt(field, raw) }

// DecodeString reads a string member, refusing other types and text over limit.
func DecodeString(field string, raw json.RawMessage, limit int) (string, error) {
	return decodeString(field, raw, limit)
}
