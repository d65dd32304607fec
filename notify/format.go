package notify

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"desk"
)

// Limits of what a prompt hook adds: it runs before every prompt, so its
// block stays short enough to read at a glance.
const (
	// MaxBlockLines is the most lines a prompt block has, header included.
	MaxBlockLines = 12
	// MaxBlockEvents is the most events a block lists; the line after them
	// says how many more there were.
	MaxBlockEvents = MaxBlockLines - 2
)

// Ago says how long before now a feed time was, the way people say it.
func Ago(at string, now time.Time) string {
	t, err := desk.ParseTime(at)
	if err != nil {
		return "earlier"
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return strconv.Itoa(int(d/time.Minute)) + " min ago"
	case d < 48*time.Hour:
		return strconv.Itoa(int(d/time.Hour)) + " h ago"
	}
	return strconv.Itoa(int(d/(24*time.Hour))) + " days ago"
}

// Snippet folds text onto one line and cuts it to at most n characters,
// marking the cut.
func Snippet(text string, n int) string {
	text = strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(text) <= n {
		return text
	}
	r := []rune(text)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

// verdictWord names a verdict the way the owner's buttons do.
func verdictWord(v string) string {
	if v == desk.StatusPassed {
		return "PASSED"
	}
	return "STILL BROKEN"
}

// Line words one owner event on one line, issue id first: what an agent
// needs to decide whether to look closer.
func Line(e *desk.OwnerEvent, now time.Time) string {
	who := e.Actor
	if who == "" {
		who = desk.OwnerActor
	}
	ago := Ago(e.At, now)
	quote := func(n int) string {
		if strings.TrimSpace(e.Text) == "" {
			return ""
		}
		return `: "` + Snippet(e.Text, n) + `"`
	}
	switch e.Kind {
	case desk.EventComment:
		return fmt.Sprintf("%s %s commented (%s)%s", e.Issue, who, ago, quote(140))
	case desk.EventVerdict:
		return fmt.Sprintf("%s %s says %s (%s)%s", e.Issue, who, verdictWord(e.Verdict), ago, quote(140))
	case desk.EventReport:
		from := "the owner"
		if e.Source == desk.SourceGame {
			from = "the game"
		}
		return fmt.Sprintf("%s new report from %s (%s): %s", e.Issue, from, ago, Snippet(e.Title, 100))
	case desk.EventStatus:
		return fmt.Sprintf("%s %s moved it from %s to %s (%s): %s", e.Issue, who, e.From, e.To, ago, Snippet(e.Title, 80))
	case desk.EventPlan:
		var what []string
		if e.To != "" {
			what = append(what, fmt.Sprintf("marked step %d %s", e.Step, e.To))
		}
		if strings.TrimSpace(e.Text) != "" {
			what = append(what, fmt.Sprintf("noted on step %d", e.Step))
		}
		if len(what) == 0 {
			what = append(what, fmt.Sprintf("edited step %d", e.Step))
		}
		return fmt.Sprintf("%s %s %s (%s)%s", e.Issue, who, strings.Join(what, " and "), ago, quote(140))
	case desk.EventMerged:
		return fmt.Sprintf("%s %s merged %s into it (%s)", e.Issue, who, e.Other, ago)
	case desk.EventParent:
		if e.Other == "" {
			return fmt.Sprintf("%s %s took it out of its parent (%s)", e.Issue, who, ago)
		}
		return fmt.Sprintf("%s %s made it part of %s (%s)", e.Issue, who, e.Other, ago)
	}
	return fmt.Sprintf("%s %s: %s (%s)", e.Issue, who, e.Kind, ago)
}

// Block is what a prompt hook adds before the agent's next turn: a header,
// the events newest first, and how many more there were, in at most
// MaxBlockLines lines. It is "" when there is nothing to tell.
func Block(projectName string, ev *desk.OwnerEvents, now time.Time) string {
	if ev == nil || len(ev.Events) == 0 {
		return ""
	}
	events, more := ev.Events, ev.More
	if len(events) > MaxBlockEvents {
		more += len(events) - MaxBlockEvents
		events = events[:MaxBlockEvents]
	}
	var b strings.Builder
	fmt.Fprintf(&b, "desk (%s): the owner's activity since this session last looked, newest first:", projectName)
	for _, e := range events {
		b.WriteString("\n- ")
		b.WriteString(Line(e, now))
	}
	if more > 0 {
		oldest := events[len(events)-1].At
		fmt.Fprintf(&b, "\n- … and %d more: list_issues with since=%s shows them", more, oldest)
	}
	return b.String()
}

// ChannelMessage is one owner event as the live channel pushes it: the
// text the session sees and the attributes of the <channel> tag around it.
type ChannelMessage struct {
	Content string            `json:"content"`
	Meta    map[string]string `json:"meta"`
}

// Channel words one owner event for the live channel: its line, the whole
// text when the line had to cut it, and how to open the issue.
func Channel(e *desk.OwnerEvent, now time.Time) ChannelMessage {
	var b strings.Builder
	b.WriteString(Line(e, now))
	if text := strings.TrimSpace(e.Text); utf8.RuneCountInString(text) > 140 {
		b.WriteString("\n\nFull text: ")
		b.WriteString(Snippet(text, 1500))
	}
	fmt.Fprintf(&b, "\n\nRead the whole issue with the desk get_issue tool (id %s).", e.Issue)
	return ChannelMessage{
		Content: b.String(),
		Meta:    map[string]string{"issue": e.Issue, "event": e.Kind, "project": e.Project},
	}
}
