package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"desk"
	"desk/code"
)

// CodeStore keeps the code's tables in the desk's database. It implements
// code.Store.
type CodeStore struct {
	db *DB
}

var _ code.Store = (*CodeStore)(nil)

// Code returns the store of the code's tables.
func (db *DB) Code() *CodeStore { return &CodeStore{db: db} }

const mainRef = "main"

// CreateRepo adds a repository.
func (s *CodeStore) CreateRepo(ctx context.Context, owner, name, project string) (*code.Repo, error) {
	var r *code.Repo
	err := s.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(`INSERT INTO code_repos (owner, name, project, created_at) VALUES (?, ?, ?, ?)`, owner, name, project, tx.ts)
		if isUnique(err) {
			return desk.Errorf(desk.Conflict, "the repository %s/%s exists", owner, name)
		}
		if err != nil {
			return err
		}
		id, _ := res.LastInsertId()
		r = &code.Repo{ID: id, Owner: owner, Name: name, Project: project, CreatedAt: tx.ts}
		return tx.projectChange(project, "repo_created", "")
	})
	return r, err
}

// Repo returns a repository.
func (s *CodeStore) Repo(ctx context.Context, owner, name string) (*code.Repo, error) {
	r := &code.Repo{Owner: owner, Name: name}
	err := s.db.pool().QueryRowContext(ctx, `SELECT id, project, created_at FROM code_repos WHERE owner = ? AND name = ?`, owner, name).
		Scan(&r.ID, &r.Project, &r.CreatedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, desk.Errorf(desk.NotFound, "no repository %s/%s", owner, name).WithHint("desk repo create " + owner + "/" + name + " makes it")
	}
	return r, err
}

// Repos lists every repository with its head and number of landings.
func (s *CodeStore) Repos(ctx context.Context) ([]*code.RepoSummary, error) {
	var out []*code.RepoSummary
	err := eachRow(ctx, s.db.pool(), `SELECT r.id, r.owner, r.name, r.project, r.created_at, f.head,
		coalesce((SELECT max(seq) FROM change_log l WHERE l.repo_id = r.id), 0)
		FROM code_repos r LEFT JOIN code_refs f ON f.repo_id = r.id AND f.name = 'main' ORDER BY r.owner, r.name`, nil,
		func(rs *sql.Rows) error {
			var r code.RepoSummary
			var head []byte
			if err := rs.Scan(&r.ID, &r.Owner, &r.Name, &r.Project, &r.CreatedAt, &head, &r.Landings); err != nil {
				return err
			}
			if head != nil {
				id := code.IDOf(head)
				r.Head = &id
			}
			r.Slug = r.Repo.Slug()
			out = append(out, &r)
			return nil
		})
	return out, err
}

// LinkRepo links a repository to a project.
func (s *CodeStore) LinkRepo(ctx context.Context, repo int64, project string) error {
	return s.db.update(ctx, func(tx *Tx) error {
		res, err := tx.exec(`UPDATE code_repos SET project = ? WHERE id = ?`, project, repo)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return desk.Errorf(desk.NotFound, "no repository with id %d", repo)
		}
		return tx.projectChange(project, "repo_linked", "")
	})
}

// IndexChanges adds the rows that are not there yet.
func (s *CodeStore) IndexChanges(ctx context.Context, repo int64, rows []code.ChangeRow) error {
	return s.db.update(ctx, func(tx *Tx) error { return tx.indexChanges(repo, rows) })
}

func (tx *Tx) indexChanges(repo int64, rows []code.ChangeRow) error {
	for i := range rows {
		r := &rows[i]
		parents := make([]byte, 0, 32*len(r.Parents))
		for _, p := range r.Parents {
			parents = append(parents, p[:]...)
		}
		res, err := tx.exec(`INSERT INTO code_changes (repo_id, id, tree, parents, author, time, message, intents, generation)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`,
			repo, r.ID[:], r.Tree[:], parents, r.Author, desk.FormatTime(r.Time), r.Message, strings.Join(r.Intents, " "), r.Generation)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			continue
		}
		for _, in := range r.Intents {
			if _, err := tx.exec(`INSERT INTO code_change_intents (repo_id, issue, change) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, repo, in, r.ID[:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// Change returns the row of an indexed change.
func (s *CodeStore) Change(ctx context.Context, repo int64, id code.ID) (*code.ChangeRow, error) {
	return changeRow(ctx, s.db.pool(), repo, id)
}

func changeRow(ctx context.Context, q queryer, repo int64, id code.ID) (*code.ChangeRow, error) {
	r, err := code.ScanChange(q.QueryRowContext(ctx, `SELECT `+code.ChangeColumns+` FROM code_changes c WHERE c.repo_id = ? AND c.id = ?`, repo, id[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, desk.Errorf(desk.NotFound, "no change %s in this repository", id)
	}
	return r, err
}

// HasChanges reports which changes are indexed.
func (s *CodeStore) HasChanges(ctx context.Context, repo int64, ids []code.ID) ([]bool, error) {
	out := make([]bool, len(ids))
	q := s.db.pool()
	for i, id := range ids {
		var one int
		err := q.QueryRowContext(ctx, `SELECT 1 FROM code_changes WHERE repo_id = ? AND id = ?`, repo, id[:]).Scan(&one)
		switch {
		case err == nil:
			out[i] = true
		case !errors.Is(err, sql.ErrNoRows):
			return nil, err
		}
	}
	return out, nil
}

// Head returns where main stands.
func (s *CodeStore) Head(ctx context.Context, repo int64) (code.Head, error) {
	return readHead(ctx, s.db.pool(), repo)
}

func readHead(ctx context.Context, q queryer, repo int64) (code.Head, error) {
	var h code.Head
	var head []byte
	err := q.QueryRowContext(ctx, `SELECT head, rev FROM code_refs WHERE repo_id = ? AND name = ?`, repo, mainRef).Scan(&head, &h.Rev)
	if errors.Is(err, sql.ErrNoRows) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	id := code.IDOf(head)
	h.Change = &id
	return h, nil
}

// MoveMain swaps main and writes what goes with the move.
func (s *CodeStore) MoveMain(ctx context.Context, m code.Move) ([]code.LogEntry, error) {
	var out []code.LogEntry
	err := s.db.update(ctx, func(tx *Tx) error {
		h, err := readHead(tx.ctx, tx, m.Repo)
		if err != nil {
			return err
		}
		if h.Rev != m.FromRev {
			return code.ErrMoved
		}
		var repo code.Repo
		if err := tx.queryRow(`SELECT owner, name, project FROM code_repos WHERE id = ?`, m.Repo).Scan(&repo.Owner, &repo.Name, &repo.Project); err != nil {
			return err
		}
		if err := tx.indexChanges(m.Repo, m.NewChanges); err != nil {
			return err
		}
		if h.Change == nil {
			_, err = tx.exec(`INSERT INTO code_refs (repo_id, name, head, rev) VALUES (?, ?, ?, 1)`, m.Repo, mainRef, m.To[:])
		} else {
			_, err = tx.exec(`UPDATE code_refs SET head = ?, rev = rev + 1 WHERE repo_id = ? AND name = ?`, m.To[:], m.Repo, mainRef)
		}
		if err != nil {
			return err
		}
		var seq int64
		if err := tx.queryRow(`SELECT coalesce(max(seq), 0) FROM change_log WHERE repo_id = ?`, m.Repo).Scan(&seq); err != nil {
			return err
		}
		for _, e := range m.Entries {
			seq++
			e.Seq, e.LandedAt = seq, tx.now.Truncate(time.Millisecond)
			if e.LandedBy == "" {
				e.LandedBy = m.By
			}
			_, err := tx.exec(`INSERT INTO change_log (repo_id, seq, change, submitted, rebased, landed_by, landed_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
				m.Repo, seq, e.Change[:], e.Submitted[:], e.Rebased, e.LandedBy, tx.ts)
			if isUnique(err) {
				return desk.Errorf(desk.Conflict, "the change %s has landed already", e.Submitted)
			}
			if err != nil {
				return err
			}
			row, err := changeRow(tx.ctx, tx, m.Repo, e.Change)
			if err != nil {
				return err
			}
			e.Row = *row
			if _, err := tx.exec(`DELETE FROM code_open_changes WHERE repo_id = ? AND change IN (?, ?)`, m.Repo, e.Submitted[:], e.Change[:]); err != nil {
				return err
			}
			if err := tx.recordLanding(&repo, &e); err != nil {
				return err
			}
			out = append(out, e)
		}
		for _, g := range m.GitCommits {
			if err := tx.addGitCommit(m.Repo, g); err != nil {
				return err
			}
		}
		if len(out) > 0 {
			return tx.feed(desk.Change{Project: repo.Project, Type: desk.ChangeCode, ID: seq, Action: desk.ActLanded, Actor: m.By}, 0)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// recordLanding adds a "landed" entry to the timeline of each desk issue
// the landed change names. An intent that names no issue of this desk is
// left: a landing is never refused for it.
func (tx *Tx) recordLanding(repo *code.Repo, e *code.LogEntry) error {
	if len(e.Row.Intents) == 0 {
		return nil
	}
	l := e.Landing(repo)
	for _, id := range e.Row.Intents {
		r, _, err := resolve(tx.ctx, tx, id)
		if desk.ErrorCode(err) == desk.NotFound {
			continue
		}
		if err != nil {
			return err
		}
		if _, err := tx.activity(r, cleanActor(e.LandedBy, desk.OwnerActor), desk.ActLanded, l); err != nil {
			return err
		}
	}
	return nil
}

// Landed returns the entry of a submitted change.
func (s *CodeStore) Landed(ctx context.Context, repo int64, id code.ID) (*code.LogEntry, error) {
	e, err := code.ScanLog(s.db.pool().QueryRowContext(ctx, `SELECT `+code.ChangeColumns+`, `+code.LogColumns+` FROM change_log l
		JOIN code_changes c ON c.repo_id = l.repo_id AND c.id = l.change WHERE l.repo_id = ? AND l.submitted = ?`, repo, id[:]))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	return e, err
}

// Log returns landings, newest first.
func (s *CodeStore) Log(ctx context.Context, repo int64, q code.LogQuery) ([]code.LogEntry, error) {
	query := `SELECT ` + code.ChangeColumns + `, ` + code.LogColumns + ` FROM change_log l
		JOIN code_changes c ON c.repo_id = l.repo_id AND c.id = l.change WHERE l.repo_id = ?`
	args := []any{repo}
	if q.Before > 0 {
		query += ` AND l.seq < ?`
		args = append(args, q.Before)
	}
	if len(q.Intents) > 0 {
		query += ` AND l.change IN (SELECT change FROM code_change_intents WHERE repo_id = ? AND issue IN (?` + strings.Repeat(",?", len(q.Intents)-1) + `))`
		args = append(args, repo)
		for _, in := range q.Intents {
			args = append(args, in)
		}
	}
	query += ` ORDER BY l.seq DESC LIMIT ?`
	args = append(args, q.Limit)
	out := []code.LogEntry{}
	err := eachRow(ctx, s.db.pool(), query, args, func(rs *sql.Rows) error {
		e, err := code.ScanLog(rs)
		if err != nil {
			return err
		}
		out = append(out, *e)
		return nil
	})
	return out, err
}

// LogCount returns the number of landings.
func (s *CodeStore) LogCount(ctx context.Context, repo int64) (int64, error) {
	var n int64
	err := s.db.pool().QueryRowContext(ctx, `SELECT coalesce(max(seq), 0) FROM change_log WHERE repo_id = ?`, repo).Scan(&n)
	return n, err
}

// PutOpenChange records a work folder's open change.
func (s *CodeStore) PutOpenChange(ctx context.Context, o code.OpenChange) error {
	paths, err := json.Marshal(o.Paths)
	if err != nil {
		return err
	}
	return s.db.update(ctx, func(tx *Tx) error {
		_, err := tx.exec(`INSERT INTO code_open_changes (repo_id, workspace, change, author, intents, paths, sent_at) VALUES (?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT (repo_id, workspace) DO UPDATE SET change = excluded.change, author = excluded.author,
			intents = excluded.intents, paths = excluded.paths, sent_at = excluded.sent_at`,
			o.Repo, o.Workspace, o.Change[:], o.Author, strings.Join(o.Intents, " "), string(paths), desk.FormatTime(o.SentAt))
		if err != nil {
			return err
		}
		// The pages that show overlaps read them again.
		var project string
		if err := tx.queryRow(`SELECT project FROM code_repos WHERE id = ?`, o.Repo).Scan(&project); err != nil {
			return err
		}
		return tx.feed(desk.Change{Project: project, Type: desk.ChangeCode, ID: o.Repo, Action: desk.ActSent, Actor: o.Author}, 0)
	})
}

// OpenChanges lists the open changes sent since a time.
func (s *CodeStore) OpenChanges(ctx context.Context, repo int64, since time.Time) ([]code.OpenChange, error) {
	out := []code.OpenChange{}
	err := eachRow(ctx, s.db.pool(), `SELECT workspace, change, author, intents, paths, sent_at FROM code_open_changes
		WHERE repo_id = ? AND sent_at >= ? ORDER BY sent_at, workspace`, []any{repo, desk.FormatTime(since)}, func(rs *sql.Rows) error {
		o := code.OpenChange{Repo: repo, Intents: []string{}}
		var change []byte
		var intents, paths, at string
		if err := rs.Scan(&o.Workspace, &change, &o.Author, &intents, &paths, &at); err != nil {
			return err
		}
		o.Change = code.IDOf(change)
		if intents != "" {
			o.Intents = strings.Split(intents, " ")
		}
		if err := json.Unmarshal([]byte(paths), &o.Paths); err != nil {
			return err
		}
		o.SentAt, _ = desk.ParseTime(at)
		out = append(out, o)
		return nil
	})
	return out, err
}

// GitCommits returns the map of git commits to changes.
func (s *CodeStore) GitCommits(ctx context.Context, repo int64) ([]code.GitCommit, error) {
	var out []code.GitCommit
	err := eachRow(ctx, s.db.pool(), `SELECT git_commit, change FROM code_git_commits WHERE repo_id = ?`, []any{repo}, func(rs *sql.Rows) error {
		var g code.GitCommit
		var change []byte
		if err := rs.Scan(&g.Commit, &change); err != nil {
			return err
		}
		g.Change = code.IDOf(change)
		out = append(out, g)
		return nil
	})
	return out, err
}

// AddGitCommits adds entries to the map of git commits.
func (s *CodeStore) AddGitCommits(ctx context.Context, repo int64, m []code.GitCommit) error {
	return s.db.update(ctx, func(tx *Tx) error {
		for _, g := range m {
			if err := tx.addGitCommit(repo, g); err != nil {
				return err
			}
		}
		return nil
	})
}

func (tx *Tx) addGitCommit(repo int64, g code.GitCommit) error {
	_, err := tx.exec(`INSERT INTO code_git_commits (repo_id, git_commit, change) VALUES (?, ?, ?) ON CONFLICT DO NOTHING`, repo, g.Commit, g.Change[:])
	return err
}
