// Package muse maps Muse Code's hooks to agent events.
//
// Muse Code reads Claude-style hooks from its settings.json; desk registers
// its event hook for SessionStart and UserPromptSubmit, the events Muse
// fires, so a Muse session reads waiting_input, then working from each
// prompt until the working lease runs out.
package muse

import (
	"desk/agent"
	"desk/agent/claude"
)

// Name is the client's registered name.
const Name = "muse"

// Events are Muse Code's hook events: Claude Code's names.
var Events = claude.Events

// Dialect is Muse Code's hook dialect.
var Dialect = &claude.HookDialect{Client: Name, Events: Events}

func init() {
	agent.Register(agent.Client{Name: Name, Title: "Muse Code", Map: Dialect.Map})
}
