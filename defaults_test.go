package desk_test

import (
	"testing"

	"desk"
)

func TestNewIssueDefaultsFollowTheDataModel(t *testing.T) {
	placed := desk.Location{Commands: []desk.LocationCommand{{Command: "/goto 1 2 3"}}}
	for _, c := range []struct {
		rule           desk.IssueDefaults
		kind, source   string
		author         string
		loc            desk.Location
		status, origin string
	}{
		{desk.DefaultIssue, "bug", "owner", "owner", desk.Location{}, "reported", "owner"},
		{desk.DefaultIssue, "idea", "agent", "claude", desk.Location{}, "reported", "agent"},
		{desk.DefaultIssue, "check", "owner", "owner", desk.Location{}, "to_check", "owner"},
		{desk.DefaultIssue, "check", "agent", "claude", placed, "to_check", "agent"},
		{desk.DefaultIssue, "check", "agent", "claude", desk.Location{}, "auto_check", "agent"},
		{desk.DefaultIssue, "check", "game", "game", desk.Location{}, "reported", "game"},
		{desk.AgentIssue, "check", "agent", "claude", placed, "to_check", "agent"},
		{desk.AgentIssue, "check", "agent", "claude", desk.Location{}, "auto_check", "agent"},
		{desk.AgentIssue, "task", "agent", "claude", desk.Location{}, "open", "agent"},
	} {
		is := &desk.Issue{ID: "MG-1", Kind: c.kind, Source: c.source, Location: c.loc}
		if got := c.rule.StatusFor(is, &desk.Project{}, c.author); got != c.status {
			t.Errorf("%s from %s by %s: status %s, want %s", c.kind, c.source, c.author, got, c.status)
		}
		if got := c.rule.SourceFor(c.author); got != c.origin {
			t.Errorf("by %s: source %s, want %s", c.author, got, c.origin)
		}
	}
	if got := desk.DefaultIssue.StatusHelp(); got[:len("reported; to_check for a check")] != "reported; to_check for a check" {
		t.Errorf("StatusHelp: %q", got)
	}
}
