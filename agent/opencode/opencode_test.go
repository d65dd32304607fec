package opencode_test

import (
	"testing"
	"time"

	"desk/agent"
	"desk/agent/agenttest"
	_ "desk/agent/opencode"
)

func TestOpencodePluginMapping(t *testing.T) {
	const env = `"directory":"/o","time":1796047200000`
	when := time.Date(2026, 11, 30, 14, 0, 0, 0, time.UTC)
	e := func(kind agent.Kind, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: "ses_1", Kind: kind, Cwd: "/o", Time: when}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	agenttest.Run(t, "opencode", []agenttest.Case{
		{Name: "created", Payload: `{"type":"session.created",` + env + `,"properties":{"info":{"id":"ses_1","directory":"/o/sub","title":"New session"}}}`,
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason, v.Cwd = "startup", "/o/sub" }))},
		{Name: "child session", Payload: `{"type":"session.created",` + env + `,"properties":{"info":{"id":"ses_2","parentID":"ses_1","directory":"/o"}}}`,
			Want: agenttest.Events(e(agent.KindSubagentStart, func(v *agent.Event) { v.Session, v.Parent = "ses_2", "ses_1" }))},
		{Name: "prompt", Payload: `{"type":"chat.message",` + env + `,"properties":{"sessionID":"ses_1","text":"add tests"}}`,
			Want: agenttest.Events(e(agent.KindPrompt, func(v *agent.Event) { v.Message = "add tests" }))},
		{Name: "busy", Payload: `{"type":"session.status",` + env + `,"properties":{"sessionID":"ses_1","status":{"type":"busy"}}}`,
			Want: agenttest.Events(e(agent.KindBusy, nil))},
		{Name: "retry", Payload: `{"type":"session.status",` + env + `,"properties":{"sessionID":"ses_1","status":{"type":"retry","attempt":2}}}`,
			Want: agenttest.Events(e(agent.KindBusy, func(v *agent.Event) { v.Message = "retrying" }))},
		{Name: "idle status", Payload: `{"type":"session.status",` + env + `,"properties":{"sessionID":"ses_1","status":{"type":"idle"}}}`,
			Want: agenttest.Events(e(agent.KindStop, nil))},
		{Name: "idle", Payload: `{"type":"session.idle",` + env + `,"properties":{"sessionID":"ses_1"}}`,
			Want: agenttest.Events(e(agent.KindStop, nil))},
		{Name: "tool", Payload: `{"type":"tool.execute.before",` + env + `,"properties":{"sessionID":"ses_1","tool":"bash","callID":"call_1","args":{"command":"bun test","description":"Run"}}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "bash", "call_1", "bun test" }))},
		{Name: "mcp tool", Payload: `{"type":"tool.execute.before",` + env + `,"properties":{"sessionID":"ses_1","tool":"desk_create_issue","callID":"call_2","args":{"title":"x"}}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.ToolID = "mcp__desk__create_issue", "call_2" }))},
		{Name: "tool done", Payload: `{"type":"tool.execute.after",` + env + `,"properties":{"sessionID":"ses_1","tool":"edit","callID":"call_3"}}`,
			Want: agenttest.Events(e(agent.KindToolEnd, func(v *agent.Event) { v.Tool, v.ToolID = "edit", "call_3" }))},
		{Name: "permission asked", Payload: `{"type":"permission.asked",` + env + `,"properties":{"id":"per_1","sessionID":"ses_1","permission":"bash","patterns":["git push"],"metadata":{},"always":["git push *"],"tool":{"messageID":"msg_1","callID":"call_4"}}}`,
			Want: agenttest.Events(e(agent.KindPermissionRequest, func(v *agent.Event) { v.Tool, v.Input, v.ToolID = "bash", "git push", "call_4" }))},
		{Name: "permission updated (old shape)", Payload: `{"type":"permission.updated",` + env + `,"properties":{"id":"per_1","type":"edit","pattern":"src/a.ts","sessionID":"ses_1","messageID":"m","callID":"call_5","title":"Edit src/a.ts","metadata":{}}}`,
			Want: agenttest.Events(e(agent.KindPermissionRequest, func(v *agent.Event) { v.Tool, v.Input, v.ToolID = "edit", "src/a.ts", "call_5" }))},
		{Name: "permission replied", Payload: `{"type":"permission.replied",` + env + `,"properties":{"sessionID":"ses_1","requestID":"per_1","reply":"once"}}`,
			Want: agenttest.Events(e(agent.KindPermissionResult, func(v *agent.Event) { v.Reason = "once" }))},
		{Name: "error", Payload: `{"type":"session.error",` + env + `,"properties":{"sessionID":"ses_1","error":{"name":"APIError","data":{"message":"overloaded"}}}}`,
			Want: agenttest.Events(e(agent.KindStopFailed, func(v *agent.Event) { v.Reason, v.Message = "APIError", "overloaded" }))},
		{Name: "deleted", Payload: `{"type":"session.deleted",` + env + `,"properties":{"info":{"id":"ses_1"}}}`,
			Want: agenttest.Events(e(agent.KindSessionEnd, nil))},
		{Name: "message parts are ignored", Payload: `{"type":"message.part.updated",` + env + `,"properties":{"part":{}}}`},
		{Name: "error without a session", Payload: `{"type":"session.error",` + env + `,"properties":{"error":{"name":"X"}}}`, Err: "has no properties.sessionID"},
		{Name: "status without a type", Payload: `{"type":"session.status",` + env + `,"properties":{"sessionID":"ses_1"}}`, Err: "properties.status.type"},
		{Name: "tool hook without a tool", Payload: `{"type":"tool.execute.before",` + env + `,"properties":{"sessionID":"ses_1"}}`, Err: "has no properties.tool"},
		{Name: "unknown", Payload: `{"type":"session.exploded",` + env + `,"properties":{}}`, Err: `opencode: unknown event "session.exploded"`},
		{Name: "no type", Payload: `{"properties":{}}`, Err: "has no type"},
	})
}
