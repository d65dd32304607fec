package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"desk"
	"desk/pair"

	"github.com/jackc/pgx/v5"
)

// PairStore keeps the pairs in the team's database. Every rule of package
// pair runs in one transaction of the store's writes, which take the
// writers' lock as they begin, so the pair a rule reads is the one every
// replica committed last; every transcript entry appends a feed row of
// type pair in that transaction, and its notification is how a pair_read
// waiting on another replica hears of a letter. All the waits of one
// store share one follow of the feed.
type PairStore struct {
	db   *DB
	feed *follower
}

var _ pair.Store = (*PairStore)(nil)

// NewPairStore returns the pair store on db. Close it before db.
func NewPairStore(db *DB) *PairStore { return &PairStore{db: db, feed: newFollower(db)} }

// Close stops the store's follow of the feed; waits still running end.
func (s *PairStore) Close() { s.feed.close() }

// Watch calls fn with every batch of feed rows committed after seq after,
// by any replica, until ctx ends, through the store's one follow of the
// feed.
func (s *PairStore) Watch(ctx context.Context, after int64, fn func([]*desk.Change)) error {
	return s.feed.watch(ctx, after, fn)
}

// pairKey reads a pair's name ("p12") as its row id.
func pairKey(id string) (int64, error) {
	id = strings.TrimSpace(id)
	n, err := strconv.ParseInt(strings.TrimPrefix(id, "p"), 10, 64)
	if err != nil || n <= 0 || !strings.HasPrefix(id, "p") {
		return 0, desk.Errorf(desk.NotFound, "%q is not a pair: pairs are named like p3", id).
			WithHint("desk pair status lists the live pairs")
	}
	return n, nil
}

func pairName(rowid int64) string { return "p" + strconv.FormatInt(rowid, 10) }

// CreatePair makes a pair with its roster.
func (s *PairStore) CreatePair(ctx context.Context, n pair.NewPair, by string) (*pair.Pair, error) {
	var out *pair.Pair
	err := s.db.update(ctx, func(tx *Tx) error {
		proj, err := projectBySlug(ctx, tx, n.Project)
		if err != nil {
			return err
		}
		var rowid int64
		if err := tx.queryRow(`INSERT INTO pairs (project_id, folder, task, phase, mode, autonomy, autonomy_source, round, pinned_writer, budget, status, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, 1, $8, $9, $10, $11, $11) RETURNING id`,
			proj.id, n.Folder, n.Task, pair.PhaseScoping, n.Mode, n.Autonomy, n.AutonomySource, n.PinnedWriter, jsonText(n.Budget), pair.StatusLive, tx.ts).Scan(&rowid); err != nil {
			return err
		}
		for i, m := range n.Members {
			if err := tx.exec(`INSERT INTO pair_members (pair_id, role, position) VALUES ($1, $2, $3)`, rowid, m, i); err != nil {
				return err
			}
		}
		pt := &pairTx{ctx: ctx, q: tx, w: tx, rowid: rowid, now: tx.now}
		if pt.p, err = pt.load(); err != nil {
			return err
		}
		if err := pt.Log(pair.CreatedEvent(pt.p.ID, n, by)); err != nil {
			return err
		}
		out = pt.p
		return nil
	})
	return out, err
}

// Pairs lists pairs, newest first.
func (s *PairStore) Pairs(ctx context.Context, f pair.PairFilter) ([]*pair.Pair, error) {
	out := []*pair.Pair{}
	err := s.db.view(ctx, func(q querier) error {
		query := `SELECT p.id FROM pairs p JOIN projects pr ON pr.id = p.project_id WHERE true`
		var args []any
		arg := func(v any) string {
			args = append(args, v)
			return "$" + strconv.Itoa(len(args))
		}
		if f.Project != "" {
			query += ` AND pr.slug = ` + arg(f.Project)
		}
		if f.Live {
			query += ` AND p.status = ` + arg(pair.StatusLive)
		}
		if f.Folder != "" {
			query += ` AND p.folder = ` + arg(f.Folder)
		}
		var ids []int64
		err := eachRow(ctx, q, query+` ORDER BY p.id DESC LIMIT 500`, args, func(rs pgx.Rows) error {
			var id int64
			err := rs.Scan(&id)
			ids = append(ids, id)
			return err
		})
		if err != nil {
			return err
		}
		for _, id := range ids {
			pt := &pairTx{ctx: ctx, q: q, rowid: id}
			p, err := pt.load()
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// View runs fn in a read transaction on pair id: one snapshot for every
// read in it.
func (s *PairStore) View(ctx context.Context, id string, fn func(pair.ReadTx) error) error {
	rowid, err := pairKey(id)
	if err != nil {
		return err
	}
	return s.db.view(ctx, func(q querier) error {
		pt := &pairTx{ctx: ctx, q: q, rowid: rowid, now: s.db.now()}
		var err error
		if pt.p, err = pt.load(); err != nil {
			return err
		}
		return fn(pt)
	})
}

// Update runs fn in a write transaction on pair id.
func (s *PairStore) Update(ctx context.Context, id string, fn func(pair.Tx) error) error {
	rowid, err := pairKey(id)
	if err != nil {
		return err
	}
	return s.db.update(ctx, func(tx *Tx) error {
		pt := &pairTx{ctx: ctx, q: tx, w: tx, rowid: rowid, now: tx.now}
		var err error
		if pt.p, err = pt.load(); err != nil {
			return err
		}
		return fn(pt)
	})
}

// pairTx is one transaction on one pair: reads through q, writes (in an
// Update) through w.
type pairTx struct {
	ctx   context.Context
	q     querier
	w     *Tx // nil in a View
	rowid int64
	slug  string
	p     *pair.Pair
	now   time.Time
}

// load reads the pair and its roster.
func (pt *pairTx) load() (*pair.Pair, error) {
	p := &pair.Pair{ID: pairName(pt.rowid)}
	var budget string
	err := pt.q.QueryRow(pt.ctx, `SELECT pr.slug, p.folder, p.task, p.phase, p.mode, p.autonomy, p.autonomy_source, p.round, p.writer,
		p.writer_rationale, p.writer_since, p.pinned_writer, p.ok_round, p.budget, p.status, p.created_at, p.updated_at, p.stopped_at
		FROM pairs p JOIN projects pr ON pr.id = p.project_id WHERE p.id = $1`, pt.rowid).Scan(
		&p.Project, &p.Folder, &p.Task, &p.Phase, &p.Mode, &p.Autonomy, &p.AutonomySource, &p.Round, &p.Writer,
		&p.WriterRationale, &p.WriterSince, &p.PinnedWriter, &p.OKRound, &budget, &p.Status, &p.CreatedAt, &p.UpdatedAt, &p.StoppedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, desk.Errorf(desk.NotFound, "no pair %s", p.ID).WithHint("desk pair status lists the live pairs")
	}
	if err != nil {
		return nil, err
	}
	pt.slug = p.Project
	_ = json.Unmarshal([]byte(budget), &p.Budget)
	p.Members = []pair.Member{}
	err = eachRow(pt.ctx, pt.q, `SELECT role, instance_of, joined_at, last_seen, left_at, session, resume_id, last_nudge, acked, ack_token, ack_upto
		FROM pair_members WHERE pair_id = $1 ORDER BY position, role`, []any{pt.rowid}, func(rs pgx.Rows) error {
		var m pair.Member
		if err := rs.Scan(&m.Role, &m.Of, &m.JoinedAt, &m.LastSeen, &m.LeftAt, &m.Session, &m.ResumeID, &m.LastNudge, &m.Acked, &m.AckToken, &m.AckUpTo); err != nil {
			return err
		}
		p.Members = append(p.Members, m)
		return nil
	})
	return p, err
}

func (pt *pairTx) Now() time.Time   { return pt.now }
func (pt *pairTx) Pair() *pair.Pair { return pt.p }

// Seq is the newest feed row this transaction sees. Writers hold one lock
// from their first statement to their commit, so every row committed
// later has a greater seq.
func (pt *pairTx) Seq() (int64, error) {
	var seq int64
	err := pt.q.QueryRow(pt.ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&seq)
	return seq, err
}

// where builds a query's WHERE clause on the pair's rows, numbering its
// arguments.
type where struct {
	sql  string
	args []any
}

func (pt *pairTx) where() *where { return &where{sql: `pair_id = $1`, args: []any{pt.rowid}} }

// and adds "AND cond" with cond's ? standing for v.
func (w *where) and(cond string, v any) *where {
	w.args = append(w.args, v)
	w.sql += ` AND ` + strings.Replace(cond, "?", "$"+strconv.Itoa(len(w.args)), 1)
	return w
}

// limit appends a LIMIT of n, none when n <= 0.
func (w *where) limit(n int) string {
	if n <= 0 {
		return ""
	}
	w.args = append(w.args, n)
	return ` LIMIT $` + strconv.Itoa(len(w.args))
}

func (pt *pairTx) taskWhere(f pair.TaskFilter) *where {
	w := pt.where()
	if f.Round > 0 {
		w.and(`round = ?`, f.Round)
	}
	if f.State != "" {
		w.and(`state = ?`, f.State)
	}
	return w
}

const taskColumns = `n, text, state, round, added_by, added_at, closed_by, closed_at, reason`

func scanTask(s pgx.Row) (*pair.Task, error) {
	var t pair.Task
	err := s.Scan(&t.N, &t.Text, &t.State, &t.Round, &t.AddedBy, &t.AddedAt, &t.ClosedBy, &t.ClosedAt, &t.Reason)
	return &t, err
}

func (pt *pairTx) Tasks(f pair.TaskFilter) ([]pair.Task, error) {
	w := pt.taskWhere(f)
	q := `SELECT ` + taskColumns + ` FROM pair_tasks WHERE ` + w.sql + ` ORDER BY n`
	q += w.limit(f.Limit)
	var out []pair.Task
	err := eachRow(pt.ctx, pt.q, q, w.args, func(rs pgx.Rows) error {
		t, err := scanTask(rs)
		if err == nil {
			out = append(out, *t)
		}
		return err
	})
	return out, err
}

func (pt *pairTx) CountTasks(f pair.TaskFilter) (int, error) {
	w := pt.taskWhere(f)
	var n int
	err := pt.q.QueryRow(pt.ctx, `SELECT count(*) FROM pair_tasks WHERE `+w.sql, w.args...).Scan(&n)
	return n, err
}

func (pt *pairTx) Task(n int) (*pair.Task, error) {
	t, err := scanTask(pt.q.QueryRow(pt.ctx, `SELECT `+taskColumns+` FROM pair_tasks WHERE pair_id = $1 AND n = $2`, pt.rowid, n))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

const patchColumns = `n, path, role, state, round, summary, seal, size, files, note, reserved_at, sealed_at, verified_at, done_at, reported`

func scanPatch(s pgx.Row) (*pair.Patch, error) {
	var p pair.Patch
	var files string
	if err := s.Scan(&p.N, &p.Path, &p.Role, &p.State, &p.Round, &p.Summary, &p.Seal, &p.Size, &files, &p.Note,
		&p.ReservedAt, &p.SealedAt, &p.VerifiedAt, &p.DoneAt, &p.Reported); err != nil {
		return nil, err
	}
	_ = json.Unmarshal([]byte(files), &p.Files)
	return &p, nil
}

func (pt *pairTx) Patches(f pair.PatchFilter) ([]pair.Patch, error) {
	w := pt.where()
	if f.Round > 0 {
		w.and(`round = ?`, f.Round)
	}
	if len(f.States) > 0 {
		w.and(`state = ANY(?)`, f.States)
	}
	var out []pair.Patch
	err := eachRow(pt.ctx, pt.q, `SELECT `+patchColumns+` FROM pair_patches WHERE `+w.sql+` ORDER BY n`, w.args, func(rs pgx.Rows) error {
		p, err := scanPatch(rs)
		if err == nil {
			out = append(out, *p)
		}
		return err
	})
	return out, err
}

func (pt *pairTx) Patch(n int) (*pair.Patch, error) { return pt.onePatch(`n = ?`, n) }

func (pt *pairTx) PatchAt(path string) (*pair.Patch, error) { return pt.onePatch(`path = ?`, path) }

func (pt *pairTx) onePatch(cond string, arg any) (*pair.Patch, error) {
	w := pt.where().and(cond, arg)
	p, err := scanPatch(pt.q.QueryRow(pt.ctx, `SELECT `+patchColumns+` FROM pair_patches WHERE `+w.sql+` ORDER BY n LIMIT 1`, w.args...))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	return p, err
}

func (pt *pairTx) Evidence(round, limit int) ([]pair.Evidence, error) {
	w := pt.where().and(`round = ?`, round)
	q := `SELECT id, round, kind, text, passed, role, at FROM (SELECT * FROM pair_evidence WHERE ` + w.sql + ` ORDER BY id DESC` + w.limit(limit) + `) e ORDER BY id`
	var out []pair.Evidence
	err := eachRow(pt.ctx, pt.q, q, w.args, func(rs pgx.Rows) error {
		var e pair.Evidence
		if err := rs.Scan(&e.ID, &e.Round, &e.Kind, &e.Text, &e.Passed, &e.Role, &e.At); err != nil {
			return err
		}
		out = append(out, e)
		return nil
	})
	return out, err
}

func (pt *pairTx) CountEvidence(round int, passed bool) (int, error) {
	w := pt.where().and(`round = ?`, round)
	if passed {
		w.sql += ` AND passed`
	}
	var n int
	err := pt.q.QueryRow(pt.ctx, `SELECT count(*) FROM pair_evidence WHERE `+w.sql, w.args...).Scan(&n)
	return n, err
}

func (pt *pairTx) Letters(roles []string, after int64, limit int) ([]pair.Letter, error) {
	w := pt.where().and(`to_role = ANY(?)`, roles).and(`id > ?`, after)
	return pt.letters(w.sql+` ORDER BY id`+w.limit(limit), w.args)
}

func (pt *pairTx) DeferredLetters() ([]pair.Letter, error) {
	return pt.letters(`pair_id = $1 AND deferred ORDER BY id LIMIT 100`, []any{pt.rowid})
}

func (pt *pairTx) letters(where string, args []any) ([]pair.Letter, error) {
	var out []pair.Letter
	err := eachRow(pt.ctx, pt.q, `SELECT id, from_role, to_role, body, at, event_id, deferred FROM pair_letters WHERE `+where, args, func(rs pgx.Rows) error {
		l := pair.Letter{Pair: pt.p.ID}
		if err := rs.Scan(&l.ID, &l.From, &l.To, &l.Body, &l.At, &l.Event, &l.Deferred); err != nil {
			return err
		}
		out = append(out, l)
		return nil
	})
	return out, err
}

func (pt *pairTx) CountLetters(roles []string, after int64) (int, error) {
	w := pt.where().and(`to_role = ANY(?)`, roles).and(`id > ?`, after)
	var n int
	err := pt.q.QueryRow(pt.ctx, `SELECT count(*) FROM pair_letters WHERE `+w.sql, w.args...).Scan(&n)
	return n, err
}

func (pt *pairTx) NoteIndex() ([]pair.NoteInfo, error) {
	var out []pair.NoteInfo
	err := eachRow(pt.ctx, pt.q, `SELECT kind, count(*), sum(bytes), sum(lines), max(at) FROM pair_notes WHERE pair_id = $1 GROUP BY kind ORDER BY kind`,
		[]any{pt.rowid}, func(rs pgx.Rows) error {
			var n pair.NoteInfo
			if err := rs.Scan(&n.Kind, &n.Entries, &n.Bytes, &n.Lines, &n.LastAt); err != nil {
				return err
			}
			out = append(out, n)
			return nil
		})
	return out, err
}

func (pt *pairTx) NoteTail(kind string, limit int) ([]pair.NoteEntry, error) {
	var out []pair.NoteEntry
	err := eachRow(pt.ctx, pt.q, `SELECT id, kind, role, round, text, at FROM pair_notes WHERE pair_id = $1 AND kind = $2 ORDER BY id DESC LIMIT $3`,
		[]any{pt.rowid, kind, limit}, func(rs pgx.Rows) error {
			var n pair.NoteEntry
			if err := rs.Scan(&n.ID, &n.Kind, &n.Role, &n.Round, &n.Text, &n.At); err != nil {
				return err
			}
			out = append(out, n)
			return nil
		})
	return out, err
}

func (pt *pairTx) LastNote(kind string) (*pair.NoteEntry, error) {
	tail, err := pt.NoteTail(kind, 1)
	if err != nil || len(tail) == 0 {
		return nil, err
	}
	return &tail[0], nil
}

func (pt *pairTx) Transcript(f pair.TranscriptFilter) ([]pair.Event, error) {
	w := pt.where().and(`id > ?`, f.After)
	if f.Since != "" {
		w.and(`at >= ?`, f.Since)
	}
	if f.Round > 0 {
		w.and(`round = ?`, f.Round)
	}
	if len(f.Kinds) > 0 {
		w.and(`kind = ANY(?)`, f.Kinds)
	}
	limit := f.Limit
	if limit <= 0 {
		limit = pair.DefaultTranscript
	}
	// The newest limit entries, then oldest first.
	q := `SELECT id, round, at, role, kind, rule, text, detail FROM pair_events WHERE ` + w.sql + ` ORDER BY id DESC` + w.limit(limit)
	var out []pair.Event
	err := eachRow(pt.ctx, pt.q, q, w.args, func(rs pgx.Rows) error {
		e := pair.Event{Pair: pt.p.ID}
		var detail *string
		if err := rs.Scan(&e.ID, &e.Round, &e.At, &e.Role, &e.Kind, &e.Rule, &e.Text, &detail); err != nil {
			return err
		}
		if detail != nil {
			e.Detail = json.RawMessage(*detail)
		}
		out = append(out, e)
		return nil
	})
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, err
}

func (pt *pairTx) CountEvents(round int, kinds ...string) (int, error) {
	w := pt.where()
	if round > 0 {
		w.and(`round = ?`, round)
	}
	if len(kinds) > 0 {
		w.and(`kind = ANY(?)`, kinds)
	}
	var n int
	err := pt.q.QueryRow(pt.ctx, `SELECT count(*) FROM pair_events WHERE `+w.sql, w.args...).Scan(&n)
	return n, err
}

// writer returns the write transaction, which a View does not have.
func (pt *pairTx) writer() (*Tx, error) {
	if pt.w == nil {
		return nil, errors.New("postgres: a pair write inside a read transaction")
	}
	return pt.w, nil
}

func (pt *pairTx) SavePair(p *pair.Pair) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	if err := w.exec(`UPDATE pairs SET phase = $1, mode = $2, autonomy = $3, round = $4, writer = $5, writer_rationale = $6, writer_since = $7,
		ok_round = $8, budget = $9, status = $10, updated_at = $11, stopped_at = $12 WHERE id = $13`,
		p.Phase, p.Mode, p.Autonomy, p.Round, p.Writer, p.WriterRationale, p.WriterSince, p.OKRound, jsonText(p.Budget), p.Status, w.ts, p.StoppedAt, pt.rowid); err != nil {
		return err
	}
	p.UpdatedAt = w.ts
	for i, m := range p.Members {
		if err := w.exec(`INSERT INTO pair_members (pair_id, role, position, instance_of, joined_at, last_seen, left_at, session, resume_id, last_nudge, acked, ack_token, ack_upto)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
			ON CONFLICT (pair_id, role) DO UPDATE SET position = excluded.position, instance_of = excluded.instance_of, joined_at = excluded.joined_at,
				last_seen = excluded.last_seen, left_at = excluded.left_at, session = excluded.session, resume_id = excluded.resume_id,
				last_nudge = excluded.last_nudge, acked = excluded.acked, ack_token = excluded.ack_token, ack_upto = excluded.ack_upto`,
			pt.rowid, m.Role, i, m.Of, m.JoinedAt, m.LastSeen, m.LeftAt, m.Session, m.ResumeID, m.LastNudge, m.Acked, m.AckToken, m.AckUpTo); err != nil {
			return err
		}
	}
	return nil
}

func (pt *pairTx) AddTask(t *pair.Task) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	t.AddedAt = w.ts
	return w.queryRow(`INSERT INTO pair_tasks (pair_id, n, text, state, round, added_by, added_at)
		SELECT $1, coalesce(max(n), 0) + 1, $2, $3, $4, $5, $6 FROM pair_tasks WHERE pair_id = $1 RETURNING n`,
		pt.rowid, t.Text, t.State, t.Round, t.AddedBy, t.AddedAt).Scan(&t.N)
}

func (pt *pairTx) SaveTask(t *pair.Task) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	return w.exec(`UPDATE pair_tasks SET state = $1, closed_by = $2, closed_at = $3, reason = $4 WHERE pair_id = $5 AND n = $6`,
		t.State, t.ClosedBy, t.ClosedAt, t.Reason, pt.rowid, t.N)
}

func (pt *pairTx) AddPatch(p *pair.Patch) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	if p.ReservedAt == "" {
		p.ReservedAt = w.ts
	}
	if err := w.queryRow(`INSERT INTO pair_patches (pair_id, n, role, state, round, reserved_at)
		SELECT $1, coalesce(max(n), 0) + 1, $2, $3, $4, $5 FROM pair_patches WHERE pair_id = $1 RETURNING n`,
		pt.rowid, p.Role, p.State, p.Round, p.ReservedAt).Scan(&p.N); err != nil {
		return err
	}
	return pt.SavePatch(p)
}

func (pt *pairTx) SavePatch(p *pair.Patch) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	files := "[]"
	if p.Files != nil {
		files = jsonText(p.Files)
	}
	return w.exec(`UPDATE pair_patches SET path = $1, state = $2, summary = $3, seal = $4, size = $5, files = $6, note = $7, sealed_at = $8,
		verified_at = $9, done_at = $10, reported = $11 WHERE pair_id = $12 AND n = $13`,
		p.Path, p.State, p.Summary, p.Seal, p.Size, files, p.Note, p.SealedAt, p.VerifiedAt, p.DoneAt, p.Reported, pt.rowid, p.N)
}

func (pt *pairTx) AddEvidence(e *pair.Evidence) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	e.At = w.ts
	return w.queryRow(`INSERT INTO pair_evidence (pair_id, round, kind, text, passed, role, at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		pt.rowid, e.Round, e.Kind, e.Text, e.Passed, e.Role, e.At).Scan(&e.ID)
}

func (pt *pairTx) Send(l *pair.Letter) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	l.Pair, l.At = pt.p.ID, w.ts
	return w.queryRow(`INSERT INTO pair_letters (pair_id, from_role, to_role, body, at, event_id, deferred) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`,
		pt.rowid, l.From, l.To, l.Body, l.At, l.Event, l.Deferred).Scan(&l.ID)
}

func (pt *pairTx) Delivered(letter int64) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	return w.exec(`UPDATE pair_letters SET deferred = false WHERE pair_id = $1 AND id = $2`, pt.rowid, letter)
}

func (pt *pairTx) AddNote(n *pair.NoteEntry) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	n.At = w.ts
	return w.queryRow(`INSERT INTO pair_notes (pair_id, kind, role, round, text, bytes, lines, at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		pt.rowid, n.Kind, n.Role, n.Round, n.Text, len(n.Text), strings.Count(strings.TrimRight(n.Text, "\n"), "\n")+1, n.At).Scan(&n.ID)
}

func (pt *pairTx) Log(e *pair.Event) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	e.Pair, e.At, e.Round = pt.p.ID, w.ts, pt.p.Round
	e.Text = pair.EventText(e.Text)
	var detail *string
	if e.Detail != nil {
		b, err := desk.MarshalNoHTML(e.Detail)
		if err != nil {
			return err
		}
		s := string(b)
		detail = &s
	}
	if err := w.queryRow(`INSERT INTO pair_events (pair_id, round, at, role, kind, rule, text, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING id`,
		pt.rowid, e.Round, e.At, e.Role, e.Kind, e.Rule, e.Text, detail).Scan(&e.ID); err != nil {
		return err
	}
	w.feed(desk.Change{Project: pt.slug, Type: desk.ChangePair, ID: e.ID, Action: e.Kind, Actor: e.Role}, 0)
	return nil
}
