package desk

import (
	"context"
	"time"
)

// Session is a managed session: an agent CLI, a shell or any command that
// desk launched in a terminal of its own, held by a holder process that
// outlives the browser and the server. The record is desk's; the agent's
// own conversation id is ResumeID, and its live state comes from its
// hooks (the agent sessions of package agent) under this session's ID.
type Session struct {
	ID      string   // desk's own, durable across resumes: s-xxxxxxxx
	Kind    string   // claude, codex, ..., bash or custom
	Name    string   // for people; unique names are not required
	Cwd     string   // the folder it runs in
	Project string   // the project the folder is linked to, "" for none
	Command []string // the argv launched
	Args    []string // what the user added to the kind's own flags (kept for a resume)
	PID     int      // the program's process id, 0 before it starts
	State   string   // SessionRunning or SessionExited
	// ExitCode is the program's exit status (128+n for a signal), nil
	// while it runs or when nobody could tell (the holder was lost).
	ExitCode   *int
	ExitReason string // exited, stopped, holder lost, launch failed: ...
	StartedAt  time.Time
	EndedAt    time.Time // zero while running
	ResumeID   string    // the provider's conversation id, once captured
	Generation int64     // 1 for the first launch, one more for each resume
	Bypass     bool      // launched with the agent's permission bypass
	Profile    string    // the profile under <data>/profiles/<name>, "" for none
	// Hooks says how the agent's hooks reach desk for this launch: launch
	// (handed to this launch only), installed (the hooks desk install
	// registered), none (the kind has no hooks).
	Hooks     string
	Note      string // what desk wants people to know (a resume id the CLI refused)
	UpdatedAt time.Time
}

// Session states.
const (
	SessionRunning = "running"
	SessionExited  = "exited"
)

// Exit reasons.
const (
	ExitExited       = "exited"
	ExitStopped      = "stopped"
	ExitHolderLost   = "holder lost"
	ExitLaunchFailed = "launch failed" // followed by ": " and why
)

// SessionFilter selects sessions.
type SessionFilter struct {
	All   bool   // running and exited; running only when false
	Kind  string // only this kind; "" for any
	Limit int    // at most this many, newest first; 0 for a default of 500
}

// SessionUpdate changes a session; nil fields stay as they are.
type SessionUpdate struct {
	Name       *string
	PID        *int
	State      *string
	ExitCode   **int
	ExitReason *string
	EndedAt    *time.Time
	ResumeID   *string
	Generation *int64
	StartedAt  *time.Time
	Command    *[]string
	Project    *string
	Note       *string
	Hooks      *string
	// IfState makes the update apply only while the session is in that
	// state, so that two processes noticing the same exit record it once:
	// the loser gets a conflict error.
	IfState string
}

// SessionService keeps managed sessions' records. Every write appends a
// feed row of type "session" (ID the row, Actor the session id, Action
// created, updated or removed) in the same transaction.
type SessionService interface {
	// CreateSession stores a new record. Conflict when the id is taken.
	CreateSession(ctx context.Context, s *Session) error
	// Session returns one record. NotFound for an unknown id.
	Session(ctx context.Context, id string) (*Session, error)
	// Sessions lists records, newest first.
	Sessions(ctx context.Context, f SessionFilter) ([]*Session, error)
	// UpdateSession changes a record and returns it. NotFound for an
	// unknown id; Conflict when IfState does not hold.
	UpdateSession(ctx context.Context, id string, u SessionUpdate) (*Session, error)
}

// SessionView is a session record in its wire form (GET /api/sessions,
// desk sessions --json), with the agent's live state beside it.
type SessionView struct {
	ID         string   `json:"id"`
	Kind       string   `json:"kind"`
	Name       string   `json:"name"`
	Cwd        string   `json:"cwd"`
	Project    *string  `json:"project"`
	Command    []string `json:"command"`
	Args       []string `json:"args"`
	PID        int      `json:"pid"`
	State      string   `json:"state"`
	ExitCode   *int     `json:"exit_code"`
	ExitReason *string  `json:"exit_reason"`
	StartedAt  string   `json:"started_at"`
	EndedAt    *string  `json:"ended_at"`
	ResumeID   *string  `json:"resume_id"`
	Generation int64    `json:"generation"`
	Bypass     bool     `json:"bypass"`
	Profile    *string  `json:"profile"`
	Hooks      string   `json:"hooks"`
	Note       *string  `json:"note"`
	UpdatedAt  string   `json:"updated_at"`
	// Agent is the live state the agent's hooks report for this session
	// (what GET /api/agents/{id} gives), or null.
	Agent any `json:"agent"`
}

// View returns the record's wire form with agent as its live state (nil
// for none).
func (s *Session) View(agent any) SessionView {
	v := SessionView{ID: s.ID, Kind: s.Kind, Name: s.Name, Cwd: s.Cwd, Project: nonEmpty(s.Project),
		Command: s.Command, Args: s.Args, PID: s.PID, State: s.State, ExitCode: s.ExitCode,
		ExitReason: nonEmpty(s.ExitReason), StartedAt: FormatTime(s.StartedAt), ResumeID: nonEmpty(s.ResumeID),
		Generation: s.Generation, Bypass: s.Bypass, Profile: nonEmpty(s.Profile), Hooks: s.Hooks, Note: nonEmpty(s.Note),
		UpdatedAt: FormatTime(s.UpdatedAt), Agent: agent}
	if v.Command == nil {
		v.Command = []string{}
	}
	if v.Args == nil {
		v.Args = []string{}
	}
	if !s.EndedAt.IsZero() {
		e := FormatTime(s.EndedAt)
		v.EndedAt = &e
	}
	return v
}

func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
