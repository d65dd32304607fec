package sqlite

import (
	"context"

	"desk"
)

// BuildState returns the project's current build.
func (db *DB) BuildState(ctx context.Context, slug string) (*desk.BuildState, error) {
	p, err := projectBySlug(ctx, db.pool(), slug)
	if err != nil {
		return nil, err
	}
	return &desk.BuildState{Project: p.Slug, Build: p.Build, Enabled: p.BuildsEnabled}, nil
}

// SetBuild publishes a build and stamps it on the issues waiting in to_check.
func (db *DB) SetBuild(ctx context.Context, slug string, in desk.BuildInput) (*desk.BuildResult, error) {
	if err := desk.NormalizeBuildInput(&in); err != nil {
		return nil, err
	}
	res := &desk.BuildResult{Stamped: []string{}}
	err := db.update(ctx, func(tx *Tx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		res.Project = p.Slug
		if desk.SameBuild(p.Build, in) {
			res.Build, res.Unchanged, res.Enabled = p.Build, true, true
			return nil
		}
		var count int
		if err := tx.queryRow(`SELECT builds_count FROM projects WHERE id = ?`, p.id).Scan(&count); err != nil {
			return err
		}
		b := desk.NewBuild(in, count, tx.ts)
		if _, err := tx.exec(`UPDATE projects SET build = ?, builds_count = ?, builds_enabled = 1, updated_at = ? WHERE id = ?`,
			jsonText(b), b.Number, tx.ts, p.id); err != nil {
			return err
		}
		res.Build, res.Enabled = b, true
		var previous *desk.BuildRef
		if p.Build != nil {
			previous = p.Build.Ref()
		}
		rows, err := tx.QueryContext(ctx, issueSelect(true)+`WHERE i.project_id = ? AND i.status = 'to_check' AND i.merged_into IS NULL ORDER BY i.number`, p.id)
		if err != nil {
			return err
		}
		var waiting []*row
		for rows.Next() {
			r, err := scanIssue(rows)
			if err != nil {
				rows.Close()
				return err
			}
			waiting = append(waiting, r)
		}
		rows.Close()
		ref := b.Ref()
		for _, r := range waiting {
			if !desk.NeedsBuildStamp(&r.Issue, b) {
				continue
			}
			if _, err := tx.exec(`UPDATE issues SET build = ?, updated_at = ? WHERE id = ?`, jsonText(ref), tx.ts, r.rowid); err != nil {
				return err
			}
			if _, err := tx.activity(r, in.Author, desk.ActBuild, desk.BuildStampDetail(b, previous)); err != nil {
				return err
			}
			res.Stamped = append(res.Stamped, r.ID)
		}
		return tx.projectChange(p.Slug, "build", in.Author)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ClearBuild leaves the project without a current build, or stops builds.
func (db *DB) ClearBuild(ctx context.Context, slug string, off bool, actor string) (*desk.BuildState, error) {
	actor = cleanActor(actor, desk.OwnerActor)
	var st *desk.BuildState
	err := db.update(ctx, func(tx *Tx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		enabled := 1
		if off {
			enabled = 0
		} else if !p.BuildsEnabled {
			return desk.ErrNoBuilds(p.Slug)
		}
		if _, err := tx.exec(`UPDATE projects SET build = NULL, builds_enabled = ?, updated_at = ? WHERE id = ?`, enabled, tx.ts, p.id); err != nil {
			return err
		}
		st = &desk.BuildState{Project: p.Slug, Enabled: enabled == 1}
		return tx.projectChange(p.Slug, "build_cleared", actor)
	})
	return st, err
}
