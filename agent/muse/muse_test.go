package muse_test

import (
	"testing"

	"desk/agent"
	"desk/agent/agenttest"
	_ "desk/agent/muse"
)

func TestMuseHookMapping(t *testing.T) {
	agenttest.Run(t, "muse", []agenttest.Case{
		{Name: "start", Payload: `{"session_id":"m1","cwd":"/m","hook_event_name":"SessionStart","source":"startup"}`,
			Want: agenttest.Events(agent.Event{Session: "m1", Cwd: "/m", Kind: agent.KindSessionStart, Reason: "startup"})},
		{Name: "prompt", Payload: `{"session_id":"m1","cwd":"/m","hook_event_name":"UserPromptSubmit","prompt":"hi"}`,
			Want: agenttest.Events(agent.Event{Session: "m1", Cwd: "/m", Kind: agent.KindPrompt})},
		{Name: "unknown", Payload: `{"session_id":"m1","hook_event_name":"Wander"}`, Err: `muse: unknown event "Wander"`},
	})
}
