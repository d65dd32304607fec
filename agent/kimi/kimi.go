// Package kimi maps Kimi Code CLI's hooks to agent events.
//
// Kimi declares hooks as [[hooks]] tables in its config.toml (event,
// matcher, command, timeout) and writes a JSON payload to the command's
// stdin. Every payload has hook_event_name, session_id and cwd (plus
// session_title and client_type); tool events add tool_name, tool_input and
// tool_call_id, a failed tool adds error, sub-agent events add agent_name,
// and a failed turn (StopFailure) adds error_type and error_message. Kimi
// mints session ids of the form session_...; --session resumes one with its
// id, which keeps the record.
//
// Beyond Claude Code's events Kimi reports approvals as they resolve
// (PermissionResult), interrupts (Esc: Interrupt, fired instead of Stop),
// every new turn (TurnStarted) and, when configured, a heartbeat every
// minute that keeps a long tool run from reading unknown.
package kimi

import (
	"desk/agent"
	"desk/agent/claude"
)

// Name is the client's registered name.
const Name = "kimi"

// Events are Kimi Code's hook events.
var Events = claude.Merge(claude.Events, map[string]agent.Kind{
	"TurnStarted":      agent.KindPrompt,
	"UserPromptQueued": agent.KindNotice,
	"PermissionResult": agent.KindPermissionResult,
	"SessionHeartbeat": agent.KindHeartbeat,
	"TaskStarted":      agent.KindNotice,
	"Interrupt":        agent.KindInterrupt,
	"StopFailure":      agent.KindStopFailed,
	"PostCompact":      agent.KindNotice,
})

// Dialect is Kimi Code's hook dialect.
var Dialect = &claude.HookDialect{Client: Name, Events: Events}

func init() {
	agent.Register(agent.Client{Name: Name, Title: "Kimi Code", Map: Dialect.Map})
}
