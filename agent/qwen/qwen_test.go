package qwen_test

import (
	"testing"

	"desk/agent"
	"desk/agent/agenttest"
	_ "desk/agent/qwen"
)

func TestQwenHookMapping(t *testing.T) {
	const base = `"session_id":"9b1f0c2e-0000-4000-8000-00000000abcd","cwd":"/q","transcript_path":"/t"`
	e := func(kind agent.Kind, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: "9b1f0c2e-0000-4000-8000-00000000abcd", Kind: kind, Cwd: "/q", Transcript: "/t"}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	agenttest.Run(t, "qwen", []agenttest.Case{
		{Name: "claude-style tool", Payload: `{` + base + `,"hook_event_name":"PreToolUse","tool_name":"run_shell_command","tool_input":{"command":"pytest"},"tool_use_id":"q1"}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "run_shell_command", "q1", "pytest" }))},
		{Name: "gemini-style tool", Payload: `{` + base + `,"hook_event_name":"BeforeTool","tool_name":"write_file","tool_input":{"file_path":"/q/app.py"}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.Input = "write_file", "/q/app.py" }))},
		{Name: "permission", Payload: `{` + base + `,"hook_event_name":"PermissionRequest","tool_name":"run_shell_command","tool_input":{"command":"rm x"}}`,
			Want: agenttest.Events(e(agent.KindPermissionRequest, func(v *agent.Event) { v.Tool, v.Input = "run_shell_command", "rm x" }))},
		{Name: "resume", Payload: `{` + base + `,"hook_event_name":"SessionStart","source":"resume"}`,
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason = "resume" }))},
		{Name: "unknown", Payload: `{` + base + `,"hook_event_name":"Nope"}`, Err: `qwen: unknown event "Nope"`},
	})
}
