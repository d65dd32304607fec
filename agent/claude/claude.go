// Package claude maps Claude Code's hooks and transcripts to agent events,
// and holds the Claude-compatible hook dialect that Codex, Gemini CLI, Qwen
// Code, Grok and Kimi speak with small differences.
//
// Claude Code runs a command hook with the payload on stdin, or POSTs the
// same JSON to an http hook. Every payload has session_id, transcript_path,
// cwd and hook_event_name. The http transport never carries SessionStart, so
// the Tracker creates a session from whatever event comes first.
package claude

import "desk/agent"

// Name is the client's registered name.
const Name = "claude"

// Events are Claude Code's hook events. The empty kind marks events that are
// known and say nothing about a session's state.
var Events = map[string]agent.Kind{
	"SessionStart":       agent.KindSessionStart,
	"SessionEnd":         agent.KindSessionEnd,
	"UserPromptSubmit":   agent.KindPrompt,
	"PreToolUse":         agent.KindToolStart,
	"PostToolUse":        agent.KindToolEnd,
	"PostToolUseFailure": agent.KindToolFailed,
	"PermissionRequest":  agent.KindPermissionRequest,
	"PermissionDenied":   agent.KindNotice,
	"Notification":       Notification,
	"Stop":               agent.KindStop,
	"StopFailure":        agent.KindStopFailed,
	"SubagentStart":      agent.KindSubagentStart,
	"SubagentStop":       agent.KindSubagentStop,
	"PreCompact":         agent.KindCompact,
	"PostCompact":        agent.KindNotice,
	// An MCP server asking the owner for input holds the turn like a question.
	"Elicitation":       agent.KindNotificationIdle,
	"ElicitationResult": agent.KindBusy,
	// Team and housekeeping events: known, nothing to show.
	"TeammateIdle":       "",
	"TaskCreated":        "",
	"TaskCompleted":      "",
	"InstructionsLoaded": "",
	"ConfigChange":       "",
	"CwdChanged":         "",
	"FileChanged":        "",
	"WorktreeCreate":     "",
	"WorktreeRemove":     "",
	"Setup":              "",
}

// Dialect is Claude Code's own dialect.
var Dialect = &HookDialect{
	Client:     Name,
	Events:     Events,
	SessionEnv: "CLAUDE_CODE_SESSION_ID",
}

func init() {
	agent.Register(agent.Client{
		Name:        Name,
		Title:       "Claude Code",
		Map:         Dialect.Map,
		Transcripts: Transcripts,
	})
}
