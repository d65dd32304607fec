package antigravity_test

import (
	"testing"

	"desk/agent"
	"desk/agent/agenttest"
	_ "desk/agent/antigravity"
)

func TestAntigravityHookMapping(t *testing.T) {
	const base = `"conversationId":"cv1","stepIdx":4,"transcriptPath":"/h/.gemini/antigravity/t.pb","workspacePaths":["/w","/other"],"artifactDirectoryPath":"/a"`
	e := func(kind agent.Kind, f func(*agent.Event)) agent.Event {
		ev := agent.Event{Session: "cv1", Kind: kind, Cwd: "/w", Transcript: "/h/.gemini/antigravity/t.pb"}
		if f != nil {
			f(&ev)
		}
		return ev
	}
	agenttest.Run(t, "antigravity", []agenttest.Case{
		{Name: "start", Event: "SessionStart", Payload: `{` + base + `}`,
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason = "startup" }))},
		{Name: "model call", Event: "PreInvocation", Payload: `{` + base + `}`,
			Want: agenttest.Events(e(agent.KindBusy, nil))},
		{Name: "command", Event: "PreToolUse", Payload: `{` + base + `,"toolCall":{"name":"run_command","args":{"CommandLine":"go test ./...","Cwd":"/w","Blocking":true}}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.Input = "run_command", "go test ./..." }))},
		{Name: "file edit", Event: "PreToolUse", Payload: `{` + base + `,"toolCall":{"name":"replace_file_content","args":{"TargetFile":"/w/main.go","Instruction":"fix"}}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.Input = "replace_file_content", "/w/main.go" }))},
		{Name: "tool done", Event: "PostToolUse", Payload: `{` + base + `,"toolCall":{"name":"view_file","args":{"AbsolutePath":"/w/a.go"}},"error":""}`,
			Want: agenttest.Events(e(agent.KindToolEnd, func(v *agent.Event) { v.Tool, v.Input = "view_file", "/w/a.go" }))},
		{Name: "tool done without its call", Event: "PostToolUse", Payload: `{` + base + `,"toolCall":null}`,
			Want: agenttest.Events(e(agent.KindToolEnd, nil))},
		{Name: "tool failed", Event: "PostToolUse", Payload: `{` + base + `,"toolCall":{"name":"run_command","args":{}},"error":"exit status 2"}`,
			Want: agenttest.Events(e(agent.KindToolFailed, func(v *agent.Event) { v.Tool, v.Message = "run_command", "exit status 2" }))},
		{Name: "turn ended by the agent", Event: "Stop", Payload: `{` + base + `,"terminationReason":"NO_TOOL_CALL"}`,
			Want: agenttest.Events(e(agent.KindStop, func(v *agent.Event) { v.Reason = "NO_TOOL_CALL" }))},
		{Name: "turn cancelled", Event: "Stop", Payload: `{` + base + `,"terminationReason":"USER_CANCELED"}`,
			Want: agenttest.Events(e(agent.KindInterrupt, func(v *agent.Event) { v.Reason = "USER_CANCELED" }))},
		{Name: "turn failed", Event: "Stop", Payload: `{` + base + `,"terminationReason":"MODEL_ERROR"}`,
			Want: agenttest.Events(e(agent.KindStopFailed, func(v *agent.Event) { v.Reason = "MODEL_ERROR" }))},
		{Name: "event named in the payload", Payload: `{"hook_event_name":"PostInvocation",` + base + `}`,
			Want: agenttest.Events(e(agent.KindNotice, nil))},
		{Name: "no event name anywhere", Payload: `{` + base + `}`, Err: "pass it with --event"},
		{Name: "no conversation", Event: "Stop", Payload: `{"workspacePaths":["/w"]}`, Err: "has no conversationId"},
		{Name: "tool start without a tool is still a tool", Event: "PreToolUse", Payload: `{` + base + `}`,
			Want: agenttest.Events(e(agent.KindToolStart, nil))},
		{Name: "unknown", Event: "SessionEnd", Payload: `{` + base + `}`, Err: `antigravity: unknown event "SessionEnd"`},
	})
}
