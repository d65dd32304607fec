package sqlite

import (
	"context"
	"database/sql"

	"desk"
)

// Handoff returns a version of the project's handoff (0: the latest).
func (db *DB) Handoff(ctx context.Context, slug string, version int) (*desk.Handoff, error) {
	var h *desk.Handoff
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectKey(ctx, tx, slug) // readHandoff reads its id and slug only
		if err != nil {
			return err
		}
		h, err = readHandoff(ctx, tx, p, version)
		return err
	})
	return h, err
}

func readHandoff(ctx context.Context, q queryer, p *projectRow, version int) (*desk.Handoff, error) {
	h := &desk.Handoff{Project: p.Slug, SectionOrder: desk.HandoffSections}
	if err := q.QueryRowContext(ctx, `SELECT count(*) FROM handoffs WHERE project_id = ?`, p.id).Scan(&h.Versions); err != nil {
		return nil, err
	}
	query := `SELECT version, markdown, author, note, created_at FROM handoffs WHERE project_id = ? ORDER BY version DESC LIMIT 1`
	args := []any{p.id}
	if version > 0 {
		query = `SELECT version, markdown, author, note, created_at FROM handoffs WHERE project_id = ? AND version = ?`
		args = append(args, version)
	}
	err := q.QueryRowContext(ctx, query, args...).Scan(&h.Version, &h.Markdown, &h.Author, &h.Note, &h.CreatedAt)
	switch {
	case err == sql.ErrNoRows && version > 0:
		return nil, notFound("%s has no handoff version %d (it has %d)", p.Slug, version, h.Versions)
	case err == sql.ErrNoRows:
		h.Version = 0
	case err != nil:
		return nil, err
	}
	h.Sections = desk.HandoffSectionMap(h.Markdown)
	return h, nil
}

// SaveHandoff saves a whole handoff as a new version.
func (db *DB) SaveHandoff(ctx context.Context, slug, markdown, author, note string) (*desk.Handoff, error) {
	return db.saveHandoff(ctx, slug, author, note, func(string) (string, error) { return markdown, nil })
}

// UpdateHandoffSection replaces one section of the latest handoff.
func (db *DB) UpdateHandoffSection(ctx context.Context, slug, section, text, author string) (*desk.Handoff, error) {
	edit, note, err := desk.HandoffSectionEdit(section, text)
	if err != nil {
		return nil, err
	}
	return db.saveHandoff(ctx, slug, author, note, edit)
}

// saveHandoff writes edit(latest) as a new version when it differs.
func (db *DB) saveHandoff(ctx context.Context, slug, author, note string, edit func(string) (string, error)) (*desk.Handoff, error) {
	author = cleanActor(author, desk.OwnerActor)
	note, err := desk.NormalizeHandoffNote(note)
	if err != nil {
		return nil, err
	}
	var out *desk.Handoff
	err = db.update(ctx, func(tx *Tx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		latest, err := readHandoff(ctx, tx, p, 0)
		if err != nil {
			return err
		}
		md, changed, err := desk.NextHandoff(latest.Markdown, edit)
		if err != nil {
			return err
		}
		if !changed {
			out = latest
			return nil
		}
		v := latest.Version + 1
		res, err := tx.exec(`INSERT INTO handoffs (project_id, version, markdown, author, note, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
			p.id, v, md, author, note, tx.ts)
		if err != nil {
			return err
		}
		id, _ := res.LastInsertId()
		if err := tx.feed(desk.Change{Project: p.Slug, Type: desk.ChangeHandoff, ID: id, Action: "handoff", Actor: author, Version: v}, 0); err != nil {
			return err
		}
		out, err = readHandoff(ctx, tx, p, v)
		return err
	})
	return out, err
}

// HandoffHistory lists a project's handoff versions, newest first.
func (db *DB) HandoffHistory(ctx context.Context, slug string) ([]desk.HandoffVersion, error) {
	out := []desk.HandoffVersion{}
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT version, author, note, created_at, length(CAST(markdown AS BLOB)) FROM handoffs
			WHERE project_id = ? ORDER BY version DESC LIMIT 100`, p.id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var v desk.HandoffVersion
			if err := rows.Scan(&v.Version, &v.Author, &v.Note, &v.CreatedAt, &v.Size); err != nil {
				return err
			}
			out = append(out, v)
		}
		return rows.Err()
	})
	return out, err
}

// HandoffDiff returns the unified diff from version from to version to
// (0: the latest; from 0: the one before to).
func (db *DB) HandoffDiff(ctx context.Context, slug string, from, to int) (*desk.HandoffDiff, error) {
	var out *desk.HandoffDiff
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		b, err := readHandoff(ctx, tx, p, to)
		if err != nil {
			return err
		}
		if from, _, err = desk.HandoffDiffRange(p.Slug, from, b.Version, b.Version); err != nil {
			return err
		}
		a := &desk.Handoff{}
		if from > 0 {
			if a, err = readHandoff(ctx, tx, p, from); err != nil {
				return err
			}
		}
		out = &desk.HandoffDiff{Project: p.Slug, From: from, To: b.Version,
			Diff: desk.UnifiedDiff(a.Markdown, b.Markdown, "handoff v"+itoa(from), "handoff v"+itoa(b.Version))}
		return nil
	})
	return out, err
}
