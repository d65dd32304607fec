package desk

import (
	"strings"
)

// HandoffSections are the sections of a project handoff, in their order.
var HandoffSections = []string{"State", "Where work stopped", "Verified", "Next step", "Traps"}

// Handoff is one version of a project's handoff: where work stopped and what
// comes next, for the next session to read. Version 0 means none yet.
type Handoff struct {
	Project      string            `json:"project"`
	Version      int               `json:"version"`
	Versions     int               `json:"versions"`
	Markdown     string            `json:"markdown"`
	Author       string            `json:"author"`
	Note         string            `json:"note"`
	CreatedAt    string            `json:"created_at"`
	Sections     map[string]string `json:"sections"`
	SectionOrder []string          `json:"section_order"`
}

// HandoffVersion describes one saved version.
type HandoffVersion struct {
	Version   int    `json:"version"`
	Author    string `json:"author"`
	Note      string `json:"note"`
	CreatedAt string `json:"created_at"`
	Size      int    `json:"size"`
}

// CanonicalSection maps a section name as people and agents write it ("next",
// "stopped", "where work stopped", "TRAPS") to its canonical name.
func CanonicalSection(name string) (string, error) {
	key := strings.ToLower(strings.Join(strings.Fields(name), ""))
	key = strings.TrimLeft(key, "#")
	for _, s := range HandoffSections {
		if key == strings.ToLower(strings.ReplaceAll(s, " ", "")) {
			return s, nil
		}
	}
	short := map[string]string{
		"state": "State", "stopped": "Where work stopped", "where": "Where work stopped",
		"verified": "Verified", "next": "Next step", "nextsteps": "Next step", "trap": "Traps", "traps": "Traps",
	}
	if s, ok := short[key]; ok {
		return s, nil
	}
	return "", Errorf(Invalid, "section: %q is not a handoff section; use one of %s", name, strings.Join(HandoffSections, ", "))
}

// section is one "## " section of a markdown document.
type section struct {
	heading string // as written, "" for the text before the first heading
	body    string
}

func splitSections(md string) []section {
	var out []section
	cur := section{}
	var b strings.Builder
	flush := func() {
		cur.body = strings.Trim(b.String(), "\n")
		if cur.heading != "" || strings.TrimSpace(cur.body) != "" {
			out = append(out, cur)
		}
		b.Reset()
	}
	inFence := false
	for _, line := range strings.Split(strings.ReplaceAll(md, "\r\n", "\n"), "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			inFence = !inFence
		}
		if !inFence && strings.HasPrefix(line, "## ") {
			flush()
			cur = section{heading: strings.TrimSpace(line[3:])}
			continue
		}
		b.WriteString(line)
		b.WriteByte('\n')
	}
	flush()
	return out
}

// HandoffSectionMap returns the body of every canonical section the
// document has (the five names as keys; missing sections are empty).
func HandoffSectionMap(md string) map[string]string {
	m := make(map[string]string, len(HandoffSections))
	for _, s := range HandoffSections {
		m[s] = ""
	}
	for _, sec := range splitSections(md) {
		if name, err := CanonicalSection(sec.heading); err == nil && sec.heading != "" {
			m[name] = sec.body
		}
	}
	return m
}

// ReplaceHandoffSection returns md with section's body replaced by text, or
// with the section inserted where the canonical order puts it.
func ReplaceHandoffSection(md, name, text string) (string, error) {
	name, err := CanonicalSection(name)
	if err != nil {
		return "", err
	}
	text = strings.Trim(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	secs := splitSections(md)
	rank := func(h string) int {
		if c, err := CanonicalSection(h); err == nil && h != "" {
			for i, s := range HandoffSections {
				if s == c {
					return i
				}
			}
		}
		return -1
	}
	want := rank(name)
	replaced := false
	for i := range secs {
		if secs[i].heading != "" && rank(secs[i].heading) == want {
			secs[i].body = text
			replaced = true
			break
		}
	}
	if !replaced {
		pos := len(secs)
		for i, s := range secs {
			if r := rank(s.heading); r > want {
				pos = i
				break
			}
		}
		secs = append(secs, section{})
		copy(secs[pos+1:], secs[pos:])
		secs[pos] = section{heading: name, body: text}
	}
	var b strings.Builder
	for i, s := range secs {
		if i > 0 {
			b.WriteString("\n")
		}
		if s.heading != "" {
			b.WriteString("## " + s.heading + "\n\n")
		}
		if s.body != "" {
			b.WriteString(s.body + "\n")
		}
	}
	return b.String(), nil
}
