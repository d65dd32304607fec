package postgres

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"desk"

	"github.com/jackc/pgx/v5"
)

// Projects lists every project by name with its status counts.
func (db *DB) Projects(ctx context.Context) ([]*desk.Project, error) {
	out := []*desk.Project{}
	err := db.view(ctx, func(q querier) error {
		byID := map[int64]*desk.Project{}
		err := eachRow(ctx, q, projectSelect+`ORDER BY lower(name), slug`, nil, func(rs pgx.Rows) error {
			p, err := scanProject(rs)
			if err != nil {
				return err
			}
			p.Counts = desk.NewCounts().Status
			out = append(out, &p.Project)
			byID[p.id] = &p.Project
			return nil
		})
		if err != nil {
			return err
		}
		return eachRow(ctx, q, `SELECT project_id, status, count(*) FROM issues WHERE merged_into IS NULL GROUP BY project_id, status`, nil,
			func(rs pgx.Rows) error {
				var id int64
				var status string
				var n int
				if err := rs.Scan(&id, &status, &n); err != nil {
					return err
				}
				if p := byID[id]; p != nil {
					p.Counts[status] += n
				}
				return nil
			})
	})
	if err != nil {
		return nil, fmt.Errorf("list projects: %w", err)
	}
	// The embedded store orders by name without case, then slug; lower()
	// is PostgreSQL's, so the order is settled here the same way.
	sort.SliceStable(out, func(i, j int) bool {
		a, b := strings.ToLower(out[i].Name), strings.ToLower(out[j].Name)
		if a != b {
			return a < b
		}
		return out[i].Slug < out[j].Slug
	})
	return out, nil
}

// Project returns a project with its overview.
func (db *DB) Project(ctx context.Context, slug string) (*desk.ProjectDetail, error) {
	var d *desk.ProjectDetail
	err := db.view(ctx, func(q querier) error {
		p, err := projectBySlug(ctx, q, slug)
		if err != nil {
			return err
		}
		issues, err := projectIssues(ctx, q, p, false)
		if err != nil {
			return err
		}
		d = &desk.ProjectDetail{Project: p.Project}
		var lastIssue string
		d.Counts, d.Areas, d.Tags, lastIssue = desk.ProjectOverview(issues)
		return q.QueryRow(ctx, `SELECT greatest($2::text, $3::text,
			coalesce((SELECT created_at FROM commands WHERE project_id = $1 ORDER BY id DESC LIMIT 1), ''),
			coalesce((SELECT max(delivered_at) FROM commands WHERE project_id = $1), ''),
			coalesce((SELECT created_at FROM handoffs WHERE project_id = $1 ORDER BY version DESC LIMIT 1), ''))`,
			p.id, lastIssue, p.CreatedAt).Scan(&d.LastChange)
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// CreateProject adds a project.
func (db *DB) CreateProject(ctx context.Context, np desk.NewProject, actor string) (*desk.Project, error) {
	if err := np.Normalize(); err != nil {
		return nil, err
	}
	var out *desk.Project
	err := db.update(ctx, func(tx *Tx) error {
		var n int
		if err := tx.queryRow(`SELECT count(*) FROM projects WHERE slug = $1`, np.Slug).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return desk.ErrSlugTaken(np.Slug)
		}
		if err := tx.queryRow(`SELECT count(*) FROM projects WHERE prefix = $1`, np.Prefix).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return desk.ErrPrefixTaken(np.Prefix)
		}
		if err := tx.exec(`INSERT INTO projects (slug, name, prefix, created_at, updated_at) VALUES ($1, $2, $3, $4, $5)`,
			np.Slug, np.Name, np.Prefix, tx.ts, tx.ts); err != nil {
			if isUnique(err) {
				return desk.Errorf(desk.Conflict, "a project %q or prefix %s exists already", np.Slug, np.Prefix)
			}
			return err
		}
		tx.projectChange(np.Slug, "project_created", actor)
		p, err := projectBySlug(ctx, tx, np.Slug)
		if err != nil {
			return err
		}
		p.Counts = desk.NewCounts().Status
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
		lead := p.Lead
		if u.Lead != nil {
			lead = nil
			if *u.Lead != nil {
				l, err := desk.ValidLead(**u.Lead)
				if err != nil {
					return err
				}
				if l != "" {
					lead = &l
				}
			}
		}
		if err := tx.exec(`UPDATE projects SET name = $1, default_seed = $2, notify = $3, lead = $4, updated_at = $5 WHERE id = $6`,
			p.Name, p.DefaultSeed, jsonText(p.Notify), lead, tx.ts, p.id); err != nil {
			return err
		}
		tx.projectChange(p.Slug, "project_updated", actor)
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
		var targets []*row
		err = eachRow(ctx, tx, issueSelect(true)+`WHERE i.project_id = $1 AND i.seed IS NULL ORDER BY i.id`,
			[]any{p.id}, func(rs pgx.Rows) error {
				r, err := scanIssue(rs)
				if err == nil && desk.NeedsDefaultSeed(&r.Issue) {
					targets = append(targets, r)
				}
				return err
			})
		if err != nil {
			return err
		}
		for _, r := range targets {
			r.Location.Seed = p.DefaultSeed
			if err := tx.exec(`UPDATE issues SET location = $1, seed = $2, updated_at = $3 WHERE id = $4`,
				jsonText(r.Location), r.Location.Seed, tx.ts, r.rowid); err != nil {
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

// projectIssues reads every issue of a project, merged ones included; with
// text, their bodies and plans too.
func projectIssues(ctx context.Context, q querier, p *projectRow, text bool) ([]*desk.Issue, error) {
	var out []*desk.Issue
	err := eachRow(ctx, q, issueSelect(text)+`WHERE i.project_id = $1 ORDER BY i.id`, []any{p.id}, func(rs pgx.Rows) error {
		r, err := scanIssue(rs)
		if err != nil {
			return err
		}
		out = append(out, &r.Issue)
		return nil
	})
	return out, err
}
