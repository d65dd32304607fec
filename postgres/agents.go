package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"desk"
	"desk/agent"

	"github.com/jackc/pgx/v5"
)

// metaAgentGeneration is the meta key holding the generation of the server
// that tracks agents now.
const metaAgentGeneration = "agent_generation"

// StartAgents makes the caller the server that tracks agents on this desk.
func (db *DB) StartAgents(ctx context.Context) (int64, error) {
	var gen int64
	err := db.update(ctx, func(tx *Tx) error {
		var v string
		if err := tx.queryRow(`INSERT INTO meta (key, value) VALUES ($1, '1')
			ON CONFLICT (key) DO UPDATE SET value = (meta.value::bigint + 1)::text RETURNING value`, metaAgentGeneration).Scan(&v); err != nil {
			return err
		}
		var err error
		gen, err = strconv.ParseInt(v, 10, 64)
		return err
	})
	return gen, err
}

// AgentGeneration returns the generation of the server that tracks agents
// now (0 when none ever did).
func (db *DB) AgentGeneration(ctx context.Context) (int64, error) {
	var v string
	err := db.pool.QueryRow(ctx, `SELECT value FROM meta WHERE key = $1`, metaAgentGeneration).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}

// SaveAgents persists one batch in one transaction, with one agent feed row
// per session it changed.
func (db *DB) SaveAgents(ctx context.Context, b agent.Batch) error {
	return db.update(ctx, func(tx *Tx) error {
		var v string
		err := tx.queryRow(`SELECT value FROM meta WHERE key = $1`, metaAgentGeneration).Scan(&v)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if cur, _ := strconv.ParseInt(v, 10, 64); cur != b.Generation {
			return desk.Errorf(desk.Conflict, "agent generation %d is over: a newer server (generation %d) tracks agents on this desk", b.Generation, cur)
		}
		rows := map[string]int64{}
		feed := map[string]desk.Change{}
		var order []string
		for i := range b.Sessions {
			s := &b.Sessions[i]
			id, err := tx.upsertAgent(s)
			if err != nil {
				return err
			}
			rows[s.ID] = id
			if _, seen := feed[s.ID]; !seen {
				order = append(order, s.ID)
			}
			feed[s.ID] = desk.Change{Project: s.Project, Type: desk.ChangeAgent, ID: id, Action: "updated", Actor: s.ID}
		}
		for _, e := range b.Events {
			id, ok := rows[e.Session]
			if !ok {
				if id, err = tx.agentRow(e.Session); desk.ErrorCode(err) == desk.NotFound {
					continue
				} else if err != nil {
					return err
				}
				rows[e.Session] = id
			}
			if err := tx.insertAgentEvent(id, &e.Event); err != nil {
				return err
			}
		}
		for _, m := range b.Merged {
			from, err := tx.agentRow(m.From)
			if desk.ErrorCode(err) == desk.NotFound {
				continue
			} else if err != nil {
				return err
			}
			into, err := tx.agentRow(m.Into)
			if desk.ErrorCode(err) == desk.NotFound {
				continue
			} else if err != nil {
				return err
			}
			for _, q := range []string{
				`UPDATE agent_events SET session_id = $1 WHERE session_id = $2`,
				`UPDATE agent_session_issues SET session_id = $1 WHERE session_id = $2`,
				`UPDATE agent_session_keys SET session_id = $1 WHERE session_id = $2`,
			} {
				if err := tx.exec(q, into, from); err != nil {
					return err
				}
			}
			if err := tx.exec(`DELETE FROM agent_sessions WHERE id = $1`, from); err != nil {
				return err
			}
			if _, seen := feed[m.From]; !seen {
				order = append(order, m.From)
			}
			c := feed[m.From]
			feed[m.From] = desk.Change{Project: c.Project, Type: desk.ChangeAgent, ID: from, Action: "removed", Actor: m.From}
		}
		for _, m := range b.Matched {
			id, err := tx.agentRow(m.Session)
			if desk.ErrorCode(err) == desk.NotFound {
				continue
			} else if err != nil {
				return err
			}
			if err := tx.exec(`UPDATE agent_session_issues SET session_id = $1 WHERE id = $2 AND session_id IS NULL`, id, m.Touch); err != nil {
				return err
			}
		}
		for _, sid := range order {
			tx.feed(feed[sid], 0)
		}
		return nil
	})
}

func (tx *Tx) upsertAgent(s *agent.Session) (int64, error) {
	snap := *s
	snap.Events = nil
	b, err := json.Marshal(snap)
	if err != nil {
		return 0, err
	}
	var id int64
	err = tx.queryRow(`INSERT INTO agent_sessions (session, client, provider_id, parent, project, cwd, state, since, started_at, updated_at, snapshot)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
		ON CONFLICT (session) DO UPDATE SET client = excluded.client, provider_id = excluded.provider_id,
			parent = excluded.parent, project = excluded.project, cwd = excluded.cwd, state = excluded.state,
			since = excluded.since, started_at = excluded.started_at, updated_at = excluded.updated_at,
			snapshot = excluded.snapshot
		RETURNING id`,
		s.ID, s.Client, s.ProviderID, s.Parent, s.Project, s.Cwd, string(s.State),
		agentTime(s.Since), agentTime(s.StartedAt), agentTime(s.UpdatedAt), string(b)).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("save agent session %s: %w", s.ID, err)
	}
	for _, p := range append([]string{s.ProviderID}, s.Aliases...) {
		if p == "" {
			continue
		}
		if err := tx.exec(`INSERT INTO agent_session_keys (client, provider_id, session_id) VALUES ($1, $2, $3)
			ON CONFLICT (client, provider_id) DO UPDATE SET session_id = excluded.session_id
			WHERE agent_session_keys.session_id != excluded.session_id`, s.Client, p, id); err != nil {
			return 0, err
		}
	}
	return id, nil
}

func (tx *Tx) insertAgentEvent(session int64, e *agent.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return tx.exec(`INSERT INTO agent_events (session_id, client, at, kind, source, late, event) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		session, e.Client, agentTime(e.Time), string(e.Kind), string(e.Source), e.Late, string(b))
}

// TrimAgentEvents keeps the latest agent.EventsKept events of each listed
// session and deletes the older ones.
func (db *DB) TrimAgentEvents(ctx context.Context, sessions []string) error {
	if len(sessions) == 0 {
		return nil
	}
	return db.update(ctx, func(tx *Tx) error {
		for _, s := range sessions {
			id, err := tx.agentRow(s)
			if desk.ErrorCode(err) == desk.NotFound {
				continue
			} else if err != nil {
				return err
			}
			if err := tx.exec(`DELETE FROM agent_events WHERE session_id = $1 AND id <
				(SELECT id FROM agent_events WHERE session_id = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)`,
				id, agent.EventsKept-1); err != nil {
				return err
			}
		}
		return nil
	})
}

func (tx *Tx) agentRow(session string) (int64, error) {
	var id int64
	err := tx.queryRow(`SELECT id FROM agent_sessions WHERE session = $1`, session).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, notFound("no agent session %q", session)
	}
	return id, err
}

// LoadAgents returns the sessions a starting server restores.
func (db *DB) LoadAgents(ctx context.Context, since time.Time, limit int) ([]agent.Session, error) {
	var out []agent.Session
	err := db.view(ctx, func(q querier) error {
		var ids []int64
		err := eachRow(ctx, q, `SELECT id, snapshot FROM agent_sessions WHERE updated_at >= $1 ORDER BY updated_at DESC LIMIT $2`,
			[]any{agentTime(since), limit}, func(rs pgx.Rows) error {
				var id int64
				var snap string
				if err := rs.Scan(&id, &snap); err != nil {
					return err
				}
				var s agent.Session
				if json.Unmarshal([]byte(snap), &s) != nil {
					return nil // a snapshot this desk cannot read is not worth failing a start for
				}
				out = append(out, s)
				ids = append(ids, id)
				return nil
			})
		if err != nil {
			return err
		}
		for i, id := range ids {
			if err := agentDetails(ctx, q, id, &out[i]); err != nil {
				return err
			}
		}
		return nil
	})
	return out, err
}

// LoadAgent returns one session as the store keeps it, with its recent
// events and the issues it touched; false when the store has none of that
// id (or cannot read its snapshot). A replica calls it for every agent row
// of the feed, so that its picture follows what the others saved.
func (db *DB) LoadAgent(ctx context.Context, session string) (agent.Session, bool, error) {
	var s agent.Session
	found := false
	err := db.view(ctx, func(q querier) error {
		var id int64
		var snap string
		err := q.QueryRow(ctx, `SELECT id, snapshot FROM agent_sessions WHERE session = $1`, session).Scan(&id, &snap)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		if json.Unmarshal([]byte(snap), &s) != nil {
			return nil
		}
		found = true
		return agentDetails(ctx, q, id, &s)
	})
	return s, found, err
}

// agentDetails adds to s, the session of row id, its recent events
// (without their payloads) and the issues it touched.
func agentDetails(ctx context.Context, q querier, id int64, s *agent.Session) error {
	var err error
	if s.Events, err = agentEvents(ctx, q, id, agent.RecentEvents, false); err != nil {
		return err
	}
	return eachRow(ctx, q, `SELECT issue FROM agent_session_issues WHERE session_id = $1 ORDER BY id`, []any{id}, func(rs pgx.Rows) error {
		var is string
		if err := rs.Scan(&is); err != nil {
			return err
		}
		if !slices.Contains(s.Issues, is) {
			s.Issues = append(s.Issues, is)
		}
		return nil
	})
}

// AgentEvents returns a session's last n events, oldest first, with their
// raw payloads.
func (db *DB) AgentEvents(ctx context.Context, session string, n int) ([]agent.Event, error) {
	var out []agent.Event
	err := db.view(ctx, func(q querier) error {
		var id int64
		err := q.QueryRow(ctx, `SELECT id FROM agent_sessions WHERE session = $1`, session).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("no agent session %q", session)
		} else if err != nil {
			return err
		}
		out, err = agentEvents(ctx, q, id, n, true)
		return err
	})
	return out, err
}

func agentEvents(ctx context.Context, q querier, session int64, n int, raw bool) ([]agent.Event, error) {
	var out []agent.Event
	err := eachRow(ctx, q, `SELECT event FROM agent_events WHERE session_id = $1 ORDER BY id DESC LIMIT $2`, []any{session, n}, func(rs pgx.Rows) error {
		var b string
		if err := rs.Scan(&b); err != nil {
			return err
		}
		var e agent.Event
		if json.Unmarshal([]byte(b), &e) != nil {
			return nil
		}
		if !raw {
			e.Raw = nil
		}
		out = append(out, e)
		return nil
	})
	slices.Reverse(out)
	return out, err
}

// AgentTouched records that an agent touched an issue through desk's MCP
// tools (see agent.Store).
func (db *DB) AgentTouched(ctx context.Context, client, provider, cwd, issue string) error {
	if strings.TrimSpace(issue) == "" {
		return desk.Errorf(desk.Invalid, "agent touch: no issue")
	}
	if provider == "" && cwd == "" {
		return desk.Errorf(desk.Invalid, "agent touch of %s: no session id and no folder to find the session by", issue)
	}
	return db.update(ctx, func(tx *Tx) error {
		r, _, err := resolve(tx.ctx, tx, issue)
		if err != nil {
			return err
		}
		var session *int64
		var record string
		if provider != "" && client != "" {
			var sid int64
			err := tx.queryRow(`SELECT k.session_id, s.session FROM agent_session_keys k JOIN agent_sessions s ON s.id = k.session_id
				WHERE k.client = $1 AND k.provider_id = $2`, client, provider).Scan(&sid, &record)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			if err == nil {
				session = &sid
			}
		}
		var id int64
		if err := tx.queryRow(`INSERT INTO agent_session_issues (session_id, client, provider_id, cwd, project, issue, at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, session, client, provider, cwd, r.Project, r.ID, tx.ts).Scan(&id); err != nil {
			return err
		}
		key := r.ID
		tx.feed(desk.Change{Project: r.Project, Issue: &key, Type: desk.ChangeAgent, ID: id, Action: "touched", Actor: record}, 0)
		return nil
	})
}

// AgentTouchesAfter returns the issue touches recorded after touch after,
// oldest first, at most 1000.
func (db *DB) AgentTouchesAfter(ctx context.Context, after int64) ([]*agent.Touch, error) {
	return db.agentTouches(ctx, `t.id > $1`, after)
}

// LastAgentTouch returns the id of the latest issue touch, 0 for none.
func (db *DB) LastAgentTouch(ctx context.Context) (int64, error) {
	var id int64
	err := db.pool.QueryRow(ctx, `SELECT coalesce(max(id), 0) FROM agent_session_issues`).Scan(&id)
	return id, err
}

// UnmatchedAgentTouches returns the touches not yet tied to a session, made
// at or after since, oldest first.
func (db *DB) UnmatchedAgentTouches(ctx context.Context, since time.Time) ([]*agent.Touch, error) {
	return db.agentTouches(ctx, `t.session_id IS NULL AND t.at >= $1`, agentTime(since))
}

func (db *DB) agentTouches(ctx context.Context, where string, arg any) ([]*agent.Touch, error) {
	var out []*agent.Touch
	err := eachRow(ctx, db.pool, `SELECT t.id, coalesce(s.session, ''), t.client, t.provider_id, t.cwd, t.project, t.issue, t.at
		FROM agent_session_issues t LEFT JOIN agent_sessions s ON s.id = t.session_id WHERE `+where+` ORDER BY t.id LIMIT 1000`,
		[]any{arg}, func(rs pgx.Rows) error {
			var t agent.Touch
			var at string
			if err := rs.Scan(&t.ID, &t.Session, &t.Client, &t.Provider, &t.Cwd, &t.Project, &t.Issue, &at); err != nil {
				return err
			}
			t.At, _ = desk.ParseTime(at)
			out = append(out, &t)
			return nil
		})
	return out, err
}

// AgentLastSeen returns, per client, when its hooks last reached the store.
func (db *DB) AgentLastSeen(ctx context.Context) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	err := eachRow(ctx, db.pool, `SELECT client, max(at) FROM agent_events WHERE source = 'hook' GROUP BY client`, nil, func(rs pgx.Rows) error {
		var client, at string
		if err := rs.Scan(&client, &at); err != nil {
			return err
		}
		if t, err := desk.ParseTime(at); err == nil {
			out[client] = t
		}
		return nil
	})
	return out, err
}

// PruneAgents deletes sessions last heard of before before, with their
// events and touches; unmatched touches made before then; and the agent
// rows of the feed written before then.
func (db *DB) PruneAgents(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := db.update(ctx, func(tx *Tx) error {
		ts := agentTime(before)
		tag, err := tx.tx.Exec(ctx, `DELETE FROM agent_sessions WHERE updated_at < $1`, ts)
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		if err := tx.exec(`DELETE FROM agent_session_issues WHERE session_id IS NULL AND at < $1`, ts); err != nil {
			return err
		}
		return tx.exec(`DELETE FROM changes WHERE type = $1 AND created_at < $2`, desk.ChangeAgent, ts)
	})
	return int(n), err
}

// agentTime renders t in desk's layout; the zero time is "".
func agentTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return desk.FormatTime(t)
}

// compile-time check that DB keeps the agent sessions.
var _ agent.Store = (*DB)(nil)
