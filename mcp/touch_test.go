package mcp_test

import (
	"context"
	"testing"
	"time"

	"desk"
)

// TestWritesLinkTheSessionToTheIssue checks that a write tool records which
// issue the agent's session worked on, once per issue however many calls.
func TestWritesLinkTheSessionToTheIssue(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	start, _ := f.db.LastSeq(ctx)
	cs := f.client("claude-code", "CLAUDE_CODE_SESSION_ID=s-1a2b")
	var created struct{ ID string }
	ok(t, cs, "create_issue", map[string]any{"title": "Round the lava tips", "commands": []any{"/goto 1 2 3"}}, &created)
	ok(t, cs, "comment", map[string]any{"id": created.ID, "text": "first try"}, nil)
	ok(t, cs, "comment", map[string]any{"id": created.ID, "text": "second try"}, nil)
	cs.Close() // the server writes its links before it exits

	var touches []*desk.Change
	deadline := time.Now().Add(5 * time.Second)
	for len(touches) == 0 && time.Now().Before(deadline) {
		cs, err := f.db.Changes(ctx, desk.ChangeFilter{After: start})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cs {
			if c.Type == desk.ChangeAgent && c.Action == "touched" {
				touches = append(touches, c)
			}
		}
		if len(touches) == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
	if len(touches) != 1 || touches[0].Issue == nil || *touches[0].Issue != created.ID || touches[0].Project != "mygame" {
		t.Fatalf("touches = %+v, want one for %s", touches, created.ID)
	}
}
