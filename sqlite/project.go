package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"

	"desk"
)

// Projects lists every project by name with its status counts.
func (db *DB) Projects(ctx context.Context) ([]*desk.Project, error) {
	var out []*desk.Project
	err := db.view(ctx, func(tx *readTx) error {
		rows, err := tx.QueryContext(ctx, projectSelect+`ORDER BY name COLLATE NOCASE, slug`)
		if err != nil {
			return err
		}
		defer rows.Close()
		byID := map[int64]*desk.Project{}
		for rows.Next() {
			p, err := scanProject(rows)
			if err != nil {
				return err
			}
			p.Counts = emptyCounts(desk.Statuses)
			out = append(out, &p.Project)
			byID[p.id] = &p.Project
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		// Every issue counted from the (project, status) index alone, less
		// the merged ones found through their own small index: asking for
		// the unmerged ones directly read every issue's row to check it,
		// 6 ms on a desk of 2,700 issues.
		for _, q := range []struct {
			query string
			sign  int
		}{
			{`SELECT project_id, status, count(*) FROM issues GROUP BY project_id, status`, 1},
			{`SELECT project_id, status, count(*) FROM issues INDEXED BY issues_merged WHERE merged_into IS NOT NULL GROUP BY project_id, status`, -1},
		} {
			err := eachRow(ctx, tx, q.query, nil, func(rs *sql.Rows) error {
				var id int64
				var status string
				var n int
				if err := rs.Scan(&id, &status, &n); err != nil {
					return err
				}
				if p := byID[id]; p != nil {
					p.Counts[status] += q.sign * n
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		for _, p := range byID {
			for status, n := range p.Counts {
				if n == 0 && !slices.Contains(desk.Statuses, status) {
					delete(p.Counts, status) // only merged issues had it
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	if out == nil {
		out = []*desk.Project{}
	}
	return out, nil
}

// ProjectSlugs lists every project's slug, in the order of Projects. It is
// what a command needs to pick the project it is about, and it costs one
// index scan where Projects counts every issue by status.
func (db *DB) ProjectSlugs(ctx context.Context) ([]string, error) {
	slugs := []string{}
	err := db.view(ctx, func(tx *readTx) error {
		return eachRow(ctx, tx, `SELECT slug FROM projects ORDER BY name COLLATE NOCASE, slug`, nil, func(rs *sql.Rows) error {
			var s string
			err := rs.Scan(&s)
			slugs = append(slugs, s)
			return err
		})
	})
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	return slugs, nil
}

// Project returns a project with its overview.
func (db *DB) Project(ctx context.Context, slug string) (*desk.ProjectDetail, error) {
	var d *desk.ProjectDetail
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		d = &desk.ProjectDetail{Project: p.Project, Areas: []string{}, Tags: []string{}}
		d.Counts = emptyCounts(desk.Statuses)
		var lastIssue string
		if heads := db.index.held(ctx, tx, p.id); heads != nil {
			// A long-running process holds the project's issues already.
			lastIssue = db.overviews.of(p.id, heads, d)
		} else if lastIssue, err = overviewSQL(ctx, tx, d, p.id); err != nil {
			return err
		}
		// Each part is read through an index: the newest command (by id,
		// which grows with time), the newest pickup, the newest handoff.
		return tx.QueryRowContext(ctx, `SELECT max(?2, ?3,
			coalesce((SELECT created_at FROM commands WHERE project_id = ?1 ORDER BY id DESC LIMIT 1), ''),
			coalesce((SELECT max(delivered_at) FROM commands WHERE project_id = ?1), ''),
			coalesce((SELECT created_at FROM handoffs WHERE project_id = ?1 ORDER BY version DESC LIMIT 1), ''))`,
			p.id, lastIssue, p.CreatedAt).Scan(&d.LastChange)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// overviewCache keeps each held project's last overview with the list of
// rows it was counted from. A list handed to readers is never changed (see
// projIndex.put), so the same list gives the same overview: on a project of
// tens of thousands of issues, the owner's page asks for it on every change
// and most changes are to other things. A list that differs from the kept
// one only in some rows' new versions (a comment, a status, a plan step)
// moves the kept counts by those rows alone.
type overviewCache struct {
	mu   sync.Mutex
	kept map[int64]*keptOverview
}

// keptOverview is an overview with what it was counted from. Nothing in it
// changes once it is kept: a newer overview is a new value.
type keptOverview struct {
	rows        []*head
	status      []int // unmerged rows by status code
	lastMillis  int64 // the newest row change, and its text
	last        string
	areas, tags []string
	// exact is false when a row's status is outside desk.Statuses: such
	// counts are kept by text, and are only ever counted again whole.
	exact  bool
	counts map[string]int
}

// of fills d's counts, areas and tags from heads, the project's held rows,
// and returns the time of its last issue change.
func (c *overviewCache) of(projectID int64, heads []*head, d *desk.ProjectDetail) string {
	c.mu.Lock()
	k := c.kept[projectID]
	c.mu.Unlock()
	if k == nil || !sameHeads(k.rows, heads) {
		next := k.moved(heads)
		if next == nil {
			next = countOverview(heads)
		}
		k = next
		c.mu.Lock()
		if c.kept == nil {
			c.kept = map[int64]*keptOverview{}
		}
		c.kept[projectID] = k
		c.mu.Unlock()
	}
	for s, n := range k.counts {
		d.Counts[s] += n
	}
	d.Areas, d.Tags = k.areas, k.tags // shared: nothing changes them
	return k.last
}

// countOverview counts an overview from every row.
func countOverview(heads []*head) *keptOverview {
	k := &keptOverview{rows: heads, counts: map[string]int{}}
	scratch := &desk.ProjectDetail{}
	scratch.Counts = k.counts
	k.last, k.lastMillis, k.status, k.exact = overview(scratch, heads)
	k.areas, k.tags = scratch.Areas, scratch.Tags
	return k
}

// moved returns the overview of heads counted from k by the rows that
// differ, or nil when heads is not k's list with some rows replaced by new
// versions that keep their area, tags and merge, or when the newest change
// would have to be looked for again: those are counted whole.
func (k *keptOverview) moved(heads []*head) *keptOverview {
	if k == nil || !k.exact {
		return nil
	}
	// Past a few hundred changed rows, counting them all costs about the
	// same.
	gone, came, ok := changedHeads(k.rows, heads, 2*256)
	if !ok || len(gone) != len(came) {
		return nil
	}
	next := &keptOverview{rows: heads, status: slices.Clone(k.status), lastMillis: k.lastMillis, last: k.last,
		areas: k.areas, tags: k.tags, exact: true}
	for i, r := range came {
		old := gone[i]
		if r.rowid != old.rowid || r.areaID != old.areaID || r.tagsRaw() != old.tagsRaw() ||
			(r.mergedID == 0) != (old.mergedID == 0) || r.st < 0 ||
			(old.updated == k.lastMillis && r.updated < old.updated) {
			return nil
		}
		if r.mergedID == 0 {
			next.status[old.st]--
			next.status[r.st]++
		}
		if r.updated > next.lastMillis {
			next.lastMillis, next.last = r.updated, r.updatedAt()
		}
	}
	next.counts = make(map[string]int, len(desk.Statuses))
	for i, n := range next.status {
		if n > 0 {
			next.counts[desk.Statuses[i]] = n
		}
	}
	return next
}

// overview fills a project's counts, areas and tags from its index rows
// and returns the time of its last issue change (as text and in
// milliseconds), the unmerged rows by status code, and whether every
// status was one of desk.Statuses.
func overview(d *desk.ProjectDetail, heads []*head) (string, int64, []int, bool) {
	areas, tags := map[string]*valueCount{}, map[string]*valueCount{}
	count := func(m map[string]*valueCount, v string, n int) {
		k := strings.ToLower(v)
		if c := m[k]; c != nil {
			c.n += n
			return
		}
		m[k] = &valueCount{v: v, n: n}
	}
	// A large project has tens of thousands of rows: they are counted by
	// their codes and ids, and the texts are folded once per value.
	statuses := newEnumTally(desk.Statuses)
	var areaIDs idCounts[string]
	var last int64 = -1
	lastAt := ""
	for _, r := range heads {
		if r.updated > last {
			last, lastAt = r.updated, r.updatedAt()
		}
		if r.mergedID != 0 {
			continue
		}
		statuses.add(r.st, r, (*head).status, 1)
		if r.areaID != 0 && areaIDs.add(r.areaID, 1) {
			areaIDs.first(r.areaID, r.area())
		}
		if r.tagsRaw() != "[]" {
			for _, t := range r.tags() {
				count(tags, t, 1)
			}
		}
	}
	statuses.into(d.Counts, desk.Statuses, asIs)
	for i, id := range areaIDs.order {
		count(areas, areaIDs.values[i], areaIDs.n[id])
	}
	d.Areas, d.Tags = byFrequency(areas), byFrequency(tags)
	return lastAt, last, statuses.n, len(statuses.odd) == 0
}

type valueCount struct {
	v string
	n int
}

func byFrequency(m map[string]*valueCount) []string {
	vs := make([]*valueCount, 0, len(m))
	for _, c := range m {
		vs = append(vs, c)
	}
	sort.Slice(vs, func(i, j int) bool {
		if vs[i].n != vs[j].n {
			return vs[i].n > vs[j].n
		}
		return vs[i].v < vs[j].v
	})
	out := make([]string, len(vs))
	for i, c := range vs {
		out[i] = c.v
	}
	return out
}

// overviewSQL is overview for a process that has not loaded the project.
func overviewSQL(ctx context.Context, tx queryer, d *desk.ProjectDetail, projectID int64) (string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT status, count(*) FROM issues WHERE project_id = ? AND merged_into IS NULL GROUP BY status`, projectID)
	if err != nil {
		return "", err
	}
	for rows.Next() {
		var s string
		var n int
		if err := rows.Scan(&s, &n); err != nil {
			rows.Close()
			return "", err
		}
		d.Counts[s] = n
	}
	rows.Close()
	if d.Areas, err = rankedValues(ctx, tx, `SELECT min(area), count(*) FROM issues WHERE project_id = ? AND area != '' AND merged_into IS NULL GROUP BY area COLLATE NOCASE`, projectID); err != nil {
		return "", err
	}
	if d.Tags, err = rankedValues(ctx, tx, `SELECT min(t.value), count(*) FROM issues i, json_each(i.tags) t WHERE i.project_id = ? AND i.merged_into IS NULL GROUP BY t.value COLLATE NOCASE`, projectID); err != nil {
		return "", err
	}
	var last string
	err = tx.QueryRowContext(ctx, `SELECT coalesce(max(updated_at), '') FROM issues WHERE project_id = ?`, projectID).Scan(&last)
	return last, err
}

func rankedValues(ctx context.Context, tx queryer, query string, args ...any) ([]string, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	type vc struct {
		v string
		n int
	}
	var vs []vc
	for rows.Next() {
		var x vc
		if err := rows.Scan(&x.v, &x.n); err != nil {
			return nil, err
		}
		vs = append(vs, x)
	}
	sort.SliceStable(vs, func(i, j int) bool {
		if vs[i].n != vs[j].n {
			return vs[i].n > vs[j].n
		}
		return vs[i].v < vs[j].v
	})
	out := make([]string, len(vs))
	for i, x := range vs {
		out[i] = x.v
	}
	return out, rows.Err()
}

func emptyCounts(keys []string) map[string]int {
	m := make(map[string]int, len(keys))
	for _, k := range keys {
		m[k] = 0
	}
	return m
}

// CreateProject adds a project.
func (db *DB) CreateProject(ctx context.Context, np desk.NewProject, actor string) (*desk.Project, error) {
	if err := np.Normalize(); err != nil {
		return nil, err
	}
	var out *desk.Project
	err := db.update(ctx, func(tx *Tx) error {
		var n int
		if err := tx.queryRow(`SELECT count(*) FROM projects WHERE slug = ?`, np.Slug).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return desk.ErrSlugTaken(np.Slug)
		}
		if err := tx.queryRow(`SELECT count(*) FROM projects WHERE prefix = ?`, np.Prefix).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return desk.ErrPrefixTaken(np.Prefix)
		}
		if _, err := tx.exec(`INSERT INTO projects (slug, name, prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			np.Slug, np.Name, np.Prefix, tx.ts, tx.ts); err != nil {
			if isUnique(err) {
				return desk.Errorf(desk.Conflict, "a project %q or prefix %s exists already", np.Slug, np.Prefix)
			}
			return err
		}
		if err := tx.projectChange(np.Slug, "project_created", actor); err != nil {
			return err
		}
		p, err := projectBySlug(ctx, tx, np.Slug)
		if err != nil {
			return err
		}
		p.Counts = emptyCounts(desk.Statuses)
		out = &p.Project
		return nil
	})
	return out, err
}

// UpdateProject changes a project's settings.
func (db *DB) UpdateProject(ctx context.Context, slug string, u desk.ProjectUpdate, actor string) (*desk.Project, error) {
	var out *desk.Project
	err := db.update(ctx, func(tx *Tx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		if u.Name != nil {
			if p.Name, err = desk.NormalizeProjectName(*u.Name); err != nil {
				return err
			}
		}
		if u.DefaultSeed != nil {
			p.DefaultSeed = *u.DefaultSeed
		}
		if u.Notify != nil {
			p.Notify = u.Notify.Apply(p.Notify)
		}
		var lead any
		if p.Lead != nil {
			lead = *p.Lead
		}
		if u.Lead != nil {
			lead = nil
			if *u.Lead != nil {
				l, err := desk.ValidLead(**u.Lead)
				if err != nil {
					return err
				}
				if l != "" {
					lead = l
				}
			}
		}
		if _, err := tx.exec(`UPDATE projects SET name = ?, default_seed = ?, notify = ?, lead = ?, updated_at = ? WHERE id = ?`,
			p.Name, p.DefaultSeed, jsonText(p.Notify), lead, tx.ts, p.id); err != nil {
			return err
		}
		if err := tx.projectChange(p.Slug, "project_updated", actor); err != nil {
			return err
		}
		np, err := projectByID(ctx, tx, p.id)
		if err != nil {
			return err
		}
		out = &np.Project
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// BackfillSeed gives the default seed to agent issues and checks without one.
func (db *DB) BackfillSeed(ctx context.Context, slug, actor string) (int, error) {
	var n int
	err := db.update(ctx, func(tx *Tx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		if p.DefaultSeed == nil {
			return desk.ErrNoDefaultSeed(p.Slug)
		}
		rows, err := tx.QueryContext(ctx, issueSelect(true)+`WHERE i.project_id = ? AND i.seed IS NULL`, p.id)
		if err != nil {
			return err
		}
		var targets []*row
		for rows.Next() {
			r, err := scanIssue(rows)
			if err != nil {
				rows.Close()
				return err
			}
			if desk.NeedsDefaultSeed(&r.Issue) {
				targets = append(targets, r)
			}
		}
		rows.Close()
		for _, r := range targets {
			loc := r.Location
			loc.Seed = p.DefaultSeed
			if err := tx.saveLocation(r, loc); err != nil {
				return err
			}
			if _, err := tx.activity(r, actor, desk.ActEdited, desk.SeedBackfillDetail(*p.DefaultSeed)); err != nil {
				return err
			}
		}
		n = len(targets)
		return nil
	})
	return n, err
}
