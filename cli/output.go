package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"desk"
)

// printJSON writes v as JSON on one line, the form scripts read (pipe it
// through jq for people). A value that marshals itself is written as it
// marshals: the encoder would only check and copy its bytes again, which
// costs a large list several milliseconds.
func printJSON(w io.Writer, v any) error {
	if m, ok := v.(json.Marshaler); ok {
		b, err := m.MarshalJSON()
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// ago renders a stored time as a short age ("3 min ago"), or the date for
// anything older than a week.
func ago(ts string, now time.Time) string {
	t, err := time.Parse(desk.TimeLayout, ts)
	if err != nil {
		return ts
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%d min ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%d h ago", int(d.Hours()))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%d d ago", int(d.Hours()/24))
	}
	return t.Format("2006-01-02")
}

// clip shortens s to n runes on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// indent prefixes every line of s.
func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		lines[i] = prefix + l
	}
	return strings.Join(lines, "\n")
}

// stepMark is a plan step's checkbox as a markdown task list writes it.
func stepMark(state string) string {
	switch state {
	case desk.StepDone:
		return "[x]"
	case desk.StepDoing:
		return "[~]"
	case desk.StepDropped:
		return "[-]"
	}
	return "[ ]"
}

// issueLine is one issue in a list: id, status, priority, kind, title and
// what else fits on the line.
func issueLine(is *desk.Issue) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-8s %-11s %s %-5s %s", is.ID, is.Status, is.Priority, is.Kind, clip(is.Title, 90))
	var extra []string
	if is.Area != "" {
		extra = append(extra, "@"+is.Area)
	}
	if is.Size != "" {
		extra = append(extra, "size "+is.Size)
	}
	if is.Progress.Total > 0 {
		extra = append(extra, fmt.Sprintf("plan %d/%d", is.Progress.Done, is.Progress.Total))
	}
	if is.ChildCount > 0 {
		extra = append(extra, fmt.Sprintf("children %d/%d", is.ChildDone, is.ChildCount))
	}
	if is.Parent != nil {
		extra = append(extra, "part of "+*is.Parent)
	}
	if is.MergedInto != nil {
		extra = append(extra, "merged into "+*is.MergedInto)
	}
	if is.Milestone != "" {
		extra = append(extra, "["+is.Milestone+"]")
	}
	if len(extra) > 0 {
		b.WriteString("  (" + strings.Join(extra, ", ") + ")")
	}
	return b.String()
}
