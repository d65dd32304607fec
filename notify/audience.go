package notify

import (
	"strings"

	"desk"
)

// DelegatedVars are the environment variables that mark a session as a
// delegated job: a sub-agent started by another agent to do one task. Its
// parent deals with the owner, so the job hears nothing of him. desk's own
// names come first; the others are set by agent-bridge, which Pair Desk
// users already run.
var DelegatedVars = []string{"DESK_JOB_ID", "DESK_PARENT_JOB", "AGENT_BRIDGE_JOB_ID", "AGENT_BRIDGE_PARENT_JOB"}

// IsDelegated reports whether the environment marks a delegated job.
func IsDelegated(getenv func(string) string) bool {
	for _, v := range DelegatedVars {
		if strings.TrimSpace(getenv(v)) != "" {
			return true
		}
	}
	return false
}

// Audience is who a session is, for the question of whether it hears the
// owner: its client, whether it is a delegated job, and the project's lead
// client ("" when every session hears him).
type Audience struct {
	Client    string
	Delegated bool
	Lead      string
}

// NewAudience describes a session of client on project p.
func NewAudience(client string, delegated bool, p *desk.Project) Audience {
	a := Audience{Client: ClientName(client), Delegated: delegated}
	if p != nil && p.Lead != nil {
		a.Lead = ClientName(*p.Lead)
	}
	return a
}

// HearsOwner reports whether the session is told the owner's activity as
// it happens (prompt hook, channel): never in a delegated job, and only in
// the lead client's sessions where the project has a lead.
func (a Audience) HearsOwner() bool {
	if a.Delegated {
		return false
	}
	return a.Lead == "" || a.Lead == a.Client
}

// ClientName turns the name a client gives itself (an MCP clientInfo name,
// a --client flag) into desk's name for it: claude, codex, opencode,
// antigravity, muse, gemini, qwen, kimi, grok or pi. Names it does not know
// come back lower-cased.
func ClientName(name string) string {
	n := strings.ToLower(strings.TrimSpace(name))
	switch {
	case n == "":
		return ""
	case strings.HasPrefix(n, "claude"):
		return "claude"
	case strings.HasPrefix(n, "codex"):
		return "codex"
	case strings.HasPrefix(n, "opencode"):
		return "opencode"
	case strings.HasPrefix(n, "antigravity"), n == "agy":
		return "antigravity"
	case strings.HasPrefix(n, "gemini"):
		return "gemini"
	case strings.HasPrefix(n, "qwen"):
		return "qwen"
	case strings.HasPrefix(n, "kimi"):
		return "kimi"
	case strings.HasPrefix(n, "grok"):
		return "grok"
	case strings.HasPrefix(n, "muse"):
		return "muse"
	}
	return n
}
