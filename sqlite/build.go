package sqlite

import (
	"context"
	"strings"

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
	in.Path = strings.TrimSpace(in.Path)
	in.Commit = strings.TrimSpace(in.Commit)
	in.Label = desk.CollapseSpace(in.Label)
	in.Author = cleanActor(in.Author, desk.OwnerActor)
	switch {
	case in.Path == "":
		return nil, desk.Errorf(desk.Invalid, "path: required; the player executable, build folder or version the owner plays")
	case len(in.Path) > desk.MaxBuildPath:
		return nil, desk.Errorf(desk.Invalid, "path: longer than %d characters", desk.MaxBuildPath)
	case len(in.Commit) > desk.MaxCommit:
		return nil, desk.Errorf(desk.Invalid, "commit: longer than %d characters", desk.MaxCommit)
	case len(in.Label) > desk.MaxBuildLabel:
		return nil, desk.Errorf(desk.Invalid, "label: longer than %d characters", desk.MaxBuildLabel)
	}
	if in.BuiltAt != "" {
		t, err := desk.ParseTime(in.BuiltAt)
		if err != nil {
			return nil, desk.Errorf(desk.Invalid, "built_at: %s", desk.ErrorMessage(err))
		}
		in.BuiltAt = desk.FormatTime(t)
	}
	res := &desk.BuildResult{Stamped: []string{}}
	err := db.update(ctx, func(tx *Tx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		res.Project = p.Slug
		if cur := p.Build; cur != nil && cur.Path == in.Path && cur.Commit == in.Commit &&
			(in.Label == "" || cur.Label == in.Label) && (in.BuiltAt == "" || cur.BuiltAt == in.BuiltAt) {
			res.Build, res.Unchanged, res.Enabled = cur, true, true
			return nil
		}
		var count int
		if err := tx.queryRow(`SELECT builds_count FROM projects WHERE id = ?`, p.id).Scan(&count); err != nil {
			return err
		}
		b := &desk.Build{Number: count + 1, Label: in.Label, Path: in.Path, Commit: in.Commit, BuiltAt: in.BuiltAt, SetAt: tx.ts, SetBy: in.Author}
		if b.Label == "" {
			b.Label = "build " + itoa(b.Number)
		}
		if b.BuiltAt == "" {
			b.BuiltAt = tx.ts
		}
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
			if r.Build != nil && r.Build.Number == b.Number {
				continue
			}
			if _, err := tx.exec(`UPDATE issues SET build = ?, updated_at = ? WHERE id = ?`, jsonText(ref), tx.ts, r.rowid); err != nil {
				return err
			}
			detail := map[string]any{"label": b.Label, "number": b.Number, "path": b.Path}
			if b.Commit != "" {
				detail["commit"] = b.Commit
			}
			if previous != nil {
				detail["previous"] = previous.Label
			}
			if _, err := tx.activity(r, in.Author, desk.ActBuild, detail); err != nil {
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
			return desk.Errorf(desk.Conflict, "%s publishes no builds; nothing to clear", p.Slug)
		}
		if _, err := tx.exec(`UPDATE projects SET build = NULL, builds_enabled = ?, updated_at = ? WHERE id = ?`, enabled, tx.ts, p.id); err != nil {
			return err
		}
		st = &desk.BuildState{Project: p.Slug, Enabled: enabled == 1}
		return tx.projectChange(p.Slug, "build_cleared", actor)
	})
	return st, err
}
