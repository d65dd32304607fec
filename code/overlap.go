package code

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"desk"
)

// OpenChangeTTL is how long an open change warns others: one older than
// this is work that stopped.
const OpenChangeTTL = 14 * 24 * time.Hour

// workspacePattern is the id of a work folder.
var workspacePattern = desk.LazyRegexp(`^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$`)

// CheckWorkspace refuses a work folder id that is not 1 to 100 letters,
// digits, '.', '_' or '-'.
func CheckWorkspace(ws string) error {
	if !workspacePattern().MatchString(ws) {
		return desk.Errorf(desk.Invalid, "workspace %q: a work folder's id is 1 to 100 letters, digits, '.', '_' or '-'", clip(ws))
	}
	return nil
}

// Overlap is an open change of another work folder that touches some of
// the same paths, with the line a client prints for it.
type Overlap struct {
	OpenChange
	Shared  []string `json:"shared"`
	Warning string   `json:"warning"`
}

// Indexed answers POST changes: the change and the open changes of other
// work folders that touch its paths.
type Indexed struct {
	Change   *ChangeRow `json:"change"`
	Overlaps []Overlap  `json:"overlaps"`
}

// IndexOpen indexes a change and, when a work folder sent it, makes it
// that folder's open change and answers the open changes of the other
// folders that touch one of its paths (sent in the last OpenChangeTTL).
func (r *Repository) IndexOpen(ctx context.Context, id ID, workspace string) (*Indexed, error) {
	if workspace != "" {
		if err := CheckWorkspace(workspace); err != nil {
			return nil, err
		}
	}
	row, err := r.Index(ctx, id)
	if err != nil {
		return nil, err
	}
	out := &Indexed{Change: row, Overlaps: []Overlap{}}
	if workspace == "" {
		return out, nil
	}
	if e, err := r.s.Store.Landed(ctx, r.ID, id); err != nil || e != nil {
		return out, err // a landed change is no one's open change
	}
	paths, err := r.ChangedPaths(ctx, row)
	if err != nil {
		return nil, err
	}
	now := r.s.Now().UTC()
	mine := OpenChange{Repo: r.ID, Workspace: workspace, Change: id, Author: row.Author, Intents: row.Intents, Paths: paths, SentAt: now}
	if err := r.s.Store.PutOpenChange(ctx, mine); err != nil {
		return nil, err
	}
	open, err := r.s.Store.OpenChanges(ctx, r.ID, now.Add(-OpenChangeTTL))
	if err != nil {
		return nil, err
	}
	for _, o := range open {
		if o.Workspace == workspace {
			continue
		}
		if shared := sharedPaths(paths, o.Paths); len(shared) > 0 {
			out.Overlaps = append(out.Overlaps, Overlap{OpenChange: o, Shared: shared, Warning: OverlapWarning(o, shared)})
		}
	}
	return out, nil
}

// OverlapPair is two open changes that touch the same paths.
type OverlapPair struct {
	A      OpenChange `json:"a"`
	B      OpenChange `json:"b"`
	Shared []string   `json:"shared"`
}

// Overlaps returns each pair of open changes (sent in the last
// OpenChangeTTL) of two work folders that touch the same paths.
func (r *Repository) Overlaps(ctx context.Context) ([]OverlapPair, error) {
	open, err := r.s.Store.OpenChanges(ctx, r.ID, r.s.Now().UTC().Add(-OpenChangeTTL))
	if err != nil {
		return nil, err
	}
	out := []OverlapPair{}
	for i := range open {
		for j := i + 1; j < len(open); j++ {
			if shared := sharedPaths(open[i].Paths, open[j].Paths); len(shared) > 0 {
				out = append(out, OverlapPair{A: open[i], B: open[j], Shared: shared})
			}
		}
	}
	return out, nil
}

// OpenChangesOf returns the overlaps of one work folder's open change with
// the open changes of the others: what the session-start summary of an
// agent working in that folder shows.
func (r *Repository) OpenChangesOf(ctx context.Context, workspace string) ([]Overlap, error) {
	pairs, err := r.Overlaps(ctx)
	if err != nil {
		return nil, err
	}
	out := []Overlap{}
	for _, p := range pairs {
		switch workspace {
		case p.A.Workspace:
			out = append(out, Overlap{OpenChange: p.B, Shared: p.Shared, Warning: OverlapWarning(p.B, p.Shared)})
		case p.B.Workspace:
			out = append(out, Overlap{OpenChange: p.A, Shared: p.Shared, Warning: OverlapWarning(p.A, p.Shared)})
		}
	}
	return out, nil
}

// sharedPaths returns the paths both lists hold. A folder's path holds
// the files under it.
func sharedPaths(a, b []string) []string {
	var out []string
	for _, p := range a {
		for _, q := range b {
			if p == q || strings.HasPrefix(q, p+"/") || strings.HasPrefix(p, q+"/") {
				out = append(out, p)
				break
			}
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// OverlapWarning is the line a client prints for another work folder's
// open change that touches the same paths:
//
//	warning: the open change 1a2b3c4d5e6f of agent-gpuscale for MG-79 also changes src/a.ts (sent 2026-10-22 14:05 UTC)
func OverlapWarning(o OpenChange, shared []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "warning: the open change %s of %s", o.Change.Short(), AuthorName(o.Author))
	if len(o.Intents) > 0 {
		b.WriteString(" for " + strings.Join(o.Intents, ", "))
	}
	b.WriteString(" also changes ")
	const show = 3
	if len(shared) <= show {
		b.WriteString(strings.Join(shared, ", "))
	} else {
		fmt.Fprintf(&b, "%s and %d more files", strings.Join(shared[:show], ", "), len(shared)-show)
	}
	fmt.Fprintf(&b, " (sent %s UTC)", o.SentAt.UTC().Format("2006-01-02 15:04"))
	return b.String()
}
