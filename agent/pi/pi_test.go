package pi_test

import (
	"testing"

	"desk/agent"
	"desk/agent/agenttest"
	_ "desk/agent/pi"
)

func TestPiExtensionMapping(t *testing.T) {
	const base = `"session_id":"p2","cwd":"/pi"`
	e := func(kind agent.Kind, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: "p2", Kind: kind, Cwd: "/pi", PermissionMode: "never"}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	agenttest.Run(t, "pi", []agenttest.Case{
		{Name: "start", Payload: `{"type":"session_start","reason":"startup",` + base + `}`,
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason = "startup" }))},
		{Name: "switch names the session it continues", Payload: `{"type":"session_switch","reason":"new","previous_session_id":"p1",` + base + `}`,
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason, v.Previous = "new", "p1" }))},
		{Name: "input", Payload: `{"type":"input","text":"refactor","source":"interactive",` + base + `}`,
			Want: agenttest.Events(e(agent.KindPrompt, func(v *agent.Event) { v.Message = "refactor" }))},
		{Name: "tool call", Payload: `{"type":"tool_call","toolCallId":"tc","toolName":"bash","input":{"command":"npm run build"},` + base + `}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "bash", "tc", "npm run build" }))},
		{Name: "failed tool", Payload: `{"type":"tool_result","toolCallId":"tc","toolName":"bash","input":{"command":"x"},"content":[],"isError":true,` + base + `}`,
			Want: agenttest.Events(e(agent.KindToolFailed, func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "bash", "tc", "x" }))},
		{Name: "agent end is not the turn's end", Payload: `{"type":"agent_end","messages":[],` + base + `}`,
			Want: agenttest.Events(e(agent.KindNotice, nil))},
		{Name: "failed run", Payload: `{"type":"agent_end","errorClass":"rate_limit","error":"429",` + base + `}`,
			Want: agenttest.Events(e(agent.KindStopFailed, func(v *agent.Event) { v.Reason, v.Message = "rate_limit", "429" }))},
		{Name: "settled", Payload: `{"type":"agent_settled",` + base + `}`, Want: agenttest.Events(e(agent.KindStop, nil))},
		{Name: "shutdown", Payload: `{"type":"session_shutdown",` + base + `}`, Want: agenttest.Events(e(agent.KindSessionEnd, nil))},
		{Name: "turn start is ignored", Payload: `{"type":"turn_start",` + base + `}`},
		{Name: "no session", Payload: `{"type":"input","text":"x"}`, Err: `pi "input" payload has no session_id`},
		{Name: "tool without a name is still a tool", Payload: `{"type":"tool_call",` + base + `}`,
			Want: agenttest.Events(e(agent.KindToolStart, nil))},
		{Name: "unknown", Payload: `{"type":"teleport",` + base + `}`, Err: `pi: unknown event "teleport"`},
	})
}
