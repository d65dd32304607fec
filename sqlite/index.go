package sqlite

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
)

// issueIndex keeps the list fields of every issue of the projects this
// process has listed, in memory. Lists, facet counts and sorts are computed
// from it in microseconds instead of scanning the table on every request.
// It follows the change feed: every write names the issues it touched, so
// before each read the index reloads just those rows, in the same snapshot
// as the read. Rows are never changed in place, only replaced, so a list
// can work on a copy of the slice without holding the lock.
type issueIndex struct {
	db *DB

	mu       sync.Mutex
	seq      int64 // the feed is applied up to here
	loaded   bool  // seq is valid
	projects map[int64]*projIndex
	owner    map[int64]int64 // issue row id → project id, for loaded projects
}

type projIndex struct {
	names   *projNames
	heads   map[int64]*head
	numbers map[int64]int // row id → number, for parent and merge keys
	list    []*head       // heads as a slice; nil when it must be rebuilt

	// The ids of the rows' facet values (see row.areaID): every exact
	// spelling of an area or milestone, and every seed, seen in the
	// project. Ids are never reused; a value no row has any more keeps its.
	words map[string]int32
	seeds map[int64]int32
}

// maxFeedCatchUp bounds how many feed rows the index applies one by one;
// past it, reloading the projects is cheaper.
const maxFeedCatchUp = 5000

func newIssueIndex(db *DB) *issueIndex {
	return &issueIndex{db: db, projects: map[int64]*projIndex{}, owner: map[int64]int64{}}
}

// snapshot returns the current list rows of a project as seen by q (a read
// transaction), loading the project on first use.
func (x *issueIndex) snapshot(ctx context.Context, q queryer, projectID int64) ([]*head, error) {
	x.mu.Lock()
	defer x.mu.Unlock()
	current, err := x.sync(ctx, q)
	if err != nil {
		return nil, err
	}
	p := x.projects[projectID]
	if p == nil {
		if p, err = x.load(ctx, q, projectID); err != nil {
			return nil, err
		}
		// A snapshot older than the index cannot seed it: the feed rows
		// between the two would never be applied to this project.
		if current {
			x.projects[projectID] = p
			for id := range p.heads {
				x.owner[id] = projectID
			}
		}
	}
	if p.list == nil {
		p.list = make([]*head, 0, len(p.heads))
		for _, r := range p.heads {
			p.list = append(p.list, r)
		}
		// Oldest first, so that whatever depends on the order (the first
		// spelling of an area in the counts) is the same every time.
		slices.SortFunc(p.list, func(a, b *head) int { return cmp.Compare(a.rowid, b.rowid) })
	}
	return p.list, nil
}

// sync applies the feed rows written since the last read, up to what q's
// snapshot shows. It reports whether the index now matches the snapshot
// exactly (false when another reader already applied newer rows).
func (x *issueIndex) sync(ctx context.Context, q queryer) (bool, error) {
	last, err := feedSeq(ctx, q)
	if err != nil {
		return false, err
	}
	switch {
	case !x.loaded || last-x.seq > maxFeedCatchUp:
		// New, or far behind: start again from this snapshot.
		x.projects, x.owner = map[int64]*projIndex{}, map[int64]int64{}
		x.seq, x.loaded = last, true
		return true, nil
	case last < x.seq:
		return false, nil
	case last == x.seq:
		return true, nil
	}
	rows, err := q.QueryContext(ctx, `SELECT DISTINCT issue_id, project FROM changes WHERE seq > ? AND seq <= ? AND issue_id IS NOT NULL`, x.seq, last)
	if err != nil {
		return false, err
	}
	// Only the issues of projects the index holds are read again: those it
	// holds already (one may have moved out) and those a change names one
	// of its projects for (new, or moved in). An agent's server holds the
	// project it lists, while the others write elsewhere too.
	held := make(map[string]bool, len(x.projects))
	for _, p := range x.projects {
		held[p.names.slug] = true
	}
	var ids []int64
	seen := map[int64]bool{}
	for rows.Next() {
		var id int64
		var project string
		if err := rows.Scan(&id, &project); err != nil {
			rows.Close()
			return false, err
		}
		_, holds := x.owner[id]
		if seen[id] || !holds && project != "" && !held[project] {
			continue
		}
		seen[id] = true
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return false, err
	}
	x.seq = last
	if len(ids) == 0 {
		return true, nil
	}
	// A child's change moves its parent's counters (kept by triggers, with
	// no feed row of the parent's own): reload old and new parents too.
	for _, id := range ids {
		if pid, ok := x.owner[id]; ok {
			if r := x.projects[pid].heads[id]; r != nil && r.parentID != 0 && !seen[r.parentID] {
				seen[r.parentID] = true
				ids = append(ids, r.parentID)
			}
		}
	}
	fresh, err := x.read(ctx, q, `WHERE id IN (SELECT value FROM json_each(?))`, jsonIDs(ids))
	if err != nil {
		return false, err
	}
	var parents []int64
	for _, r := range fresh {
		if r.parentID != 0 && !seen[r.parentID] {
			seen[r.parentID] = true
			parents = append(parents, r.parentID)
		}
	}
	if len(parents) > 0 {
		more, err := x.read(ctx, q, `WHERE id IN (SELECT value FROM json_each(?))`, jsonIDs(parents))
		if err != nil {
			return false, err
		}
		for id, r := range more {
			fresh[id] = r
		}
		ids = append(ids, parents...)
	}
	for _, r := range fresh {
		if p := x.projects[r.projectID]; p != nil {
			p.numbers[r.rowid] = r.number
		}
	}
	owned := map[*projIndex]bool{}
	for _, id := range ids {
		r := fresh[id]
		if old, ok := x.owner[id]; ok && (r == nil || r.projectID != old) {
			p := x.projects[old]
			delete(p.heads, id)
			p.list = nil
			delete(x.owner, id)
		}
		if r == nil {
			continue
		}
		if p := x.projects[r.projectID]; p != nil {
			p.name(r)
			if old := p.heads[id]; old != nil {
				// The new version may extend what was read of the old one.
				if d := old.cache.detail.Load(); d != nil {
					r.cache.prev = d
				} else {
					r.cache.prev = old.cache.prev
				}
			}
			p.heads[id] = r
			p.put(r, owned)
			x.owner[id] = r.projectID
		}
	}
	return true, nil
}

// put places r in the project's list where the row with its id was, so
// that one changed issue costs a copy of the list instead of a rebuild and
// a sort of every row. Readers walk the list they were given without the
// lock, so the first change of a sync works on a copy (owned), which later
// changes of the same sync may change in place: no reader has it yet. A
// row the list does not hold goes at its end when it is the newest;
// anything else leaves the list to be rebuilt.
func (p *projIndex) put(r *head, owned map[*projIndex]bool) {
	if p.list == nil {
		return
	}
	i, found := slices.BinarySearchFunc(p.list, r.rowid, func(e *head, id int64) int { return cmp.Compare(e.rowid, id) })
	if !found && i < len(p.list) {
		p.list = nil
		return
	}
	if !owned[p] {
		p.list = slices.Clone(p.list)
		owned[p] = true
	}
	if found {
		p.list[i] = r
	} else {
		p.list = append(p.list, r)
	}
}

// name fills what a head read without joins takes from its project: the
// project's names, the ids of its facet values, and the numbers of its
// parent and merge target, which are in the same project.
func (p *projIndex) name(h *head) {
	h.proj = p.names
	if a := h.area(); a != "" {
		h.areaID = idOf(p.words, a)
	}
	if m := h.milestone(); m != "" {
		h.milestoneID = idOf(p.words, m)
	}
	if seed, ok := h.seed(); ok {
		h.seedID = idOf(p.seeds, seed)
	}
	if h.parentID != 0 {
		h.parentNumber = p.numbers[h.parentID]
	}
	if h.mergedID != 0 {
		h.mergedNumber = p.numbers[h.mergedID]
	}
}

// idOf returns the id ids gave v, giving it the next one (from 1) the
// first time.
func idOf[K comparable](ids map[K]int32, v K) int32 {
	id, ok := ids[v]
	if !ok {
		id = int32(len(ids) + 1)
		ids[v] = id
	}
	return id
}

func (x *issueIndex) load(ctx context.Context, q queryer, projectID int64) (*projIndex, error) {
	proj, err := projectByID(ctx, q, projectID)
	if err != nil {
		return nil, err
	}
	heads, err := x.read(ctx, q, `INDEXED BY issues_head WHERE project_id = ?`, projectID)
	if err != nil {
		return nil, err
	}
	p := &projIndex{names: &projNames{slug: proj.Slug, prefix: proj.Prefix}, heads: heads, numbers: make(map[int64]int, len(heads)),
		words: map[string]int32{}, seeds: map[int64]int32{}}
	for id, r := range heads {
		p.numbers[id] = r.number
	}
	for _, r := range heads {
		p.name(r)
	}
	return p, nil
}

// headColumns are the fields a list shows, in the order of the h*
// constants (see head).
const headColumns = `project_id, number, title, kind, status, priority, area, tags,
	location, coalesce(seed, ''), source, external_ref, size, milestone, coalesce(build, ''), plan_done, plan_total,
	coalesce(parent_id, ''), coalesce(merged_into, ''), comment_count, attachment_count, coalesce(last_verdict, ''),
	child_count, child_done, created_at, updated_at, coalesce(closed_at, '')`

// headExpr packs headColumns into one text, separated by the unit
// separator. Migration 5 indexes it (issues_head), so a list reads each
// issue's packed fields from the index as they were stored: the driver's
// cost is per column, and a list reads every issue of a project. Keys and
// the JSON fields are filled in later (see projIndex.name, and
// head.decoded). The index holds this text as written here: change it only
// with a migration that makes the index again.
const headExpr = `concat_ws(char(31), ` + headColumns + `)`

// headSelect reads an issue's id and its packed fields.
const headSelect = `SELECT id, ` + headExpr + ` FROM issues `

// headFields is how many fields headSelect packs into its text.
const headFields = 27

func (x *issueIndex) read(ctx context.Context, q queryer, where string, args ...any) (map[int64]*head, error) {
	rows, err := q.QueryContext(ctx, headSelect+where, args...)
	if err != nil {
		return nil, fmt.Errorf("read issues: %w", err)
	}
	defer rows.Close()
	out := map[int64]*head{}
	var odd []int64
	// A one-shot process takes its heads from slabs: one allocation per
	// hundreds of heads instead of one per head. A long-lived process
	// allocates each head alone, so that a head a later version replaces
	// is freed rather than kept by its slab's other heads.
	var slab []head
	for rows.Next() {
		var id int64
		var packed string
		if err := rows.Scan(&id, &packed); err != nil {
			return nil, err
		}
		var h *head
		if x.db.oneShot {
			if len(slab) == cap(slab) {
				slab = make([]head, 0, 256)
			}
			slab = slab[:len(slab)+1]
			h = &slab[len(slab)-1]
		} else {
			h = new(head)
		}
		if !newHead(h, id, packed) {
			odd = append(odd, id)
			continue
		}
		out[id] = h
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	// A text field holding the separator (data from elsewhere) cannot be
	// cut out of the packed text; such heads are read field by field.
	for _, id := range odd {
		h := new(head)
		ok, err := readOddHead(ctx, q, h, id)
		if err != nil {
			return nil, err
		}
		if ok {
			out[id] = h
		}
	}
	return out, nil
}

func jsonIDs(ids []int64) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// current returns the index rows of an issue and of its parent when the
// index holds the issue's project and matches q's snapshot exactly; nil
// otherwise. Caches kept on a row are only valid for that snapshot.
func (x *issueIndex) current(ctx context.Context, q queryer, projectID, rowid, parentID int64) (h, parent *head) {
	x.mu.Lock()
	defer x.mu.Unlock()
	p := x.projects[projectID]
	if p == nil {
		return nil, nil
	}
	if exact, err := x.sync(ctx, q); err != nil || !exact {
		return nil, nil
	}
	h = p.heads[rowid]
	if parentID != 0 {
		parent = p.heads[parentID]
	}
	return h, parent
}

// count returns how many issues the index holds for project slug, and
// whether it holds the project at all.
func (x *issueIndex) count(slug string) (int, bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, p := range x.projects {
		if p.names.slug == slug {
			return len(p.heads), true
		}
	}
	return 0, false
}

// held returns the project's rows when the index holds the project
// already (after syncing it with q), and nil otherwise: a short-lived
// process answers from SQL rather than load a whole project for one read.
func (x *issueIndex) held(ctx context.Context, q queryer, projectID int64) []*head {
	x.mu.Lock()
	held := x.projects[projectID] != nil
	x.mu.Unlock()
	if !held {
		return nil
	}
	rows, err := x.snapshot(ctx, q, projectID)
	if err != nil {
		return nil
	}
	return rows
}

// WarmUp loads every project's issues into the index, so that a server's
// first reads (a project's overview, its first list) answer from memory
// like all the later ones.
func (db *DB) WarmUp(ctx context.Context) error {
	slugs, err := db.ProjectSlugs(ctx)
	if err != nil {
		return err
	}
	for _, slug := range slugs {
		err := db.view(ctx, func(tx *readTx) error {
			pr, err := projectBySlug(ctx, tx, slug)
			if err != nil {
				return err
			}
			_, err = db.index.snapshot(ctx, tx, pr.id)
			return err
		})
		if err != nil {
			return err
		}
	}
	return nil
}
