package claude_test

import (
	"testing"

	"desk/agent"
	"desk/agent/agenttest"
	_ "desk/agent/claude"
)

const (
	base = `"session_id":"s1","transcript_path":"/h/.claude/projects/-p/s1.jsonl","cwd":"/p"`
	tp   = "/h/.claude/projects/-p/s1.jsonl"
)

func e(kind agent.Kind, f func(*agent.Event)) agent.Event {
	ev := agent.Event{Session: "s1", Kind: kind, Cwd: "/p", Transcript: tp}
	if f != nil {
		f(&ev)
	}
	return ev
}

func TestClaudeHookMapping(t *testing.T) {
	agenttest.Run(t, "claude", []agenttest.Case{
		{Name: "session start", Payload: `{` + base + `,"hook_event_name":"SessionStart","source":"startup","model":"claude-opus-4-8[1m]"}`,
			Want: agenttest.Events(e(agent.KindSessionStart, func(v *agent.Event) { v.Reason, v.Model, v.Name = "startup", "claude-opus-4-8[1m]", "SessionStart" }))},
		{Name: "prompt", Payload: `{` + base + `,"hook_event_name":"UserPromptSubmit","prompt":"hi","prompt_id":"p","permission_mode":"default"}`,
			Want: agenttest.Events(e(agent.KindPrompt, func(v *agent.Event) { v.PermissionMode = "default" }))},
		{Name: "tool start", Payload: `{` + base + `,"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"go test ./...","description":"Run"},"tool_use_id":"toolu_1","effort":{"level":"high"}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Tool, v.ToolID, v.Input = "Bash", "toolu_1", "go test ./..." }))},
		{Name: "mcp tool end with a content array", Payload: `{` + base + `,"hook_event_name":"PostToolUse","tool_name":"mcp__desk__echo","tool_input":{"text":"x"},"tool_response":[{"type":"text","text":"echo: x"}],"tool_use_id":"toolu_2","duration_ms":42}`,
			Want: agenttest.Events(e(agent.KindToolEnd, func(v *agent.Event) { v.Tool, v.ToolID = "mcp__desk__echo", "toolu_2" }))},
		{Name: "tool failure", Payload: `{` + base + `,"hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"false"},"tool_use_id":"t","error":"exit status 1"}`,
			Want: agenttest.Events(e(agent.KindToolFailed, func(v *agent.Event) { v.Tool, v.ToolID, v.Input, v.Message = "Bash", "t", "false", "exit status 1" }))},
		{Name: "permission request", Payload: `{` + base + `,"hook_event_name":"PermissionRequest","tool_name":"Edit","tool_input":{"file_path":"/p/a.go"},"permission_suggestions":[]}`,
			Want: agenttest.Events(e(agent.KindPermissionRequest, func(v *agent.Event) { v.Tool, v.Input = "Edit", "/p/a.go" }))},
		{Name: "permission notification", Payload: `{` + base + `,"hook_event_name":"Notification","message":"Claude needs your permission","notification_type":"permission_prompt"}`,
			Want: agenttest.Events(e(agent.KindNotificationPermission, func(v *agent.Event) {
				v.Reason, v.Message = "permission_prompt", "Claude needs your permission"
			}))},
		{Name: "idle notification", Payload: `{` + base + `,"hook_event_name":"Notification","message":"Claude is waiting for your input","notification_type":"idle_prompt"}`,
			Want: agenttest.Events(e(agent.KindNotificationIdle, func(v *agent.Event) { v.Reason, v.Message = "idle_prompt", "Claude is waiting for your input" }))},
		{Name: "other notification", Payload: `{` + base + `,"hook_event_name":"Notification","message":"ok","notification_type":"auth_success"}`,
			Want: agenttest.Events(e(agent.KindNotice, func(v *agent.Event) { v.Reason, v.Message = "auth_success", "ok" }))},
		{Name: "stop", Payload: `{` + base + `,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done","background_tasks":[]}`,
			Want: agenttest.Events(e(agent.KindStop, nil))},
		{Name: "stop failure", Payload: `{` + base + `,"hook_event_name":"StopFailure","error_type":"rate_limit","error_message":"429"}`,
			Want: agenttest.Events(e(agent.KindStopFailed, func(v *agent.Event) { v.Reason, v.Message = "rate_limit", "429" }))},
		{Name: "session end for /clear", Payload: `{` + base + `,"hook_event_name":"SessionEnd","reason":"clear"}`,
			Want: agenttest.Events(e(agent.KindSessionEnd, func(v *agent.Event) { v.Reason = "clear" }))},
		{Name: "compaction", Payload: `{` + base + `,"hook_event_name":"PreCompact","trigger":"auto"}`,
			Want: agenttest.Events(e(agent.KindCompact, func(v *agent.Event) { v.Reason = "auto" }))},
		{Name: "sub-agent start", Payload: `{` + base + `,"hook_event_name":"SubagentStart","agent_id":"a7","agent_type":"Explore"}`,
			Want: agenttest.Events(e(agent.KindSubagentStart, func(v *agent.Event) { v.Session, v.Parent, v.Message = "a7", "s1", "Explore" }))},
		{Name: "sub-agent stop", Payload: `{` + base + `,"hook_event_name":"SubagentStop","agent_id":"a7","agent_type":"Explore","agent_transcript_path":"/x"}`,
			Want: agenttest.Events(e(agent.KindSubagentStop, func(v *agent.Event) { v.Session, v.Parent, v.Message = "a7", "s1", "Explore" }))},
		{Name: "sub-agent without id", Payload: `{` + base + `,"hook_event_name":"SubagentStart","agent_type":"Plan"}`,
			Want: agenttest.Events(e(agent.KindSubagentStart, func(v *agent.Event) { v.Session, v.Parent, v.Message = "s1/Plan", "s1", "Plan" }))},
		{Name: "tool inside a sub-agent", Payload: `{` + base + `,"hook_event_name":"PreToolUse","agent_id":"a7","agent_type":"Explore","tool_name":"Grep","tool_input":{"pattern":"TODO"}}`,
			Want: agenttest.Events(e(agent.KindToolStart, func(v *agent.Event) { v.Session, v.Parent, v.Tool, v.Input = "a7", "s1", "Grep", "TODO" }))},
		{Name: "team event is known and ignored", Payload: `{` + base + `,"hook_event_name":"TaskCreated","task_subject":"x"}`},
		{Name: "session id from the environment", Payload: `{"cwd":"/p","hook_event_name":"Stop"}`, Env: map[string]string{"CLAUDE_CODE_SESSION_ID": "env-s"},
			Want: agenttest.Events(agent.Event{Session: "env-s", Kind: agent.KindStop, Cwd: "/p"})},
		{Name: "event name from the transport", Event: "Stop", Payload: `{` + base + `}`,
			Want: agenttest.Events(e(agent.KindStop, nil))},
		{Name: "odd field types lose the field, not the event", Payload: `{` + base + `,"hook_event_name":"SessionStart","source":7,"model":{"id":"x"}}`,
			Want: agenttest.Events(e(agent.KindSessionStart, nil))},

		{Name: "unknown event", Payload: `{` + base + `,"hook_event_name":"PreToolUze"}`, Err: `claude: unknown event "PreToolUze" (known events: ConfigChange`},
		{Name: "no event name", Payload: `{` + base + `}`, Err: "has no hook_event_name"},
		{Name: "no session id", Payload: `{"cwd":"/p","hook_event_name":"Stop"}`, Err: `claude "Stop" payload has no session_id`},
		{Name: "tool event without a tool is still a tool", Payload: `{` + base + `,"hook_event_name":"PreToolUse"}`,
			Want: agenttest.Events(e(agent.KindToolStart, nil))},
		{Name: "sub-agent without any name", Payload: `{` + base + `,"hook_event_name":"SubagentStart"}`, Err: "has no agent_id"},
		{Name: "not JSON", Payload: `SessionStart`, Err: "payload is not valid"},
		{Name: "not an object", Payload: `["SessionStart"]`, Err: "payload is not valid"},
		{Name: "empty", Payload: ``, Err: "payload is not valid"},
	})
}
