// Package qwen maps Qwen Code's hooks to agent events.
//
// Qwen Code is a Gemini CLI fork whose hooks are Claude-compatible: the same
// event names and payload fields, configured in ~/.qwen/settings.json (with
// timeouts in milliseconds). Gemini's event names are accepted as well.
// --resume keeps the conversation id, so a resumed session keeps its record.
package qwen

import (
	"desk/agent"
	"desk/agent/claude"
	"desk/agent/gemini"
)

// Name is the client's registered name.
const Name = "qwen"

// Events are Qwen Code's hook events.
var Events = gemini.Events

// Dialect is Qwen Code's hook dialect.
var Dialect = &claude.HookDialect{Client: Name, Events: Events}

func init() {
	agent.Register(agent.Client{Name: Name, Title: "Qwen Code", Map: Dialect.Map})
}
