package desk

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode/utf8"
)

// Lists are the hottest answers desk gives (every view, every agent's
// list_issues), so issues are written to JSON by hand rather than through
// reflection. The output is byte for byte what encoding/json writes for the
// same struct with HTML escaping off (a test holds it to that).

// AppendJSON appends the issue as JSON to b; summary leaves out the body
// and the plan's steps.
func (is *Issue) AppendJSON(b []byte, summary bool) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, is.ID)
	b = append(b, `,"number":`...)
	b = strconv.AppendInt(b, int64(is.Number), 10)
	b = appendField(b, "project", is.Project)
	b = appendField(b, "title", is.Title)
	if !summary {
		b = appendField(b, "body", is.Body)
	}
	b = appendField(b, "kind", is.Kind)
	b = appendField(b, "status", is.Status)
	b = appendField(b, "priority", is.Priority)
	b = appendField(b, "area", is.Area)
	b = append(b, `,"tags":`...)
	if is.Tags == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, t := range is.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendString(b, t)
		}
		b = append(b, ']')
	}
	b = append(b, `,"location":`...)
	b = is.Location.AppendJSON(b)
	b = appendField(b, "source", is.Source)
	b = appendField(b, "external_ref", is.ExternalRef)
	b = appendField(b, "size", is.Size)
	b = appendField(b, "milestone", is.Milestone)
	b = append(b, `,"build":`...)
	b = is.Build.appendJSON(b)
	b = appendField(b, "created_at", is.CreatedAt)
	b = appendField(b, "updated_at", is.UpdatedAt)
	b = appendOptField(b, "closed_at", is.ClosedAt)
	if !summary {
		b = append(b, `,"plan":`...)
		b = is.Plan.appendJSON(b)
	}
	b = appendProgress(b, is.Progress)
	b = appendOptField(b, "parent", is.Parent)
	b = appendOptField(b, "merged_into", is.MergedInto)
	b = appendIntField(b, "child_count", is.ChildCount)
	b = appendIntField(b, "child_done", is.ChildDone)
	b = appendIntField(b, "comment_count", is.CommentCount)
	b = appendIntField(b, "attachment_count", is.AttachmentCount)
	b = appendOptField(b, "last_verdict", is.LastVerdict)
	b = append(b, `,"claim":`...)
	b = is.Claim.appendJSON(b)
	if is.Match != nil {
		b = append(b, `,"match":`...)
		b = is.Match.AppendJSON(b)
	}
	return append(b, '}')
}

// appendJSON appends the claim as JSON, null for none.
func (c *Claim) appendJSON(b []byte) []byte {
	if c == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"issue":`...)
	b = appendString(b, c.Issue)
	b = appendField(b, "holder", c.Holder)
	b = appendField(b, "claimed_at", c.ClaimedAt)
	b = appendField(b, "expires_at", c.ExpiresAt)
	return append(b, '}')
}

// AppendWithClaim appends an issue written without a claim (encoded, as
// AppendJSON wrote it for a nil Claim and no match) with claim c in its
// place: a store keeps what it wrote of an issue, and claims come and go
// (and expire) without a new version of the issue.
func AppendWithClaim(b, encoded []byte, c *Claim) []byte {
	const none = `"claim":null}`
	if c == nil || !bytes.HasSuffix(encoded, []byte(none)) {
		return append(b, encoded...)
	}
	b = append(b, encoded[:len(encoded)-len("null}")]...)
	b = c.appendJSON(b)
	return append(b, '}')
}

// AppendJSON appends the match as JSON, as encoding/json writes it.
func (m *Match) AppendJSON(b []byte) []byte {
	b = append(b, `{"field":`...)
	b = appendString(b, m.Field)
	b = appendField(b, "excerpt", m.Excerpt)
	return append(b, '}')
}

// AppendWithMatch appends an issue written without a match (encoded, as
// AppendJSON wrote it) with match m added, as AppendJSON writes an issue
// that has it: the match is the last field.
func AppendWithMatch(b, encoded []byte, m *Match) []byte {
	if m == nil || len(encoded) == 0 {
		return append(b, encoded...)
	}
	b = append(b, encoded[:len(encoded)-1]...)
	b = append(b, `,"match":`...)
	b = m.AppendJSON(b)
	return append(b, '}')
}

// AppendJSON appends the location as JSON, as encoding/json writes it.
func (l *Location) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	first := true
	key := func(name string) {
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(b, '"')
		b = append(b, name...)
		b = append(b, `":`...)
	}
	str := func(name, v string) {
		if v != "" {
			key(name)
			b = appendString(b, v)
		}
	}
	num := func(name string, v *float64) {
		if v != nil {
			key(name)
			b = appendFloat(b, *v)
		}
	}
	str("command", l.Command)
	if len(l.Commands) > 0 {
		key("commands")
		b = append(b, '[')
		for i, c := range l.Commands {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"command":`...)
			b = appendString(b, c.Command)
			if c.Label != "" {
				b = appendField(b, "label", c.Label)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if l.Seed != nil {
		key("seed")
		b = strconv.AppendInt(b, *l.Seed, 10)
	}
	num("x", l.X)
	num("y", l.Y)
	num("z", l.Z)
	num("yaw", l.Yaw)
	num("pitch", l.Pitch)
	str("place", l.Place)
	str("time", l.Time)
	str("weather", l.Weather)
	str("action", l.Action)
	if len(l.Extra) > 0 {
		key("extra")
		extra, _ := MarshalNoHTML(l.Extra)
		b = append(b, extra...)
	}
	return append(b, '}')
}

func (p *Plan) appendJSON(b []byte) []byte {
	b = append(b, `{"steps":[`...)
	for i, s := range p.Steps {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"text":`...)
		b = appendString(b, s.Text)
		b = appendField(b, "state", s.State)
		b = appendField(b, "commit", s.Commit)
		b = appendField(b, "note", s.Note)
		b = append(b, '}')
	}
	b = append(b, ']')
	b = appendField(b, "verification", p.Verification)
	b = appendField(b, "updated_at", p.UpdatedAt)
	return append(b, '}')
}

func (r *BuildRef) appendJSON(b []byte) []byte {
	if r == nil {
		return append(b, "null"...)
	}
	b = append(b, `{"number":`...)
	b = strconv.AppendInt(b, int64(r.Number), 10)
	b = appendField(b, "label", r.Label)
	b = appendField(b, "path", r.Path)
	b = appendField(b, "commit", r.Commit)
	b = appendField(b, "built_at", r.BuiltAt)
	b = append(b, `,"local":`...)
	if r.Local == nil {
		b = append(b, "null"...)
	} else {
		local, _ := MarshalNoHTML(r.Local)
		b = append(b, local...)
	}
	return append(b, '}')
}

func appendField(b []byte, name, v string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":`...)
	return appendString(b, v)
}

func appendOptField(b []byte, name string, v *string) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":`...)
	if v == nil {
		return append(b, "null"...)
	}
	return appendString(b, *v)
}

func appendIntField(b []byte, name string, v int) []byte {
	b = append(b, ',', '"')
	b = append(b, name...)
	b = append(b, `":`...)
	return strconv.AppendInt(b, int64(v), 10)
}

// appendFloat writes a number the way encoding/json does.
func appendFloat(b []byte, f float64) []byte {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return append(b, "null"...)
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// Clean up e-09 to e-9, as encoding/json does.
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s to b as a JSON string, escaped as
// encoding/json escapes it but with HTML characters left as they are.
func AppendJSONString(b []byte, s string) []byte { return appendString(b, s) }

// appendString writes s as a JSON string with encoding/json's escapes
// (HTML characters left as they are).
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
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
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// MarshalNoHTML is json.Marshal with <, > and & left as they are, as
// desk writes every answer.
func MarshalNoHTML(v any) ([]byte, error) {
	var buf jsonBuffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf[:len(buf)-1], nil // Encode ends with a newline
}

type jsonBuffer []byte

func (j *jsonBuffer) Write(p []byte) (int, error) {
	*j = append(*j, p...)
	return len(p), nil
}
