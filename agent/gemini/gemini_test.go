package gemini_test

import (
	"testing"
	"time"

	"desk/agent"
	"desk/agent/agenttest"
	_ "desk/agent/gemini"
)

func TestGeminiHookMapping(t *testing.T) {
	const base = `"session_id":"g1","transcript_path":"/h/.gemini/tmp/x/chats/session.json","cwd":"/w","timestamp":"2026-11-30T14:00:00.250Z"`
	when := time.Date(2026, 11, 30, 14, 0, 0, 250e6, time.UTC)
	e := func(kind agent.Kind, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: "g1", Kind: kind, Cwd: "/w", Transcript: "/h/.gemini/tmp/x/chats/session.json", Time: when}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	agenttest.Run(t, "gemini", []agenttest.Case{
		{Name: "start after clear", Payload: `{` + base + `,"hook_event_name":"SessionStart","source":"clear"}`,
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason = "clear" }))},
		{Name: "prompt", Payload: `{` + base + `,"hook_event_name":"BeforeAgent","prompt":"hi"}`,
			Want: agenttest.Events(e(agent.KindPrompt, nil))},
		{Name: "tool", Payload: `{` + base + `,"hook_event_name":"BeforeTool","tool_name":"run_shell_command","tool_input":{"command":"npm test"}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.Input = "run_shell_command", "npm test" }))},
		{Name: "tool done", Payload: `{` + base + `,"hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"absolute_path":"/w/a.ts"},"tool_response":{"llmContent":"...","returnDisplay":"..."}}`,
			Want: agenttest.Events(e(agent.KindToolEnd, func(v *agent.Event) { v.Tool, v.Input = "read_file", "/w/a.ts" }))},
		{Name: "tool error", Payload: `{` + base + `,"hook_event_name":"AfterTool","tool_name":"run_shell_command","tool_input":{"command":"false"},"tool_response":{"llmContent":"","error":{"message":"exit 1"}}}`,
			Want: agenttest.Events(e(agent.KindToolFailed, func(v *agent.Event) { v.Tool, v.Input, v.Message = "run_shell_command", "false", "exit 1" }))},
		{Name: "tool error as text", Payload: `{` + base + `,"hook_event_name":"AfterTool","tool_name":"x","tool_response":{"error":"denied"}}`,
			Want: agenttest.Events(e(agent.KindToolFailed, func(v *agent.Event) { v.Tool, v.Message = "x", "denied" }))},
		{Name: "permission notification", Payload: `{` + base + `,"hook_event_name":"Notification","notification_type":"ToolPermission","message":"Approve?","details":{"tool_name":"run_shell_command","tool_input":{"command":"rm -rf dist"}}}`,
			Want: agenttest.Events(e(agent.KindNotificationPermission, func(v *agent.Event) {
				v.Reason, v.Message, v.Tool, v.Input = "ToolPermission", "Approve?", "run_shell_command", "rm -rf dist"
			}))},
		{Name: "turn end", Payload: `{` + base + `,"hook_event_name":"AfterAgent","prompt":"hi","prompt_response":"done","stop_hook_active":false}`,
			Want: agenttest.Events(e(agent.KindStop, nil))},
		{Name: "compression", Payload: `{` + base + `,"hook_event_name":"PreCompress","trigger":"auto"}`,
			Want: agenttest.Events(e(agent.KindCompact, func(v *agent.Event) { v.Reason = "auto" }))},
		{Name: "model chunk is ignored", Payload: `{` + base + `,"hook_event_name":"AfterModel","llm_response":{}}`},
		{Name: "claude name accepted", Payload: `{` + base + `,"hook_event_name":"Stop"}`,
			Want: agenttest.Events(e(agent.KindStop, nil))},
		{Name: "unknown", Payload: `{` + base + `,"hook_event_name":"BeforeSleep"}`, Err: `gemini: unknown event "BeforeSleep"`},
	})
}
