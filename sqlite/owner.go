package sqlite

import (
	"context"

	"desk"
)

// ownerEventsSQL reads the feed rows that may be owner events, newest
// first, with what each one refers to. The feed's (project, seq) index
// makes it a short range scan: a session's cursor is rarely far behind.
const ownerEventsSQL = `
SELECT c.seq, coalesce(c.issue, ''), c.type, c.action, c.actor, coalesce(c.verdict, ''), c.created_at,
	i.title, i.source, i.merged_into IS NOT NULL, coalesce(cm.text, ''), coalesce(a.detail, '{}')
FROM changes c
JOIN issues i ON i.id = c.issue_id
LEFT JOIN comments cm ON c.type = 'comment' AND cm.id = c.ref_id
LEFT JOIN activity a ON c.type = 'activity' AND a.id = c.ref_id
WHERE c.project = ? AND c.seq > ? AND c.seq <= ? AND (
	(c.type = 'comment' AND lower(c.actor) = 'owner') OR
	(c.type = 'activity' AND c.action = 'created') OR
	(c.type = 'activity' AND lower(c.actor) = 'owner' AND c.action IN ('status', 'plan', 'merged', 'parent')))
ORDER BY c.seq DESC
LIMIT ?`

// OwnerEvents returns the owner's activity on project slug after feed row
// after, newest first and at most limit of them: the owner's comments and
// verdicts, new reports from the owner or the game, the owner's status
// changes (other than those a verdict or a plan step made), plan step
// changes and notes, merges and parents. The project's notify setting filters them. Every reader of the
// owner's activity (the prompt hooks, the MCP channel) asks here, so they
// all tell the same story.
func (db *DB) OwnerEvents(ctx context.Context, slug string, after int64, limit int) (*desk.OwnerEvents, error) {
	if limit <= 0 {
		limit = 10
	}
	out := &desk.OwnerEvents{Events: []*desk.OwnerEvent{}}
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		out.Project = &p.Project
		if out.Last, err = feedSeq(ctx, tx); err != nil {
			return err
		}
		if after >= out.Last {
			return nil
		}
		rows, err := tx.QueryContext(ctx, ownerEventsSQL, p.Slug, after, out.Last, desk.MaxOwnerScan)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r desk.OwnerFeedRow
			if err := rows.Scan(&r.Seq, &r.Issue, &r.Type, &r.Action, &r.Actor, &r.Verdict, &r.At,
				&r.Title, &r.Source, &r.Merged, &r.CommentText, &r.Detail); err != nil {
				return err
			}
			e := r.Event(p.Slug)
			if e == nil || !p.Notify.Enabled(desk.NotifyEventOf(e.Kind)) {
				continue
			}
			if len(out.Events) < limit {
				out.Events = append(out.Events, e)
			} else {
				out.More++
			}
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Brief returns what an agent session is told when it starts on project
// slug: the project with its counts by status, the latest handoff and the
// feed position, read in one snapshot with a handful of indexed queries
// (a session-start hook runs it before every session).
func (db *DB) Brief(ctx context.Context, slug string) (*desk.Brief, error) {
	var b *desk.Brief
	err := db.view(ctx, func(tx *readTx) error {
		p, err := projectBySlug(ctx, tx, slug)
		if err != nil {
			return err
		}
		b = &desk.Brief{Project: &p.Project}
		// Counted from the (project_id, status) index alone, less the few
		// merged issues found through the merged_into index ("+" keeps the
		// planner off the project index there): counting "merged_into IS
		// NULL" directly would read every issue row of the project, bodies
		// and all.
		p.Counts = emptyCounts(desk.Statuses)
		for _, q := range []struct {
			sql  string
			sign int
		}{
			{`SELECT status, count(*) FROM issues WHERE project_id = ? GROUP BY status`, 1},
			{`SELECT status, count(*) FROM issues WHERE merged_into IS NOT NULL AND +project_id = ? GROUP BY status`, -1},
		} {
			rows, err := tx.QueryContext(ctx, q.sql, p.id)
			if err != nil {
				return err
			}
			for rows.Next() {
				var s string
				var n int
				if err := rows.Scan(&s, &n); err != nil {
					rows.Close()
					return err
				}
				p.Counts[s] += q.sign * n
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		if b.Handoff, err = readHandoff(ctx, tx, p, 0); err != nil {
			return err
		}
		b.Seq, err = feedSeq(ctx, tx)
		return err
	})
	return b, err
}
