package http_test

import (
	"testing"
)

// A tool hook that arrives after SessionEnd, with no new SessionStart, is
// taken as late: the session the owner sees stays ended.
func TestToolHookAfterSessionEndLeavesTheSessionEnded(t *testing.T) {
	d := newAgentDesk(t)
	for _, p := range []string{
		`{"session_id":"s","hook_event_name":"SessionStart","cwd":"/src","source":"startup"}`,
		`{"session_id":"s","hook_event_name":"UserPromptSubmit","cwd":"/src","prompt":"go"}`,
		`{"session_id":"s","hook_event_name":"SessionEnd","cwd":"/src","reason":"exit"}`,
	} {
		d.mustHook("claude", p)
	}
	m := d.mustHook("claude", `{"session_id":"s","hook_event_name":"PreToolUse","cwd":"/src","tool_name":"Bash","tool_input":{"command":"make"}}`)
	if m["late"] != true || m["state"] != "ended" || str(m["note"]) == "" {
		t.Errorf("hook answer = %v, want late, ended, with a note", m)
	}
	s := d.want(200, "GET", "/api/agents/s", "")
	events := list(s["events"])
	if str(s["state"]) != "ended" || s["activity"] != nil || len(events) != 4 || obj(events[3])["late"] != true {
		t.Fatalf("session = %v", s)
	}
	// A new start is what brings it back.
	d.mustHook("claude", `{"session_id":"s","hook_event_name":"SessionStart","cwd":"/src","source":"resume"}`)
	if s := d.want(200, "GET", "/api/agents/s", ""); str(s["state"]) != "waiting_input" {
		t.Fatalf("after a new start: %v", s["state"])
	}
}

// A PreToolUse that names no tool is taken, not refused: the session works
// on a tool it does not name, where before it stayed at its prompt.
func TestToolHookWithoutAToolNameShowsAnUnnamedTool(t *testing.T) {
	d := newAgentDesk(t)
	d.mustHook("claude", `{"session_id":"s","hook_event_name":"SessionStart","cwd":"/src","source":"startup"}`)
	m := d.mustHook("claude", `{"session_id":"s","hook_event_name":"PreToolUse","cwd":"/src"}`)
	if m["state"] != "working" || m["late"] != false {
		t.Errorf("hook answer = %v", m)
	}
	a := obj(d.want(200, "GET", "/api/agents/s", "")["activity"])
	if str(a["kind"]) != "tool" || str(a["label"]) != "Using a tool" || a["tool"] != nil {
		t.Fatalf("activity = %v, want an unnamed tool", a)
	}
}
