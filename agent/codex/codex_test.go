package codex_test

import (
	"reflect"
	"testing"

	"desk/agent"
	"desk/agent/agenttest"
	"desk/agent/codex"
)

func TestCodexHookMapping(t *testing.T) {
	const base = `"session_id":"c1","turn_id":"t1","transcript_path":"/h/.codex/sessions/r.jsonl","cwd":"/p","model":"gpt-5-codex","permission_mode":"bypassPermissions"`
	e := func(kind agent.Kind, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: "c1", Kind: kind, Cwd: "/p", Transcript: "/h/.codex/sessions/r.jsonl", Model: "gpt-5-codex", PermissionMode: "bypassPermissions"}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	agenttest.Run(t, "codex", []agenttest.Case{
		{Name: "start", Payload: `{` + base + `,"hook_event_name":"SessionStart","source":"startup"}`,
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason = "startup" }))},
		{Name: "shell", Payload: `{` + base + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"echo from-codex-shell"},"tool_use_id":"call_1"}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "Bash", "call_1", "echo from-codex-shell" }))},
		{Name: "shell output as a string", Payload: `{` + base + `,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"x"},"tool_response":"from-codex-shell\n","tool_use_id":"call_1"}`,
			Want: agenttest.Events(e(agent.KindToolEnd, func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "Bash", "call_1", "x" }))},
		{Name: "end", Payload: `{` + base + `,"hook_event_name":"SessionEnd","reason":"other"}`,
			Want: agenttest.Events(e(agent.KindSessionEnd, func(v *agent.Event) { v.Reason = "other" }))},
		{Name: "unknown", Payload: `{` + base + `,"hook_event_name":"TurnStart"}`, Err: `codex: unknown event "TurnStart"`},
	})
}

func TestCodexRolloutRecords(t *testing.T) {
	ts := agent.PayloadTime([]byte(`"2026-11-30T12:00:00Z"`))
	const id = "01a22c56-d2b2-78b0-9829-98271ef98ba1"
	rec := func(typ, payload string) string {
		return `{"timestamp":"2026-11-30T12:00:00Z","type":"` + typ + `","payload":` + payload + `}`
	}
	e := func(kind agent.Kind, name string, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: id, Cwd: "/p", Time: ts, Kind: kind, Name: name}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	cases := []struct {
		name, line string
		want       []agent.Event
	}{
		{"approval request", rec("event_msg", `{"type":"exec_approval_request","call_id":"c9","command":["bash","-lc","make deploy"],"cwd":"/p"}`),
			[]agent.Event{e(agent.KindPermissionRequest, "event_msg/exec_approval_request", func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "shell", "c9", "make deploy" })}},
		{"shell with argv", rec("response_item", `{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"ls -la\"]}","call_id":"c1"}`),
			[]agent.Event{e(agent.KindToolStart, "response_item/function_call", func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "shell", "c1", "ls -la" })}},
		{"local shell", rec("response_item", `{"type":"local_shell_call","call_id":"c2","status":"in_progress","action":{"type":"exec","command":["go","build"]}}`),
			[]agent.Event{e(agent.KindToolStart, "response_item/local_shell_call", func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "local_shell", "c2", "go build" })}},
		{"mcp through a namespace", rec("response_item", `{"type":"function_call","namespace":"mcp__desk","name":"create_issue","arguments":"{}","call_id":"c3"}`),
			[]agent.Event{e(agent.KindToolStart, "response_item/function_call", func(v *agent.Event) { v.Tool, v.ToolID = "mcp__desk__create_issue", "c3" })}},
		{"error", rec("event_msg", `{"type":"error","message":"stream disconnected"}`),
			[]agent.Event{e(agent.KindStopFailed, "event_msg/error", func(v *agent.Event) { v.Message = "stream disconnected" })}},
		{"model message copy", rec("response_item", `{"type":"message","role":"assistant","content":[]}`), nil},
		{"token count", rec("event_msg", `{"type":"token_count","info":null}`), nil},
		{"unknown record", rec("compacted", `{"message":"..."}`), nil},
	}
	for _, c := range cases {
		p := codex.NewTranscriptParser("/h/.codex/sessions/2026/11/30/rollout-2026-11-30T12-03-37-" + id + ".jsonl")
		p.Parse([]byte(rec("turn_context", `{"cwd":"/p","approval_policy":"on-request"}`)))
		got, err := p.Parse([]byte(c.line))
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s:\n got %+v\nwant %+v", c.name, got, c.want)
		}
	}
}

func TestCodexRolloutAnnouncesThePolicyOnlyWhenItChanges(t *testing.T) {
	p := codex.NewTranscriptParser("rollout-x.jsonl")
	var modes []string
	for _, policy := range []string{"on-request", "on-request", "never", "never"} {
		evs, _ := p.Parse([]byte(`{"type":"turn_context","payload":{"cwd":"/p","approval_policy":"` + policy + `"}}`))
		for _, e := range evs {
			modes = append(modes, e.PermissionMode)
		}
	}
	if want := []string{"on-request", "never"}; !reflect.DeepEqual(modes, want) {
		t.Fatalf("modes = %v, want %v", modes, want)
	}
	if _, err := p.Parse([]byte(`not json`)); err == nil {
		t.Fatal("a broken line parsed")
	}
}
