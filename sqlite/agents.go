package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"desk"
	"desk/agent"
)

// The agent store's types are the agent package's (agent.Store); these
// names stay for the callers that know them from here.
type (
	AgentBatch = agent.Batch
	AgentEvent = agent.StoredEvent
	AgentMerge = agent.Merge
	AgentMatch = agent.Match
	AgentTouch = agent.Touch
)

// AgentEventsKept is agent.EventsKept.
const AgentEventsKept = agent.EventsKept

// metaAgentGeneration is the meta key holding the generation of the server
// that tracks agents now.
const metaAgentGeneration = "agent_generation"

// StartAgents makes the caller the server that tracks agents on this desk:
// it returns a new generation, and batches saved under any older one are
// refused from now on.
func (db *DB) StartAgents(ctx context.Context) (int64, error) {
	var gen int64
	err := db.update(ctx, func(tx *Tx) error {
		var v string
		err := tx.queryRow(`INSERT INTO meta (key, value) VALUES (?, '1')
			ON CONFLICT (key) DO UPDATE SET value = CAST(CAST(value AS INTEGER) + 1 AS TEXT)
			RETURNING value`, metaAgentGeneration).Scan(&v)
		if err != nil {
			return err
		}
		gen, err = strconv.ParseInt(v, 10, 64)
		return err
	})
	return gen, err
}

// AgentGeneration returns the generation of the server that tracks agents
// now (0 when none ever did).
func (db *DB) AgentGeneration(ctx context.Context) (int64, error) {
	var v string
	err := db.read.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, metaAgentGeneration).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	} else if err != nil {
		return 0, err
	}
	return strconv.ParseInt(v, 10, 64)
}

// SaveAgents persists one batch in one transaction, with one agent feed row
// per session it changed (ID the session's row, Actor its record id,
// Action "updated", or "removed" for a merged record).
func (db *DB) SaveAgents(ctx context.Context, b AgentBatch) error {
	return db.update(ctx, func(tx *Tx) error {
		var v string
		err := tx.queryRow(`SELECT value FROM meta WHERE key = ?`, metaAgentGeneration).Scan(&v)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
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
				// An event of a session this batch does not carry: it was
				// saved before, or it is gone and so is its history.
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
				`UPDATE agent_events SET session_id = ? WHERE session_id = ?`,
				`UPDATE agent_session_issues SET session_id = ? WHERE session_id = ?`,
				`UPDATE agent_session_keys SET session_id = ? WHERE session_id = ?`,
			} {
				if _, err := tx.exec(q, into, from); err != nil {
					return err
				}
			}
			if _, err := tx.exec(`DELETE FROM agent_sessions WHERE id = ?`, from); err != nil {
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
				continue // the session is gone; the touch stays unmatched
			} else if err != nil {
				return err
			}
			if _, err := tx.exec(`UPDATE agent_session_issues SET session_id = ? WHERE id = ? AND session_id IS NULL`, id, m.Touch); err != nil {
				return err
			}
		}
		for _, sid := range order {
			if err := tx.feed(feed[sid], 0); err != nil {
				return err
			}
		}
		return nil
	})
}

// upsertAgent writes a session's snapshot and the provider ids that lead
// to it, and returns its row.
func (tx *Tx) upsertAgent(s *agent.Session) (int64, error) {
	snap := *s
	snap.Events = nil
	b, err := json.Marshal(snap)
	if err != nil {
		return 0, err
	}
	var id int64
	err = tx.queryRow(`INSERT INTO agent_sessions (session, client, provider_id, parent, project, cwd, state, since, started_at, updated_at, snapshot)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
		if _, err := tx.exec(`INSERT INTO agent_session_keys (client, provider_id, session_id) VALUES (?, ?, ?)
			ON CONFLICT (client, provider_id) DO UPDATE SET session_id = excluded.session_id
			WHERE session_id != excluded.session_id`, s.Client, p, id); err != nil {
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
	_, err = tx.exec(`INSERT INTO agent_events (session_id, client, at, kind, source, late, event) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		session, e.Client, agentTime(e.Time), string(e.Kind), string(e.Source), e.Late, string(b))
	return err
}

// TrimAgentEvents keeps the latest AgentEventsKept events of each listed
// session (record ids) and deletes the older ones. It is apart from
// SaveAgents so that a busy server trims a few times a second, not on
// every commit.
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
			if _, err := tx.exec(`DELETE FROM agent_events WHERE session_id = ?1 AND id <
				(SELECT id FROM agent_events WHERE session_id = ?1 ORDER BY id DESC LIMIT 1 OFFSET ?2)`,
				id, AgentEventsKept-1); err != nil {
				return err
			}
		}
		return nil
	})
}

// agentRow returns the row of a session record id.
func (tx *Tx) agentRow(session string) (int64, error) {
	var id int64
	err := tx.queryRow(`SELECT id FROM agent_sessions WHERE session = ?`, session).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, notFound("no agent session %q", session)
	}
	return id, err
}

// LoadAgents returns the sessions a starting server restores: those
// updated since since, the most recently updated first, at most limit,
// each with its last agent.RecentEvents events (raw payloads left out) and
// every issue it touched.
func (db *DB) LoadAgents(ctx context.Context, since time.Time, limit int) ([]agent.Session, error) {
	var out []agent.Session
	err := db.view(ctx, func(tx *readTx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, snapshot FROM agent_sessions
			WHERE updated_at >= ? ORDER BY updated_at DESC LIMIT ?`, agentTime(since), limit)
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			var snap string
			if err := rows.Scan(&id, &snap); err != nil {
				rows.Close()
				return err
			}
			var s agent.Session
			if err := json.Unmarshal([]byte(snap), &s); err != nil {
				continue // a snapshot this desk cannot read is not worth failing a start for
			}
			out = append(out, s)
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for i, id := range ids {
			if out[i].Events, err = agentEvents(ctx, tx, id, agent.RecentEvents, false); err != nil {
				return err
			}
			issues, err := agentIssues(ctx, tx, id)
			if err != nil {
				return err
			}
			for _, is := range issues {
				if !slices.Contains(out[i].Issues, is) {
					out[i].Issues = append(out[i].Issues, is)
				}
			}
		}
		return nil
	})
	return out, err
}

// AgentEvents returns a session's last n events, oldest first, with their
// raw payloads.
func (db *DB) AgentEvents(ctx context.Context, session string, n int) ([]agent.Event, error) {
	var out []agent.Event
	err := db.view(ctx, func(tx *readTx) error {
		var id int64
		err := tx.QueryRowContext(ctx, `SELECT id FROM agent_sessions WHERE session = ?`, session).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound("no agent session %q", session)
		} else if err != nil {
			return err
		}
		out, err = agentEvents(ctx, tx, id, n, true)
		return err
	})
	return out, err
}

func agentEvents(ctx context.Context, q queryer, session int64, n int, raw bool) ([]agent.Event, error) {
	rows, err := q.QueryContext(ctx, `SELECT event FROM agent_events WHERE session_id = ? ORDER BY id DESC LIMIT ?`, session, n)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []agent.Event
	for rows.Next() {
		var b string
		if err := rows.Scan(&b); err != nil {
			return nil, err
		}
		var e agent.Event
		if json.Unmarshal([]byte(b), &e) != nil {
			continue
		}
		if !raw {
			e.Raw = nil
		}
		out = append(out, e)
	}
	slices.Reverse(out)
	return out, rows.Err()
}

func agentIssues(ctx context.Context, q queryer, session int64) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT issue FROM agent_session_issues WHERE session_id = ? ORDER BY id`, session)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// AgentTouched records that an agent touched an issue through desk's MCP
// tools. client is desk's name for the agent CLI ("" when unknown), provider
// the session id the client gave its MCP server (CLAUDE_CODE_SESSION_ID; ""
// when none), cwd the folder the agent works in, issue the issue's key.
// The touch is matched to its session at once when the provider id is
// known here, else by the server (by folder and time); either way it
// appends an agent feed row with Action "touched", ID the touch and Issue
// the issue, so the running server hears of it.
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
		var session sql.NullInt64
		var record string
		if provider != "" && client != "" {
			err := tx.queryRow(`SELECT k.session_id, s.session FROM agent_session_keys k JOIN agent_sessions s ON s.id = k.session_id
				WHERE k.client = ? AND k.provider_id = ?`, client, provider).Scan(&session, &record)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return err
			}
		}
		res, err := tx.exec(`INSERT INTO agent_session_issues (session_id, client, provider_id, cwd, project, issue, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
			session, client, provider, cwd, r.Project, r.ID, tx.ts)
		if err != nil {
			return err
		}
		id, _ := res.LastInsertId()
		key := r.ID
		return tx.feed(desk.Change{Project: r.Project, Issue: &key, Type: desk.ChangeAgent, ID: id, Action: "touched", Actor: record}, 0)
	})
}

// AgentTouchesAfter returns the issue touches recorded after touch after,
// oldest first, at most 1000, for a server to follow cheaply.
func (db *DB) AgentTouchesAfter(ctx context.Context, after int64) ([]*AgentTouch, error) {
	return db.agentTouches(ctx, `t.id > ?`, after)
}

// LastAgentTouch returns the id of the latest issue touch, 0 for none.
func (db *DB) LastAgentTouch(ctx context.Context) (int64, error) {
	var id int64
	err := db.read.QueryRowContext(ctx, `SELECT coalesce(max(id), 0) FROM agent_session_issues`).Scan(&id)
	return id, err
}

// UnmatchedAgentTouches returns the issue touches not yet tied to a session,
// made at or after since, oldest first.
func (db *DB) UnmatchedAgentTouches(ctx context.Context, since time.Time) ([]*AgentTouch, error) {
	return db.agentTouches(ctx, `t.session_id IS NULL AND t.at >= ?`, agentTime(since))
}

func (db *DB) agentTouches(ctx context.Context, where string, args ...any) ([]*AgentTouch, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT t.id, coalesce(s.session, ''), t.client, t.provider_id, t.cwd, t.project, t.issue, t.at
		FROM agent_session_issues t LEFT JOIN agent_sessions s ON s.id = t.session_id WHERE `+where+` ORDER BY t.id LIMIT 1000`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*AgentTouch
	for rows.Next() {
		var t AgentTouch
		var at string
		if err := rows.Scan(&t.ID, &t.Session, &t.Client, &t.Provider, &t.Cwd, &t.Project, &t.Issue, &at); err != nil {
			return nil, err
		}
		t.At, _ = desk.ParseTime(at)
		out = append(out, &t)
	}
	return out, rows.Err()
}

// AgentLastSeen returns, per client, when its hooks last reached the store.
func (db *DB) AgentLastSeen(ctx context.Context) (map[string]time.Time, error) {
	rows, err := db.read.QueryContext(ctx, `SELECT client, max(at) FROM agent_events WHERE source = 'hook' GROUP BY client`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var client, at string
		if err := rows.Scan(&client, &at); err != nil {
			return nil, err
		}
		if t, err := desk.ParseTime(at); err == nil {
			out[client] = t
		}
	}
	return out, rows.Err()
}

// PruneAgents deletes sessions last heard of before before, with their
// events and touches; touches never matched to a session made before then;
// and the agent rows of the change feed written before then, which every
// event adds and nothing replays that late.
func (db *DB) PruneAgents(ctx context.Context, before time.Time) (int, error) {
	var n int64
	err := db.update(ctx, func(tx *Tx) error {
		ts := agentTime(before)
		res, err := tx.exec(`DELETE FROM agent_sessions WHERE updated_at < ?`, ts)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		if _, err = tx.exec(`DELETE FROM agent_session_issues WHERE session_id IS NULL AND at < ?`, ts); err != nil {
			return err
		}
		// Feed rows are written in sequence, so the first one at or after
		// the cutoff bounds the old ones by sequence, and the delete walks
		// the primary key instead of the whole feed.
		_, err = tx.exec(`DELETE FROM changes WHERE type = ? AND seq < coalesce(
			(SELECT seq FROM changes WHERE created_at >= ? ORDER BY seq LIMIT 1),
			(SELECT max(seq) + 1 FROM changes))`, desk.ChangeAgent, ts)
		return err
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
