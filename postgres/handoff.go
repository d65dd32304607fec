package postgres

import (
	"context"
	"errors"
	"strconv"

	"desk"

	"github.com/jackc/pgx/v5"
)

// Handoff returns a version of the project's handoff (0: the latest).
func (db *DB) Handoff(ctx context.Context, slug string, version int) (*desk.Handoff, error) {
	var h *desk.Handoff
	err := db.view(ctx, func(q querier) error {
		p, err := projectBySlug(ctx, q, slug)
		if err != nil {
			return err
		}
		h, err = readHandoff(ctx, q, p, version)
		return err
	})
	return h, err
}

func readHandoff(ctx context.Context, q querier, p *projectRow, version int) (*desk.Handoff, error) {
	h := &desk.Handoff{Project: p.Slug, SectionOrder: desk.HandoffSections}
	if err := q.QueryRow(ctx, `SELECT count(*) FROM handoffs WHERE project_id = $1`, p.id).Scan(&h.Versions); err != nil {
		return nil, err
	}
	query := `SELECT version, markdown, author, note, created_at FROM handoffs WHERE project_id = $1 ORDER BY version DESC LIMIT 1`
	args := []any{p.id}
	if version > 0 {
		query = `SELECT version, markdown, author, note, created_at FROM handoffs WHERE project_id = $1 AND version = $2`
		args = append(args, version)
	}
	err := q.QueryRow(ctx, query, args...).Scan(&h.Version, &h.Markdown, &h.Author, &h.Note, &h.CreatedAt)
	switch {
	case errors.Is(err, pgx.ErrNoRows) && version > 0:
		return nil, notFound("%s has no handoff version %d (it has %d)", p.Slug, version, h.Versions)
	case errors.Is(err, pgx.ErrNoRows):
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

// saveHandoff writes edit(latest) as a new version when it differs
// (desk.NextHandoff).
func (db *DB) saveHandoff(ctx context.Context, slug, author, note string, edit func(string) (string, error)) (*desk.Handoff, error) {
	author = desk.CleanActor(author, desk.OwnerActor)
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
		var id int64
		if err := tx.queryRow(`INSERT INTO handoffs (project_id, version, markdown, author, note, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
			p.id, v, md, author, note, tx.ts).Scan(&id); err != nil {
			return err
		}
		tx.feed(desk.Change{Project: p.Slug, Type: desk.ChangeHandoff, ID: id, Action: "handoff", Actor: author, Version: v}, 0)
		out, err = readHandoff(ctx, tx, p, v)
		return err
	})
	return out, err
}

// HandoffHistory lists a project's handoff versions, newest first.
func (db *DB) HandoffHistory(ctx context.Context, slug string) ([]desk.HandoffVersion, error) {
	out := []desk.HandoffVersion{}
	err := db.view(ctx, func(q querier) error {
		p, err := projectBySlug(ctx, q, slug)
		if err != nil {
			return err
		}
		return eachRow(ctx, q, `SELECT version, author, note, created_at, octet_length(markdown) FROM handoffs
			WHERE project_id = $1 ORDER BY version DESC LIMIT 100`, []any{p.id}, func(rs pgx.Rows) error {
			var v desk.HandoffVersion
			err := rs.Scan(&v.Version, &v.Author, &v.Note, &v.CreatedAt, &v.Size)
			out = append(out, v)
			return err
		})
	})
	return out, err
}

// HandoffDiff returns the unified diff from version from to version to
// (0: the latest; from 0: the one before to).
func (db *DB) HandoffDiff(ctx context.Context, slug string, from, to int) (*desk.HandoffDiff, error) {
	var out *desk.HandoffDiff
	err := db.view(ctx, func(q querier) error {
		p, err := projectBySlug(ctx, q, slug)
		if err != nil {
			return err
		}
		b, err := readHandoff(ctx, q, p, to)
		if err != nil {
			return err
		}
		if from, _, err = desk.HandoffDiffRange(p.Slug, from, b.Version, b.Version); err != nil {
			return err
		}
		a := &desk.Handoff{}
		if from > 0 {
			if a, err = readHandoff(ctx, q, p, from); err != nil {
				return err
			}
		}
		out = &desk.HandoffDiff{Project: p.Slug, From: from, To: b.Version,
			Diff: desk.UnifiedDiff(a.Markdown, b.Markdown, "handoff v"+strconv.Itoa(from), "handoff v"+strconv.Itoa(b.Version))}
		return nil
	})
	return out, err
}
