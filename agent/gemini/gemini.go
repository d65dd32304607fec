// Package gemini maps Gemini CLI's hooks to agent events.
//
// Gemini CLI runs command hooks from settings.json with a JSON payload on
// stdin: session_id, transcript_path, cwd, hook_event_name and an ISO 8601
// timestamp, which becomes the event's time. Its events have their own names
// (BeforeTool, AfterAgent ...); Claude Code's names are accepted too, for
// forks that kept them. A failed tool is an AfterTool whose tool_response
// carries an error, and a permission prompt is a Notification of type
// ToolPermission.
package gemini

import (
	"desk/agent"
	"desk/agent/claude"
)

// Name is the client's registered name.
const Name = "gemini"

// Events are Gemini CLI's hook events, with Claude Code's.
var Events = claude.Merge(claude.Events, map[string]agent.Kind{
	"BeforeAgent":         agent.KindPrompt,
	"AfterAgent":          agent.KindStop,
	"BeforeTool":          agent.KindToolStart,
	"AfterTool":           agent.KindToolEnd,
	"PreCompress":         agent.KindCompact,
	"BeforeModel":         "",
	"AfterModel":          "", // fires for every streamed chunk
	"BeforeToolSelection": "",
})

// Dialect is Gemini CLI's hook dialect.
var Dialect = &claude.HookDialect{Client: Name, Events: Events, ResponseErrors: true}

func init() {
	agent.Register(agent.Client{Name: Name, Title: "Gemini CLI", Map: Dialect.Map})
}
