// Package codex maps OpenAI Codex CLI's hooks and rollout transcripts to
// agent events.
//
// Codex reads ~/.codex/hooks.json (or [[hooks.*]] tables in config.toml)
// with the same schema and payload fields as Claude Code, plus model and
// turn_id, and without prompt_id. Hooks run only once trusted, or under
// --dangerously-bypass-hook-trust. Codex passes no session environment to
// hooks or MCP servers, so an MCP call is tied to its session by folder.
package codex

import (
	"desk/agent"
	"desk/agent/claude"
)

// Name is the client's registered name.
const Name = "codex"

// Events are the hook events Codex fires: Claude Code's names, of which it
// sends SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop and
// SessionEnd today.
var Events = claude.Events

// Dialect is Codex's hook dialect.
var Dialect = &claude.HookDialect{Client: Name, Events: Events}

func init() {
	agent.Register(agent.Client{
		Name:        Name,
		Title:       "Codex",
		Map:         Dialect.Map,
		Transcripts: Transcripts,
	})
}
