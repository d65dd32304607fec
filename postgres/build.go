package postgres

import (
	"context"

	"desk"

	"github.com/jackc/pgx/v5"
)

// BuildState returns the project's current build.
func (db *DB) BuildState(ctx context.Context, slug string) (*desk.BuildState, error) {
	p, err := projectBySlug(ctx, db.pool, slug)
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
		b := desk.NewBuild(in, p.buildsCount, tx.ts)
		if err := tx.exec(`UPDATE projects SET build = $1, builds_count = $2, builds_enabled = true, updated_at = $3 WHERE id = $4`,
			jsonText(b), b.Number, tx.ts, p.id); err != nil {
			return err
		}
		res.Build, res.Enabled = b, true
		var previous *desk.BuildRef
		if p.Build != nil {
			previous = p.Build.Ref()
		}
		var waiting []*row
		err = eachRow(ctx, tx, issueSelect(true)+`WHERE i.project_id = $1 AND i.status = 'to_check' AND i.merged_into IS NULL ORDER BY i.number`,
			[]any{p.id}, func(rs pgx.Rows) error {
				r, err := scanIssue(rs)
				waiting = append(waiting, r)
				return err
			})
		if err != nil {
			return err
		}
		ref := b.Ref()
		for _, r := range waiting {
			if !desk.NeedsBuildStamp(&r.Issue, b) {
				continue
			}
			if err := tx.exec(`UPDATE issues SET build = $1, updated_at = $2 WHERE id = $3`, jsonText(ref), tx.ts, r.rowid); err != nil {
				return err
			}
			if _, err := tx.activity(r, in.Author, desk.ActBuild, desk.BuildStampDetail(b, previous)); err != nil {
				return err
			}
			res.Stamped = append(res.Stamped, r.ID)
		}
		tx.projectChange(p.Slug, "build", in.Author)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// ClearBuild leaves the project without a current build, or stops builds.
func (db *DB) ClearBuild(ctx context.Context, slug string, off bool, actor string) (*desk.BuildState, error) {
	actor = desk.CleanActor(actor, desk.OwnerActor)
	var st *desk.BuildState
	err := db.update(ctx, func(tx *Tx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		enabled := !off
		if !off && !p.BuildsEnabled {
			return desk.ErrNoBuilds(p.Slug)
		}
		if err := tx.exec(`UPDATE projects SET build = NULL, builds_enabled = $1, updated_at = $2 WHERE id = $3`, enabled, tx.ts, p.id); err != nil {
			return err
		}
		st = &desk.BuildState{Project: p.Slug, Enabled: enabled}
		tx.projectChange(p.Slug, "build_cleared", actor)
		return nil
	})
	return st, err
}
