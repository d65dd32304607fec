// Package grok maps grok-cli's hooks to agent events.
//
// Grok's hooks are Claude-compatible. It fires SessionStart lazily, with the
// first prompt, so a freshly launched Grok reads unknown until then, and its
// tool hooks fire for the bash tool only: other tools leave the session
// thinking, and a long one outlives the working lease and reads unknown.
package grok

import (
	"desk/agent"
	"desk/agent/claude"
)

// Name is the client's registered name.
const Name = "grok"

// Events are Grok's hook events: Claude Code's names.
var Events = claude.Events

// Dialect is Grok's hook dialect.
var Dialect = &claude.HookDialect{Client: Name, Events: Events}

func init() {
	agent.Register(agent.Client{Name: Name, Title: "Grok", Map: Dialect.Map})
}
