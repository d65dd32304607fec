package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"desk"

	"github.com/jackc/pgx/v5"
)

var _ desk.SessionService = (*DB)(nil)

const sessionColumns = `"row", id, kind, name, cwd, project, command, args, pid, state, exit_code, exit_reason,
	started_at, ended_at, resume_id, generation, bypass, profile, hooks, note, updated_at`

func scanSession(sc pgx.Row) (*desk.Session, int64, error) {
	var s desk.Session
	var row int64
	var command, args, started, ended, updated string
	var code *int
	err := sc.Scan(&row, &s.ID, &s.Kind, &s.Name, &s.Cwd, &s.Project, &command, &args, &s.PID, &s.State, &code,
		&s.ExitReason, &started, &ended, &s.ResumeID, &s.Generation, &s.Bypass, &s.Profile, &s.Hooks, &s.Note, &updated)
	if err != nil {
		return nil, 0, err
	}
	json.Unmarshal([]byte(command), &s.Command)
	json.Unmarshal([]byte(args), &s.Args)
	s.ExitCode = code
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
		var row int64
		err := tx.queryRow(`INSERT INTO managed_sessions (id, kind, name, cwd, project, command, args, pid, state,
			exit_code, exit_reason, started_at, ended_at, resume_id, generation, bypass, profile, hooks, note, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20) RETURNING "row"`,
			s.ID, s.Kind, s.Name, s.Cwd, s.Project, desk.SessionColumnList(s.Command), desk.SessionColumnList(s.Args), s.PID, s.State,
			s.ExitCode, s.ExitReason, desk.SessionColumnTime(s.StartedAt), desk.SessionColumnTime(s.EndedAt), s.ResumeID, s.Generation,
			s.Bypass, s.Profile, s.Hooks, s.Note, tx.ts).Scan(&row)
		if isUnique(err) {
			return desk.Errorf(desk.Conflict, "a session %s exists already", s.ID)
		} else if err != nil {
			return err
		}
		tx.feed(desk.Change{Project: s.Project, Type: desk.ChangeSession, ID: row, Action: "created", Actor: s.ID}, 0)
		return nil
	})
}

// Session returns one managed session.
func (db *DB) Session(ctx context.Context, id string) (*desk.Session, error) {
	s, _, err := scanSession(db.pool.QueryRow(ctx, `SELECT `+sessionColumns+` FROM managed_sessions WHERE id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, desk.NoSession(id)
	}
	return s, err
}

// Sessions lists managed sessions, newest first.
func (db *DB) Sessions(ctx context.Context, f desk.SessionFilter) ([]*desk.Session, error) {
	var where []string
	var args sqlArgs
	if !f.All {
		where = append(where, "state = "+args.add(desk.SessionRunning))
	}
	if f.Kind != "" {
		where = append(where, "kind = "+args.add(f.Kind))
	}
	q := `SELECT ` + sessionColumns + ` FROM managed_sessions`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 500
	}
	q += ` ORDER BY started_at DESC, "row" DESC LIMIT ` + args.add(limit)
	out := []*desk.Session{}
	err := eachRow(ctx, db.pool, q, args, func(rs pgx.Rows) error {
		s, _, err := scanSession(rs)
		if err == nil {
			out = append(out, s)
		}
		return err
	})
	return out, err
}

// UpdateSession changes a managed session (desk.SessionUpdate.Apply) and
// appends its feed row.
func (db *DB) UpdateSession(ctx context.Context, id string, u desk.SessionUpdate) (*desk.Session, error) {
	var out *desk.Session
	err := db.update(ctx, func(tx *Tx) error {
		s, row, err := scanSession(tx.queryRow(`SELECT `+sessionColumns+` FROM managed_sessions WHERE id = $1 FOR UPDATE`, id))
		if errors.Is(err, pgx.ErrNoRows) {
			return desk.NoSession(id)
		} else if err != nil {
			return err
		}
		if err := u.Apply(s); err != nil {
			return err
		}
		s.UpdatedAt = tx.now
		err = tx.exec(`UPDATE managed_sessions SET name = $1, project = $2, command = $3, pid = $4, state = $5, exit_code = $6,
			exit_reason = $7, started_at = $8, ended_at = $9, resume_id = $10, generation = $11, hooks = $12, note = $13, updated_at = $14
			WHERE "row" = $15`,
			s.Name, s.Project, desk.SessionColumnList(s.Command), s.PID, s.State, s.ExitCode, s.ExitReason, desk.SessionColumnTime(s.StartedAt),
			desk.SessionColumnTime(s.EndedAt), s.ResumeID, s.Generation, s.Hooks, s.Note, tx.ts, row)
		if err != nil {
			return err
		}
		out = s
		tx.feed(desk.Change{Project: s.Project, Type: desk.ChangeSession, ID: row, Action: "updated", Actor: s.ID}, 0)
		return nil
	})
	return out, err
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
