package notify

import (
	"fmt"
	"strings"

	"desk"
)

// plural words a count: "1 new report", "3 new reports".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// SummaryLine is the one line a session starts with: the project's new
// reports, failed checks, what waits for the owner and what waits for an
// agent's own verification.
func SummaryLine(p *desk.Project) string {
	c := p.Counts
	reported, failed := c[desk.StatusReported], c[desk.StatusFailed]
	owner, agent := c[desk.StatusToCheck], c[desk.StatusAutoCheck]
	if reported+failed+owner+agent == 0 {
		return fmt.Sprintf("desk (%s): no new reports, no failed checks, nothing waiting for the owner or for agent verification", p.Name)
	}
	return fmt.Sprintf("desk (%s): %s, %s, %d waiting for the owner, %d waiting for agent verification",
		p.Name, plural(reported, "new report", "new reports"), plural(failed, "failed check", "failed checks"), owner, agent)
}

// maxSection bounds each handoff section quoted at session start.
const maxSection = 600

// SessionContext is the context a session starts with: the summary line
// and what to do first, the current build where the project publishes
// builds, the handoff's Next step and Traps, and who hears the owner when
// it is not this session.
func SessionContext(b *desk.Brief, a Audience) string {
	p := b.Project
	var lines []string
	line := SummaryLine(p)
	if a.Delegated {
		lines = append(lines, line+". This session runs a delegated job: work from your brief; the session that started it deals with the owner.")
		return strings.Join(lines, "\n")
	}
	lines = append(lines, line+". Before you start, read the handoff (get_handoff) and the failed and reported issues (list_issues); write a plan (set_plan) before you change code.")
	if p.BuildsEnabled {
		lines = append(lines, buildLine(p.Build))
	}
	lines = append(lines, handoffLines(b.Handoff)...)
	if lead := a.Lead; lead != "" && lead != a.Client {
		lines = append(lines, fmt.Sprintf("The owner's new activity on this project goes to %s sessions; this session is not told about it as it happens.", lead))
	}
	return strings.Join(lines, "\n")
}

func buildLine(bd *desk.Build) string {
	if bd == nil {
		return "Build: none is current, so nothing can go to to_check until the next build is published (set_build)."
	}
	var extra []string
	if bd.Commit != "" {
		extra = append(extra, "commit "+bd.Commit)
	}
	if bd.BuiltAt != "" {
		extra = append(extra, "built "+bd.BuiltAt)
	}
	s := fmt.Sprintf("Build: %s at %s", bd.Label, bd.Path)
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s + " is current; issues handed to the owner get it stamped. Publish each new build with set_build rather than pasting its path into comments."
}

func handoffLines(h *desk.Handoff) []string {
	if h == nil || h.Version == 0 {
		return []string{"Handoff: none written yet for this project; write one with set_handoff before you stop."}
	}
	when := h.CreatedAt
	if len(when) >= 16 {
		when = strings.Replace(when[:16], "T", " ", 1) + " UTC"
	}
	lines := []string{fmt.Sprintf("Handoff v%d (%s, %s):", h.Version, h.Author, when)}
	for _, name := range []string{"Next step", "Traps"} {
		if text := strings.TrimSpace(h.Sections[name]); text != "" {
			lines = append(lines, "- "+name+": "+Snippet(text, maxSection))
		}
	}
	if len(lines) == 1 {
		lines = append(lines, "- (no Next step or Traps written; get_handoff shows the rest)")
	}
	return lines
}
