package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"time"

	"desk"
	"desk/pair"
)

// The pair store: every rule of package pair runs in one transaction of
// db.update (the write lock is taken as it begins, so the pair it reads is
// the one every other process committed last), and every transcript
// entry appends a feed row of type pair in that transaction, which is how
// a blocked pair_read in another process hears of a letter.

var _ pair.Store = (*DB)(nil)

// pairKey reads a pair's name ("p12") as its row id.
func pairKey(id string) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(id), "p"), 10, 64)
	if err != nil || n <= 0 || !strings.HasPrefix(strings.TrimSpace(id), "p") {
		return 0, desk.Errorf(desk.NotFound, "%q is not a pair: pairs are named like p3", id).
			WithHint("desk pair status lists the live pairs")
	}
	return n, nil
}

func pairName(rowid int64) string { return "p" + strconv.FormatInt(rowid, 10) }

// CreatePair makes a pair with its roster.
func (db *DB) CreatePair(ctx context.Context, n pair.NewPair, by string) (*pair.Pair, error) {
	var out *pair.Pair
	err := db.update(ctx, func(tx *Tx) error {
		proj, err := projectKey(ctx, tx, n.Project)
		if err != nil {
			return err
		}
		budget, _ := json.Marshal(n.Budget)
		res, err := tx.exec(`INSERT INTO pairs (project_id, folder, task, phase, mode, autonomy, autonomy_source, round, pinned_writer, budget, status, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?)`,
			proj.id, n.Folder, n.Task, pair.PhaseScoping, n.Mode, n.Autonomy, n.AutonomySource, n.PinnedWriter, string(budget), pair.StatusLive, tx.ts, tx.ts)
		if err != nil {
			return err
		}
		rowid, _ := res.LastInsertId()
		for i, m := range n.Members {
			if _, err := tx.exec(`INSERT INTO pair_members (pair_id, role, position) VALUES (?, ?, ?)`, rowid, m, i); err != nil {
				return err
			}
		}
		pt := &pairTx{q: tx, w: tx, rowid: rowid, slug: proj.Slug}
		if pt.p, err = pt.load(ctx); err != nil {
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
func (db *DB) Pairs(ctx context.Context, f pair.PairFilter) ([]*pair.Pair, error) {
	var out []*pair.Pair
	err := db.view(ctx, func(rt *readTx) error {
		q := `SELECT p.id, pr.slug FROM pairs p JOIN projects pr ON pr.id = p.project_id WHERE 1 = 1`
		var args []any
		if f.Project != "" {
			q += ` AND pr.slug = ?`
			args = append(args, f.Project)
		}
		if f.Live {
			q += ` AND p.status = ?`
			args = append(args, pair.StatusLive)
		}
		if f.Folder != "" {
			q += ` AND p.folder = ?`
			args = append(args, f.Folder)
		}
		rows, err := rt.QueryContext(ctx, q+` ORDER BY p.id DESC LIMIT 500`, args...)
		if err != nil {
			return err
		}
		type key struct {
			id   int64
			slug string
		}
		var keys []key
		for rows.Next() {
			var k key
			if err := rows.Scan(&k.id, &k.slug); err != nil {
				rows.Close()
				return err
			}
			keys = append(keys, k)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, k := range keys {
			pt := &pairTx{q: rt, rowid: k.id, slug: k.slug}
			p, err := pt.load(ctx)
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return nil
	})
	if out == nil {
		out = []*pair.Pair{}
	}
	return out, err
}

// View runs fn in a read transaction on pair id.
func (db *DB) View(ctx context.Context, id string, fn func(pair.ReadTx) error) error {
	rowid, err := pairKey(id)
	if err != nil {
		return err
	}
	return db.view(ctx, func(rt *readTx) error {
		pt := &pairTx{q: rt, rowid: rowid, now: db.Now().UTC(), ctx: ctx}
		if pt.p, err = pt.load(ctx); err != nil {
			return err
		}
		return fn(pt)
	})
}

// Update runs fn in a write transaction on pair id.
func (db *DB) Update(ctx context.Context, id string, fn func(pair.Tx) error) error {
	rowid, err := pairKey(id)
	if err != nil {
		return err
	}
	return db.update(ctx, func(tx *Tx) error {
		pt := &pairTx{q: tx, w: tx, rowid: rowid, now: tx.now, ctx: ctx}
		var err error
		if pt.p, err = pt.load(ctx); err != nil {
			return err
		}
		return fn(pt)
	})
}

// pairTx is one transaction on one pair: reads through q, writes (in an
// Update) through w.
type pairTx struct {
	q     queryer
	w     *Tx // nil in a View
	rowid int64
	slug  string
	p     *pair.Pair
	now   time.Time
	ctx   context.Context
}

func (pt *pairTx) c() context.Context {
	if pt.ctx == nil {
		return context.Background()
	}
	return pt.ctx
}

// load reads the pair and its roster.
func (pt *pairTx) load(ctx context.Context) (*pair.Pair, error) {
	p := &pair.Pair{ID: pairName(pt.rowid)}
	var budget string
	err := pt.q.QueryRowContext(ctx, `SELECT pr.slug, p.folder, p.task, p.phase, p.mode, p.autonomy, p.autonomy_source, p.round, p.writer,
		p.writer_rationale, p.writer_since, p.pinned_writer, p.ok_round, p.budget, p.status, p.created_at, p.updated_at, p.stopped_at
		FROM pairs p JOIN projects pr ON pr.id = p.project_id WHERE p.id = ?`, pt.rowid).Scan(
		&p.Project, &p.Folder, &p.Task, &p.Phase, &p.Mode, &p.Autonomy, &p.AutonomySource, &p.Round, &p.Writer,
		&p.WriterRationale, &p.WriterSince, &p.PinnedWriter, &p.OKRound, &budget, &p.Status, &p.CreatedAt, &p.UpdatedAt, &p.StoppedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, desk.Errorf(desk.NotFound, "no pair %s", p.ID).WithHint("desk pair status lists the live pairs")
	}
	if err != nil {
		return nil, err
	}
	pt.slug = p.Project
	_ = json.Unmarshal([]byte(budget), &p.Budget)
	rows, err := pt.q.QueryContext(ctx, `SELECT role, instance_of, joined_at, last_seen, left_at, session, resume_id, last_nudge, acked, ack_token, ack_upto
		FROM pair_members WHERE pair_id = ? ORDER BY position, role`, pt.rowid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	p.Members = []pair.Member{}
	for rows.Next() {
		var m pair.Member
		if err := rows.Scan(&m.Role, &m.Of, &m.JoinedAt, &m.LastSeen, &m.LeftAt, &m.Session, &m.ResumeID, &m.LastNudge, &m.Acked, &m.AckToken, &m.AckUpTo); err != nil {
			return nil, err
		}
		p.Members = append(p.Members, m)
	}
	return p, rows.Err()
}

func (pt *pairTx) Now() time.Time   { return pt.now }
func (pt *pairTx) Pair() *pair.Pair { return pt.p }

func (pt *pairTx) Seq() (int64, error) { return feedSeq(pt.c(), pt.q) }

// taskWhere is the WHERE clause of a task filter, and its arguments.
func (pt *pairTx) taskWhere(f pair.TaskFilter) (string, []any) {
	where, args := `pair_id = ?`, []any{pt.rowid}
	if f.Round > 0 {
		where += ` AND round = ?`
		args = append(args, f.Round)
	}
	if f.State != "" {
		where += ` AND state = ?`
		args = append(args, f.State)
	}
	return where, args
}

func (pt *pairTx) Tasks(f pair.TaskFilter) ([]pair.Task, error) {
	where, args := pt.taskWhere(f)
	q := `SELECT n, text, state, round, added_by, added_at, closed_by, closed_at, reason FROM pair_tasks WHERE ` + where + ` ORDER BY n`
	if f.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, f.Limit)
	}
	rows, err := pt.q.QueryContext(pt.c(), q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pair.Task
	for rows.Next() {
		var t pair.Task
		if err := rows.Scan(&t.N, &t.Text, &t.State, &t.Round, &t.AddedBy, &t.AddedAt, &t.ClosedBy, &t.ClosedAt, &t.Reason); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func (pt *pairTx) CountTasks(f pair.TaskFilter) (int, error) {
	where, args := pt.taskWhere(f)
	var n int
	err := pt.q.QueryRowContext(pt.c(), `SELECT count(*) FROM pair_tasks WHERE `+where, args...).Scan(&n)
	return n, err
}

func (pt *pairTx) Task(n int) (*pair.Task, error) {
	t := &pair.Task{}
	err := pt.q.QueryRowContext(pt.c(), `SELECT n, text, state, round, added_by, added_at, closed_by, closed_at, reason FROM pair_tasks WHERE pair_id = ? AND n = ?`,
		pt.rowid, n).Scan(&t.N, &t.Text, &t.State, &t.Round, &t.AddedBy, &t.AddedAt, &t.ClosedBy, &t.ClosedAt, &t.Reason)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

const patchColumns = `n, path, role, state, round, summary, seal, size, files, note, reserved_at, sealed_at, verified_at, done_at, reported`

func scanPatch(s scanner) (*pair.Patch, error) {
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
	q, args := `SELECT `+patchColumns+` FROM pair_patches WHERE pair_id = ?`, []any{pt.rowid}
	if f.Round > 0 {
		q += ` AND round = ?`
		args = append(args, f.Round)
	}
	if len(f.States) > 0 {
		q += ` AND state IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(f.States)), ", ") + `)`
		for _, st := range f.States {
			args = append(args, st)
		}
	}
	rows, err := pt.q.QueryContext(pt.c(), q+` ORDER BY n`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pair.Patch
	for rows.Next() {
		p, err := scanPatch(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, *p)
	}
	return out, rows.Err()
}

func (pt *pairTx) Patch(n int) (*pair.Patch, error) {
	return pt.onePatch(`n = ?`, n)
}

func (pt *pairTx) PatchAt(path string) (*pair.Patch, error) {
	return pt.onePatch(`path = ?`, path)
}

func (pt *pairTx) onePatch(where string, arg any) (*pair.Patch, error) {
	p, err := scanPatch(pt.q.QueryRowContext(pt.c(), `SELECT `+patchColumns+` FROM pair_patches WHERE pair_id = ? AND `+where, pt.rowid, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return p, err
}

func (pt *pairTx) Evidence(round, limit int) ([]pair.Evidence, error) {
	if limit <= 0 {
		limit = -1
	}
	rows, err := pt.q.QueryContext(pt.c(), `SELECT id, round, kind, text, passed, role, at FROM
		(SELECT * FROM pair_evidence WHERE pair_id = ? AND round = ? ORDER BY id DESC LIMIT ?) ORDER BY id`, pt.rowid, round, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pair.Evidence
	for rows.Next() {
		var e pair.Evidence
		if err := rows.Scan(&e.ID, &e.Round, &e.Kind, &e.Text, &e.Passed, &e.Role, &e.At); err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

func (pt *pairTx) CountEvidence(round int, passed bool) (int, error) {
	q := `SELECT count(*) FROM pair_evidence WHERE pair_id = ? AND round = ?`
	if passed {
		q += ` AND passed = 1`
	}
	var n int
	err := pt.q.QueryRowContext(pt.c(), q, pt.rowid, round).Scan(&n)
	return n, err
}

// roleIn writes "to_role IN (?, ?)" for roles and appends them to args.
func roleIn(roles []string, args []any) (string, []any) {
	if len(roles) == 0 {
		return "0", args
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(roles)), ", ")
	for _, r := range roles {
		args = append(args, r)
	}
	return "to_role IN (" + marks + ")", args
}

func (pt *pairTx) Letters(roles []string, after int64, limit int) ([]pair.Letter, error) {
	in, args := roleIn(roles, []any{pt.rowid})
	args = append(args, after, limit)
	return pt.letters(`WHERE pair_id = ? AND `+in+` AND id > ? ORDER BY id LIMIT ?`, args...)
}

func (pt *pairTx) DeferredLetters() ([]pair.Letter, error) {
	return pt.letters(`WHERE pair_id = ? AND deferred = 1 ORDER BY id LIMIT 100`, pt.rowid)
}

func (pt *pairTx) letters(where string, args ...any) ([]pair.Letter, error) {
	rows, err := pt.q.QueryContext(pt.c(), `SELECT id, from_role, to_role, body, at, event_id, deferred FROM pair_letters `+where, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pair.Letter
	for rows.Next() {
		l := pair.Letter{Pair: pt.p.ID}
		if err := rows.Scan(&l.ID, &l.From, &l.To, &l.Body, &l.At, &l.Event, &l.Deferred); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, rows.Err()
}

func (pt *pairTx) CountLetters(roles []string, after int64) (int, error) {
	in, args := roleIn(roles, []any{pt.rowid})
	args = append(args, after)
	var n int
	err := pt.q.QueryRowContext(pt.c(), `SELECT count(*) FROM pair_letters WHERE pair_id = ? AND `+in+` AND id > ?`, args...).Scan(&n)
	return n, err
}

func (pt *pairTx) NoteIndex() ([]pair.NoteInfo, error) {
	rows, err := pt.q.QueryContext(pt.c(), `SELECT kind, count(*), sum(bytes), sum(lines), max(at) FROM pair_notes WHERE pair_id = ? GROUP BY kind ORDER BY kind`, pt.rowid)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pair.NoteInfo
	for rows.Next() {
		var n pair.NoteInfo
		if err := rows.Scan(&n.Kind, &n.Entries, &n.Bytes, &n.Lines, &n.LastAt); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (pt *pairTx) NoteTail(kind string, limit int) ([]pair.NoteEntry, error) {
	rows, err := pt.q.QueryContext(pt.c(), `SELECT id, kind, role, round, text, at FROM pair_notes WHERE pair_id = ? AND kind = ? ORDER BY id DESC LIMIT ?`, pt.rowid, kind, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pair.NoteEntry
	for rows.Next() {
		var n pair.NoteEntry
		if err := rows.Scan(&n.ID, &n.Kind, &n.Role, &n.Round, &n.Text, &n.At); err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	return out, rows.Err()
}

func (pt *pairTx) LastNote(kind string) (*pair.NoteEntry, error) {
	tail, err := pt.NoteTail(kind, 1)
	if err != nil || len(tail) == 0 {
		return nil, err
	}
	return &tail[0], nil
}

func (pt *pairTx) Transcript(f pair.TranscriptFilter) ([]pair.Event, error) {
	q := `SELECT id, round, at, role, kind, rule, text, detail FROM pair_events WHERE pair_id = ? AND id > ?`
	args := []any{pt.rowid, f.After}
	if f.Since != "" {
		q += ` AND at >= ?`
		args = append(args, f.Since)
	}
	if f.Round > 0 {
		q += ` AND round = ?`
		args = append(args, f.Round)
	}
	if len(f.Kinds) > 0 {
		q += ` AND kind IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(f.Kinds)), ", ") + `)`
		for _, k := range f.Kinds {
			args = append(args, k)
		}
	}
	limit := f.Limit
	if limit <= 0 {
		limit = pair.DefaultTranscript
	}
	// The newest limit entries, then oldest first.
	q += ` ORDER BY id DESC LIMIT ?`
	args = append(args, limit)
	rows, err := pt.q.QueryContext(pt.c(), q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []pair.Event
	for rows.Next() {
		e := pair.Event{Pair: pt.p.ID}
		var detail sql.NullString
		if err := rows.Scan(&e.ID, &e.Round, &e.At, &e.Role, &e.Kind, &e.Rule, &e.Text, &detail); err != nil {
			return nil, err
		}
		if detail.Valid {
			e.Detail = json.RawMessage(detail.String)
		}
		out = append(out, e)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, rows.Err()
}

func (pt *pairTx) CountEvents(round int, kinds ...string) (int, error) {
	q := `SELECT count(*) FROM pair_events WHERE pair_id = ?`
	args := []any{pt.rowid}
	if round > 0 {
		q += ` AND round = ?`
		args = append(args, round)
	}
	if len(kinds) > 0 {
		q += ` AND kind IN (` + strings.TrimSuffix(strings.Repeat("?, ", len(kinds)), ", ") + `)`
		for _, k := range kinds {
			args = append(args, k)
		}
	}
	var n int
	err := pt.q.QueryRowContext(pt.c(), q, args...).Scan(&n)
	return n, err
}

// writer returns the write transaction, which a View does not have.
func (pt *pairTx) writer() (*Tx, error) {
	if pt.w == nil {
		return nil, errors.New("sqlite: a pair write inside a read transaction")
	}
	return pt.w, nil
}

func (pt *pairTx) SavePair(p *pair.Pair) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	budget, _ := json.Marshal(p.Budget)
	if _, err := w.exec(`UPDATE pairs SET phase = ?, mode = ?, autonomy = ?, round = ?, writer = ?, writer_rationale = ?, writer_since = ?,
		ok_round = ?, budget = ?, status = ?, updated_at = ?, stopped_at = ? WHERE id = ?`,
		p.Phase, p.Mode, p.Autonomy, p.Round, p.Writer, p.WriterRationale, p.WriterSince, p.OKRound, string(budget), p.Status, w.ts, p.StoppedAt, pt.rowid); err != nil {
		return err
	}
	p.UpdatedAt = w.ts
	for i, m := range p.Members {
		if _, err := w.exec(`INSERT INTO pair_members (pair_id, role, position, instance_of, joined_at, last_seen, left_at, session, resume_id, last_nudge, acked, ack_token, ack_upto)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
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
	if err := w.queryRow(`SELECT coalesce(max(n), 0) + 1 FROM pair_tasks WHERE pair_id = ?`, pt.rowid).Scan(&t.N); err != nil {
		return err
	}
	t.AddedAt = w.ts
	_, err = w.exec(`INSERT INTO pair_tasks (pair_id, n, text, state, round, added_by, added_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		pt.rowid, t.N, t.Text, t.State, t.Round, t.AddedBy, t.AddedAt)
	return err
}

func (pt *pairTx) SaveTask(t *pair.Task) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	_, err = w.exec(`UPDATE pair_tasks SET state = ?, closed_by = ?, closed_at = ?, reason = ? WHERE pair_id = ? AND n = ?`,
		t.State, t.ClosedBy, t.ClosedAt, t.Reason, pt.rowid, t.N)
	return err
}

func (pt *pairTx) AddPatch(p *pair.Patch) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	if err := w.queryRow(`SELECT coalesce(max(n), 0) + 1 FROM pair_patches WHERE pair_id = ?`, pt.rowid).Scan(&p.N); err != nil {
		return err
	}
	if p.ReservedAt == "" {
		p.ReservedAt = w.ts
	}
	_, err = w.exec(`INSERT INTO pair_patches (pair_id, n, role, state, round, reserved_at) VALUES (?, ?, ?, ?, ?, ?)`,
		pt.rowid, p.N, p.Role, p.State, p.Round, p.ReservedAt)
	if err != nil {
		return err
	}
	return pt.SavePatch(p)
}

func (pt *pairTx) SavePatch(p *pair.Patch) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	files, _ := json.Marshal(p.Files)
	if p.Files == nil {
		files = []byte("[]")
	}
	_, err = w.exec(`UPDATE pair_patches SET path = ?, state = ?, summary = ?, seal = ?, size = ?, files = ?, note = ?, sealed_at = ?, verified_at = ?,
		done_at = ?, reported = ? WHERE pair_id = ? AND n = ?`,
		p.Path, p.State, p.Summary, p.Seal, p.Size, string(files), p.Note, p.SealedAt, p.VerifiedAt, p.DoneAt, p.Reported, pt.rowid, p.N)
	return err
}

func (pt *pairTx) AddEvidence(e *pair.Evidence) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	e.At = w.ts
	res, err := w.exec(`INSERT INTO pair_evidence (pair_id, round, kind, text, passed, role, at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		pt.rowid, e.Round, e.Kind, e.Text, e.Passed, e.Role, e.At)
	if err != nil {
		return err
	}
	e.ID, _ = res.LastInsertId()
	return nil
}

func (pt *pairTx) Send(l *pair.Letter) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	l.Pair, l.At = pt.p.ID, w.ts
	res, err := w.exec(`INSERT INTO pair_letters (pair_id, from_role, to_role, body, at, event_id, deferred) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		pt.rowid, l.From, l.To, l.Body, l.At, l.Event, l.Deferred)
	if err != nil {
		return err
	}
	l.ID, _ = res.LastInsertId()
	return nil
}

func (pt *pairTx) Delivered(letter int64) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	_, err = w.exec(`UPDATE pair_letters SET deferred = 0 WHERE pair_id = ? AND id = ?`, pt.rowid, letter)
	return err
}

func (pt *pairTx) AddNote(n *pair.NoteEntry) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	n.At = w.ts
	res, err := w.exec(`INSERT INTO pair_notes (pair_id, kind, role, round, text, bytes, lines, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		pt.rowid, n.Kind, n.Role, n.Round, n.Text, len(n.Text), strings.Count(strings.TrimRight(n.Text, "\n"), "\n")+1, n.At)
	if err != nil {
		return err
	}
	n.ID, _ = res.LastInsertId()
	return nil
}

func (pt *pairTx) Log(e *pair.Event) error {
	w, err := pt.writer()
	if err != nil {
		return err
	}
	e.Pair, e.At, e.Round = pt.p.ID, w.ts, pt.p.Round
	e.Text = pair.EventText(e.Text)
	var detail any
	if e.Detail != nil {
		b, err := desk.MarshalNoHTML(e.Detail)
		if err != nil {
			return err
		}
		detail = string(b)
	}
	res, err := w.exec(`INSERT INTO pair_events (pair_id, round, at, role, kind, rule, text, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		pt.rowid, e.Round, e.At, e.Role, e.Kind, e.Rule, e.Text, detail)
	if err != nil {
		return err
	}
	e.ID, _ = res.LastInsertId()
	return w.feed(desk.Change{Project: pt.slug, Type: desk.ChangePair, ID: e.ID, Action: e.Kind, Actor: e.Role}, 0)
}
