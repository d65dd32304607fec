package grok_test

import (
	"testing"

	"desk/agent"
	"desk/agent/agenttest"
	_ "desk/agent/grok"
)

func TestGrokHookMapping(t *testing.T) {
	const base = `"session_id":"a1b2c3d4e5f6","cwd":"/g"`
	e := func(kind agent.Kind, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: "a1b2c3d4e5f6", Kind: kind, Cwd: "/g"}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	agenttest.Run(t, "grok", []agenttest.Case{
		{Name: "lazy start", Payload: `{` + base + `,"hook_event_name":"SessionStart","source":"startup"}`,
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason = "startup" }))},
		{Name: "bash", Payload: `{` + base + `,"hook_event_name":"PreToolUse","tool_name":"bash","tool_input":{"command":"bun test"}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.Input = "bash", "bun test" }))},
		{Name: "stop", Payload: `{` + base + `,"hook_event_name":"Stop"}`, Want: agenttest.Events(e(agent.KindStop, nil))},
		{Name: "gemini names are not grok's", Payload: `{` + base + `,"hook_event_name":"BeforeTool","tool_name":"bash"}`, Err: `grok: unknown event "BeforeTool"`},
	})
}
