package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"

	"desk"
)

// migrationSessions adds the records of managed sessions: the agents and
// shells desk launched in terminals of its own (package session).
const migrationSessions = `
CREATE TABLE managed_sessions (
	row         INTEGER PRIMARY KEY,
	id          TEXT NOT NULL UNIQUE,
	kind        TEXT NOT NULL,
	name        TEXT NOT NULL DEFAULT '',
	cwd         TEXT NOT NULL,
	project     TEXT NOT NULL DEFAULT '',
	command     TEXT NOT NULL DEFAULT '[]',
	args        TEXT NOT NULL DEFAULT '[]',
	pid         INTEGER NOT NULL DEFAULT 0,
	state       TEXT NOT NULL,
	exit_code   INTEGER,
	exit_reason TEXT NOT NULL DEFAULT '',
	started_at  TEXT NOT NULL,
	ended_at    TEXT NOT NULL DEFAULT '',
	resume_id   TEXT NOT NULL DEFAULT '',
	generation  INTEGER NOT NULL DEFAULT 1,
	bypass      INTEGER NOT NULL DEFAULT 0,
	profile     TEXT NOT NULL DEFAULT '',
	hooks       TEXT NOT NULL DEFAULT '',
	note        TEXT NOT NULL DEFAULT '',
	updated_at  TEXT NOT NULL
);
CREATE INDEX managed_sessions_state ON managed_sessions(state, started_at);
`

var _ desk.SessionService = (*DB)(nil)

const sessionColumns = `row, id, kind, name, cwd, project, command, args, pid, state, exit_code, exit_reason,
	started_at, ended_at, resume_id, generation, bypass, profile, hooks, note, updated_at`

func scanSession(sc scanner) (*desk.Session, int64, error) {
	var s desk.Session
	var row int64
	var command, args, started, ended, updated string
	var code sql.NullInt64
	var bypass int
	err := sc.Scan(&row, &s.ID, &s.Kind, &s.Name, &s.Cwd, &s.Project, &command, &args, &s.PID, &s.State, &code,
		&s.ExitReason, &started, &ended, &s.ResumeID, &s.Generation, &bypass, &s.Profile, &s.Hooks, &s.Note, &updated)
	if err != nil {
		return nil, 0, err
	}
	json.Unmarshal([]byte(command), &s.Command)
	json.Unmarshal([]byte(args), &s.Args)
	if code.Valid {
		c := int(code.Int64)
		s.ExitCode = &c
	}
	s.Bypass = bypass != 0
	s.StartedAt, _ = desk.ParseTime(started)
	if ended != "" {
		s.EndedAt, _ = desk.ParseTime(ended)
	}
	s.UpdatedAt, _ = desk.ParseTime(updated)
	return &s, row, nil
}

// CreateSession stores a new managed session with its feed row.
func (db *DB) CreateSession(ctx context.Context, s *desk.Session) error {
	if s.ID == "" || s.Kind == "" || s.State == "" {
		return desk.Errorf(desk.Invalid, "a session record needs an id, a kind and a state")
	}
	return db.update(ctx, func(tx *Tx) error {
		if s.StartedAt.IsZero() {
			s.StartedAt = tx.now
		}
		s.UpdatedAt = tx.now
		var code any
		if s.ExitCode != nil {
			code = *s.ExitCode
		}
		res, err := tx.exec(`INSERT INTO managed_sessions (id, kind, name, cwd, project, command, args, pid, state,
			exit_code, exit_reason, started_at, ended_at, resume_id, generation, bypass, profile, hooks, note, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			s.ID, s.Kind, s.Name, s.Cwd, s.Project, desk.SessionColumnList(s.Command), desk.SessionColumnList(s.Args), s.PID, s.State,
			code, s.ExitReason, desk.SessionColumnTime(s.StartedAt), desk.SessionColumnTime(s.EndedAt), s.ResumeID, s.Generation,
			boolInt(s.Bypass), s.Profile, s.Hooks, s.Note, tx.ts)
		if isUnique(err) {
			return desk.Errorf(desk.Conflict, "a session %s exists already", s.ID)
		} else if err != nil {
			return err
		}
		row, _ := res.LastInsertId()
		return tx.feed(desk.Change{Project: s.Project, Type: desk.ChangeSession, ID: row, Action: "created", Actor: s.ID}, 0)
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Session returns one managed session.
func (db *DB) Session(ctx context.Context, id string) (*desk.Session, error) {
	s, _, err := scanSession(db.read.QueryRowContext(ctx, `SELECT `+sessionColumns+` FROM managed_sessions WHERE id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, desk.NoSession(id)
	}
	return s, err
}

// Sessions lists managed sessions, newest first.
func (db *DB) Sessions(ctx context.Context, f desk.SessionFilter) ([]*desk.Session, error) {
	var where []string
	var args []any
	if !f.All {
		where = append(where, "state = ?")
		args = append(args, desk.SessionRunning)
	}
	if f.Kind != "" {
		where = append(where, "kind = ?")
		args = append(args, f.Kind)
	}
	q := `SELECT ` + sessionColumns + ` FROM managed_sessions`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 500
	}
	q += " ORDER BY started_at DESC, row DESC LIMIT ?"
	args = append(args, limit)
	rows, err := db.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*desk.Session{}
	for rows.Next() {
		s, _, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// UpdateSession changes a managed session and appends its feed row.
func (db *DB) UpdateSession(ctx context.Context, id string, u desk.SessionUpdate) (*desk.Session, error) {
	var out *desk.Session
	err := db.update(ctx, func(tx *Tx) error {
		s, row, err := scanSession(tx.queryRow(`SELECT `+sessionColumns+` FROM managed_sessions WHERE id = ?`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return desk.NoSession(id)
		} else if err != nil {
			return err
		}
		if err := u.Apply(s); err != nil {
			return err
		}
		s.UpdatedAt = tx.now
		var code any
		if s.ExitCode != nil {
			code = *s.ExitCode
		}
		_, err = tx.exec(`UPDATE managed_sessions SET name = ?, project = ?, command = ?, pid = ?, state = ?, exit_code = ?,
			exit_reason = ?, started_at = ?, ended_at = ?, resume_id = ?, generation = ?, hooks = ?, note = ?, updated_at = ?
			WHERE row = ?`,
			s.Name, s.Project, desk.SessionColumnList(s.Command), s.PID, s.State, code, s.ExitReason, desk.SessionColumnTime(s.StartedAt),
			desk.SessionColumnTime(s.EndedAt), s.ResumeID, s.Generation, s.Hooks, s.Note, tx.ts, row)
		if err != nil {
			return err
		}
		out = s
		return tx.feed(desk.Change{Project: s.Project, Type: desk.ChangeSession, ID: row, Action: "updated", Actor: s.ID}, 0)
	})
	return out, err
}

// AgentByLaunch returns the agent session the server last saved for a
// managed launch (its hooks carry DESK_SESSION_ID), the most recently
// updated one; false when there is none.
func (db *DB) AgentByLaunch(ctx context.Context, launch string) (json.RawMessage, bool, error) {
	var snap string
	err := db.read.QueryRowContext(ctx, `SELECT snapshot FROM agent_sessions
		WHERE json_extract(snapshot, '$.launch') = ? ORDER BY updated_at DESC LIMIT 1`, launch).Scan(&snap)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	return json.RawMessage(snap), true, nil
}
