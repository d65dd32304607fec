package kimi_test

import (
	"testing"

	"desk/agent"
	"desk/agent/agenttest"
	_ "desk/agent/kimi"
)

func TestKimiHookMapping(t *testing.T) {
	const base = `"session_id":"session_7f3a","session_title":"Fix login","client_type":"kimi_code_cli","cwd":"/k"`
	e := func(kind agent.Kind, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: "session_7f3a", Kind: kind, Cwd: "/k"}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	agenttest.Run(t, "kimi", []agenttest.Case{
		{Name: "start", Payload: `{` + base + `,"hook_event_name":"SessionStart","source":"resume","model":"kimi-k2","profile":"default"}`,
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason, v.Model = "resume", "kimi-k2" }))},
		{Name: "turn", Payload: `{` + base + `,"hook_event_name":"TurnStarted","turn_id":"t","origin_kind":"user","prompt":"go"}`,
			Want: agenttest.Events(e(agent.KindPrompt, nil))},
		{Name: "tool with call id", Payload: `{` + base + `,"hook_event_name":"PreToolUse","tool_name":"Shell","tool_input":{"command":"ls"},"tool_call_id":"tc1"}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "Shell", "tc1", "ls" }))},
		{Name: "tool failure", Payload: `{` + base + `,"hook_event_name":"PostToolUseFailure","tool_name":"Shell","tool_input":{"command":"false"},"error":"exit code 1"}`,
			Want: agenttest.Events(e(agent.KindToolFailed, func(v *agent.Event) { v.Tool, v.Input, v.Message = "Shell", "false", "exit code 1" }))},
		{Name: "permission", Payload: `{` + base + `,"hook_event_name":"PermissionRequest","tool_name":"WriteFile","tool_input":{"path":"/k/a.py"}}`,
			Want: agenttest.Events(e(agent.KindPermissionRequest, func(v *agent.Event) { v.Tool, v.Input = "WriteFile", "/k/a.py" }))},
		{Name: "permission result", Payload: `{` + base + `,"hook_event_name":"PermissionResult","tool_name":"WriteFile"}`,
			Want: agenttest.Events(e(agent.KindPermissionResult, nil))},
		{Name: "sub-agent by name", Payload: `{` + base + `,"hook_event_name":"SubagentStart","agent_name":"coder","prompt":"write tests"}`,
			Want: agenttest.Events(e(agent.KindSubagentStart, func(v *agent.Event) { v.Session, v.Parent, v.Message = "session_7f3a/coder", "session_7f3a", "coder" }))},
		{Name: "failed turn", Payload: `{` + base + `,"hook_event_name":"StopFailure","error_type":"rate_limit","error_message":"slow down"}`,
			Want: agenttest.Events(e(agent.KindStopFailed, func(v *agent.Event) { v.Reason, v.Message = "rate_limit", "slow down" }))},
		{Name: "interrupt", Payload: `{` + base + `,"hook_event_name":"Interrupt","reason":"user"}`,
			Want: agenttest.Events(e(agent.KindInterrupt, nil))},
		{Name: "heartbeat", Payload: `{` + base + `,"hook_event_name":"SessionHeartbeat","uptime_ms":60000}`,
			Want: agenttest.Events(e(agent.KindHeartbeat, nil))},
		{Name: "background task notification", Payload: `{` + base + `,"hook_event_name":"Notification","notification_type":"task.completed","title":"done"}`,
			Want: agenttest.Events(e(agent.KindNotice, func(v *agent.Event) { v.Reason = "task.completed" }))},
		{Name: "archived", Payload: `{` + base + `,"hook_event_name":"SessionEnd","reason":"archive"}`,
			Want: agenttest.Events(e(agent.KindSessionEnd, func(v *agent.Event) { v.Reason = "archive" }))},
		{Name: "unknown", Payload: `{` + base + `,"hook_event_name":"Sleep"}`, Err: `kimi: unknown event "Sleep"`},
	})
}
