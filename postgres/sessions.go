package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"desk"

	"github.com/jackc/pgx/v5"
)

var _ desk.SessionService = (*DB)(nil)

const sessionColumns = `row, id, kind, name, cwd, project, command, args, pid, state, exit_code, exit_reason,
	started_at, ended_at, resume_id, generation, bypass, profile, hooks, note, updated_at`

func scanSession(sc pgx.Row) (*desk.Session, int64, error) {
	var s desk.Session
	var row int64
	var command, args, started, ended, updated string
	var code *int32
	err := sc.Scan(&row, &s.ID, &s.Kind, &s.Name, &s.Cwd, &s.Project, &command, &args, &s.PID, &s.State, &code,
		&s.ExitReason, &started, &ended, &s.ResumeID, &s.Generation, &s.Bypass, &s.Profile, &s.Hooks, &s.Note, &updated)
	if err != nil {
		return nil, 0, err
	}
	json.Unmarshal([]byte(command), &s.Command)
	json.Unmarshal([]byte(args), &s.Args)
	if code != nil {
		c := int(*code)
		s.ExitCode = &c
	}
	s.StartedAt, _ = desk.ParseTime(started)
	if ended != "" {
		s.EndedAt, _ = desk.ParseTime(ended)
	}
	s.UpdatedAt, _ = desk.ParseTime(updated)
	return &s, row, nil
}

func jsonList(l []string) string {
	if l == nil {
		l = []string{}
	}
	b, _ := json.Marshal(l)
	return string(b)
}

func sessionTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return desk.FormatTime(t)
}

func noSession(id string) error {
	if len(id) > 64 {
		id = id[:64] + "…"
	}
	return desk.Errorf(desk.NotFound, "no session %q", id).WithHint("desk sessions --all lists them")
}

// CreateSession stores a new managed session with its feed row.
func (db *DB) CreateSession(ctx context.Context, s *desk.Session) error {
	if s.ID == "" || s.Kind == "" || s.State == "" {
		return desk.Errorf(desk.Invalid, "a session record needs an id, a kind and a state")
	}
	return db.update(ctx, func(tx *Tx) error {
		started := s.StartedAt
		if started.IsZero() {
			started = tx.now
		}
		var code any
		if s.ExitCode != nil {
			code = *s.ExitCode
		}
		var row int64
		err := tx.queryRow(`INSERT INTO managed_sessions (id, kind, name, cwd, project, command, args, pid, state,
			exit_code, exit_reason, started_at, ended_at, resume_id, generation, bypass, profile, hooks, note, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)
			ON CONFLICT (id) DO NOTHING RETURNING row`,
			s.ID, s.Kind, s.Name, s.Cwd, s.Project, jsonList(s.Command), jsonList(s.Args), s.PID, s.State,
			code, s.ExitReason, sessionTime(started), sessionTime(s.EndedAt), s.ResumeID, s.Generation,
			s.Bypass, s.Profile, s.Hooks, s.Note, tx.ts).Scan(&row)
		if errors.Is(err, pgx.ErrNoRows) {
			return desk.Errorf(desk.Conflict, "a session %s exists already", s.ID)
		}
		if err != nil {
			return err
		}
		// The record is the caller's only once it is stored.
		s.StartedAt, s.UpdatedAt = started, tx.now
		tx.feed(desk.Change{Project: s.Project, Type: desk.ChangeSession, ID: row, Action: "created", Actor: s.ID}, 0)
		return nil
	})
}

// Session returns one managed session.
func (db *DB) Session(ctx context.Context, id string) (*desk.Session, error) {
	s, _, err := scanSession(db.pool.QueryRow(ctx, `SELECT `+sessionColumns+` FROM managed_sessions WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, noSession(id)
	}
	return s, err
}

// Sessions lists managed sessions, newest first.
func (db *DB) Sessions(ctx context.Context, f desk.SessionFilter) ([]*desk.Session, error) {
	var where []string
	var args []any
	if !f.All {
		args = append(args, desk.SessionRunning)
		where = append(where, "state = $"+itoa64(int64(len(args))))
	}
	if f.Kind != "" {
		args = append(args, f.Kind)
		where = append(where, "kind = $"+itoa64(int64(len(args))))
	}
	q := `SELECT ` + sessionColumns + ` FROM managed_sessions`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 500
	}
	args = append(args, limit)
	q += " ORDER BY started_at DESC, row DESC LIMIT $" + itoa64(int64(len(args)))
	out := []*desk.Session{}
	err := eachRow(ctx, db.pool, q, args, func(rs pgx.Rows) error {
		s, _, err := scanSession(rs)
		if err != nil {
			return err
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// UpdateSession changes a managed session and appends its feed row. The
// row is read FOR UPDATE, so two replicas noticing one exit with IfState
// record it once.
func (db *DB) UpdateSession(ctx context.Context, id string, u desk.SessionUpdate) (*desk.Session, error) {
	var out *desk.Session
	err := db.update(ctx, func(tx *Tx) error {
		s, row, err := scanSession(tx.queryRow(`SELECT `+sessionColumns+` FROM managed_sessions WHERE id = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return noSession(id)
		} else if err != nil {
			return err
		}
		if u.IfState != "" && s.State != u.IfState {
			return desk.Errorf(desk.Conflict, "session %s is %s, not %s", id, s.State, u.IfState)
		}
		applySessionUpdate(s, u)
		s.UpdatedAt = tx.now
		var code any
		if s.ExitCode != nil {
			code = *s.ExitCode
		}
		if err := tx.exec(`UPDATE managed_sessions SET name = $1, project = $2, command = $3, pid = $4, state = $5, exit_code = $6,
			exit_reason = $7, started_at = $8, ended_at = $9, resume_id = $10, generation = $11, hooks = $12, note = $13, updated_at = $14
			WHERE row = $15`,
			s.Name, s.Project, jsonList(s.Command), s.PID, s.State, code, s.ExitReason, sessionTime(s.StartedAt),
			sessionTime(s.EndedAt), s.ResumeID, s.Generation, s.Hooks, s.Note, tx.ts, row); err != nil {
			return err
		}
		out = s
		tx.feed(desk.Change{Project: s.Project, Type: desk.ChangeSession, ID: row, Action: "updated", Actor: s.ID}, 0)
		return nil
	})
	return out, err
}

// applySessionUpdate sets the fields u names.
func applySessionUpdate(s *desk.Session, u desk.SessionUpdate) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	set(&s.Name, u.Name)
	set(&s.State, u.State)
	set(&s.ExitReason, u.ExitReason)
	set(&s.ResumeID, u.ResumeID)
	set(&s.Project, u.Project)
	set(&s.Note, u.Note)
	set(&s.Hooks, u.Hooks)
	if u.PID != nil {
		s.PID = *u.PID
	}
	if u.ExitCode != nil {
		s.ExitCode = *u.ExitCode
	}
	if u.EndedAt != nil {
		s.EndedAt = *u.EndedAt
	}
	if u.StartedAt != nil {
		s.StartedAt = *u.StartedAt
	}
	if u.Generation != nil {
		s.Generation = *u.Generation
	}
	if u.Command != nil {
		s.Command = *u.Command
	}
}

// AgentByLaunch returns the agent session the server last saved for a
// managed launch (its hooks carry DESK_SESSION_ID), the most recently
// updated one; false when there is none.
func (db *DB) AgentByLaunch(ctx context.Context, launch string) (json.RawMessage, bool, error) {
	var snap string
	err := db.pool.QueryRow(ctx, `SELECT snapshot FROM agent_sessions
		WHERE snapshot::jsonb ->> 'launch' = $1 ORDER BY updated_at DESC LIMIT 1`, launch).Scan(&snap)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return json.RawMessage(snap), true, nil
}
