package opencode_test

import (
	"testing"
	"time"

	"desk/agent"
	"desk/agent/agenttest"
	_ "desk/agent/opencode"
)

// bus writes a bus event as desk's installed plugin reports it.
func bus(typ, props string) string {
	return `{"hook_event_name":"` + typ + `","session_id":"ses_1","cwd":"/o","event":{"type":"` + typ + `","properties":` + props + `}}`
}

func TestOpencodePluginMapping(t *testing.T) {
	e := func(kind agent.Kind, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: "ses_1", Kind: kind, Cwd: "/o"}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	agenttest.Run(t, "opencode", []agenttest.Case{
		{Name: "created", Payload: bus("session.created", `{"info":{"id":"ses_1","directory":"/o/sub","title":"New session"}}`),
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason, v.Cwd = "startup", "/o/sub" }))},
		{Name: "child session", Payload: `{"hook_event_name":"session.created","session_id":"ses_2","cwd":"/o","event":{"type":"session.created","properties":{"info":{"id":"ses_2","parentID":"ses_1","directory":"/o"}}}}`,
			Want: agenttest.Events(e(agent.KindSubagentStart, func(v *agent.Event) { v.Session, v.Parent = "ses_2", "ses_1" }))},
		{Name: "busy", Payload: bus("session.status", `{"sessionID":"ses_1","status":{"type":"busy"}}`),
			Want: agenttest.Events(e(agent.KindBusy, nil))},
		{Name: "retry", Payload: bus("session.status", `{"sessionID":"ses_1","status":{"type":"retry","attempt":2}}`),
			Want: agenttest.Events(e(agent.KindBusy, func(v *agent.Event) { v.Message = "retrying" }))},
		{Name: "idle status", Payload: bus("session.status", `{"sessionID":"ses_1","status":{"type":"idle"}}`),
			Want: agenttest.Events(e(agent.KindStop, nil))},
		{Name: "idle", Payload: bus("session.idle", `{"sessionID":"ses_1"}`),
			Want: agenttest.Events(e(agent.KindStop, nil))},
		{Name: "tool", Payload: `{"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/o","tool_name":"bash","tool_input":{"command":"bun test","description":"Run"}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.Input = "bash", "bun test" }))},
		{Name: "mcp tool", Payload: `{"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/o","tool_name":"desk_create_issue","tool_input":{"title":"x"}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool = "mcp__desk__create_issue" }))},
		{Name: "tool done", Payload: `{"hook_event_name":"tool.execute.after","session_id":"ses_1","cwd":"/o","tool_name":"edit","title":"src/a.ts"}`,
			Want: agenttest.Events(e(agent.KindToolEnd, func(v *agent.Event) { v.Tool = "edit" }))},
		{Name: "permission asked", Payload: bus("permission.asked", `{"id":"per_1","sessionID":"ses_1","permission":"bash","patterns":["git push"],"metadata":{},"always":["git push *"],"tool":{"messageID":"msg_1","callID":"call_4"}}`),
			Want: agenttest.Events(e(agent.KindPermissionRequest, func(v *agent.Event) { v.Tool, v.Input, v.ToolID = "bash", "git push", "call_4" }))},
		{Name: "permission updated (before 1.0)", Payload: bus("permission.updated", `{"id":"per_1","type":"edit","pattern":"src/a.ts","sessionID":"ses_1","messageID":"m","callID":"call_5","title":"Edit src/a.ts","metadata":{}}`),
			Want: agenttest.Events(e(agent.KindPermissionRequest, func(v *agent.Event) { v.Tool, v.Input, v.ToolID = "edit", "src/a.ts", "call_5" }))},
		{Name: "permission replied", Payload: bus("permission.replied", `{"sessionID":"ses_1","requestID":"per_1","reply":"once"}`),
			Want: agenttest.Events(e(agent.KindPermissionResult, func(v *agent.Event) { v.Reason = "once" }))},
		{Name: "error", Payload: bus("session.error", `{"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"overloaded"}}}`),
			Want: agenttest.Events(e(agent.KindStopFailed, func(v *agent.Event) { v.Reason, v.Message = "APIError", "overloaded" }))},
		{Name: "deleted", Payload: bus("session.deleted", `{"info":{"id":"ses_1"}}`),
			Want: agenttest.Events(e(agent.KindSessionEnd, nil))},
		{Name: "compacted", Payload: bus("session.compacted", `{"sessionID":"ses_1"}`),
			Want: agenttest.Events(e(agent.KindNotice, nil))},
		{Name: "message parts are ignored", Payload: bus("message.part.updated", `{"part":{}}`)},
		{Name: "a bare bus event with its own time", Payload: `{"type":"chat.message","directory":"/o","time":1796047200000,"properties":{"sessionID":"ses_1","text":"add tests"}}`,
			Want: agenttest.Events(e(agent.KindPrompt, func(v *agent.Event) { v.Message, v.Time = "add tests", time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC) }))},

		{Name: "error without a session", Payload: `{"hook_event_name":"session.error","session_id":"","cwd":"/o","event":{"type":"session.error","properties":{"error":{"name":"X"}}}}`, Err: `"session.error" payload has no session_id`},
		{Name: "status without a type", Payload: bus("session.status", `{"sessionID":"ses_1"}`), Err: "properties.status.type"},
		{Name: "tool hook without a tool is still a tool", Payload: `{"hook_event_name":"tool.execute.before","session_id":"ses_1","cwd":"/o"}`,
			Want: agenttest.Events(e(agent.KindToolStart, nil))},
		{Name: "unknown", Payload: bus("session.exploded", `{}`), Err: `opencode: unknown event "session.exploded"`},
		{Name: "no event name", Payload: `{"session_id":"ses_1"}`, Err: "has no hook_event_name"},
	})
}
