package pair

import (
	"context"
	"strings"
)

// Terminals is what the pairing rules need of the members' managed
// terminal sessions: reading what a session shows, typing into it,
// starting an agent in a folder and bringing a dead one back. desk's
// durable terminals implement it; a pair without managed sessions passes
// nil, and then the mailbox works alone.
type Terminals interface {
	// Screen returns the text a session shows now, one line per row.
	Screen(ctx context.Context, session string) (string, error)
	// Type sends text as one bracketed paste, so that a shell or an agent's
	// composer takes it as typed text and not as keys.
	Type(ctx context.Context, session, text string) error
	// Keys sends keys, such as KeyEnter.
	Keys(ctx context.Context, session string, keys ...string) error
	// Launch starts an agent of a kind (claude, codex, opencode ...) in a
	// folder with extra environment, and returns its session.
	Launch(ctx context.Context, l Launch) (session string, err error)
	// Resume starts an exited session again, with the agent's own resume
	// id when it has one, and returns the session that runs now.
	Resume(ctx context.Context, session, resumeID string) (string, error)
	// Alive reports whether a session's process runs.
	Alive(ctx context.Context, session string) (bool, error)
}

// Launch is an agent to start in a managed session.
type Launch struct {
	Kind string   // the agent CLI
	Dir  string   // the working folder
	Env  []string // KEY=VALUE, DESK_PAIR and DESK_PAIR_ROLE among them
	Args []string
}

// Keys for Terminals.Keys: what the rules press to send a typed line and
// to confirm a prompt.
const (
	KeyEnter = "Enter"
	KeyY     = "y"
)

// ComposerVisible reports whether a screen shows an agent waiting for
// input at its composer, where a typed line becomes the next prompt: no
// permission or choice prompt is open and the agent is not busy. It reads
// the marks Claude Code, Codex and opencode draw around their input.
func ComposerVisible(screen string) bool {
	if screen == "" {
		return false
	}
	if _, open := FindPrompt(screen); open {
		return false
	}
	lines := strings.Split(screen, "\n")
	for _, l := range lines {
		t := strings.TrimSpace(l)
		low := strings.ToLower(t)
		switch {
		// A turn in progress: typing now would queue behind it or be lost.
		case strings.Contains(low, "esc to interrupt"), strings.Contains(low, "esc to cancel"),
			strings.Contains(low, "working (") && strings.Contains(low, "interrupt"):
			return false
		}
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		low := strings.ToLower(t)
		switch {
		case strings.Contains(low, "? for shortcuts"): // Claude Code's footer under its input box
			return true
		case strings.HasPrefix(t, "│ >") || strings.HasPrefix(t, "> ") && strings.Contains(t, "│"):
			return true // Claude Code's input box
		case strings.HasPrefix(t, "›") && !strings.Contains(t, "1."): // Codex's composer (its menu items are numbered)
			return true
		case strings.Contains(low, "ctrl+j newline"), strings.Contains(low, "⏎ send"), strings.Contains(low, "enter to send"):
			return true
		case strings.Contains(low, "ctrl+p commands"), strings.Contains(low, "tab agents"): // opencode's footer
			return true
		}
	}
	return false
}
