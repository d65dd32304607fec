package postgres

import (
	"context"

	"desk"

	"github.com/jackc/pgx/v5"
)

// The agents' work calls: what a session is told when it starts, the
// owner's events it is told of after, the newest part of an issue, and a
// progress report in one write.

// Progress records an agent's progress on an issue in one transaction: a
// change of plan step n (when p is not nil) and a short comment (when
// text is not empty), each by the rules of UpdateStep and AddComment;
// either both land or neither.
func (db *DB) Progress(ctx context.Context, id string, n int, p *desk.StepPatch, text, actor string) (*desk.ProgressResult, error) {
	actor, hasText, err := desk.CheckProgress(p, text, actor)
	if err != nil {
		return nil, err
	}
	res := &desk.ProgressResult{}
	is, err := db.writeIssue(ctx, id, func(tx *Tx, r *row) error {
		if p != nil {
			if err := tx.updateStep(r, n, *p, actor); err != nil {
				return err
			}
		}
		if hasText {
			if res.CommentID, err = tx.addComment(r, desk.CommentInput{Author: actor, Text: text}, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Issue = is
	return res, nil
}

// IssueTail returns an issue as Issue does (following merges), with only
// its newest nComments comments and nActivity timeline entries, and only
// the files of those comments (desk.TailOf).
func (db *DB) IssueTail(ctx context.Context, id string, nComments, nActivity int) (*desk.IssueTail, error) {
	d, err := db.Issue(ctx, id)
	if err != nil {
		return nil, err
	}
	return desk.TailOf(d, nComments, nActivity), nil
}

// ownerEventsSQL reads the feed rows that may be owner events, newest
// first, with what each one refers to (changes_project makes it a range).
const ownerEventsSQL = `
SELECT c.seq, coalesce(c.issue, ''), c.type, c.action, c.actor, coalesce(c.verdict, ''), c.created_at,
	i.title, i.source, i.merged_into IS NOT NULL, coalesce(cm.text, ''), coalesce(a.detail, '{}')
FROM changes c
JOIN issues i ON i.id = c.issue_id
LEFT JOIN comments cm ON c.type = 'comment' AND cm.id = c.ref_id
LEFT JOIN activity a ON c.type = 'activity' AND a.id = c.ref_id
WHERE c.project = $1 AND c.seq > $2 AND c.seq <= $3 AND (
	(c.type = 'comment' AND lower(c.actor) = 'owner') OR
	(c.type = 'activity' AND c.action = 'created') OR
	(c.type = 'activity' AND lower(c.actor) = 'owner' AND c.action IN ('status', 'plan', 'merged', 'parent')))
ORDER BY c.seq DESC
LIMIT $4`

// OwnerEvents returns the owner's activity on project slug after feed row
// after, newest first and at most limit of them (desk.OwnerFeedRow.Event
// says which rows are events), filtered by the project's notify setting.
func (db *DB) OwnerEvents(ctx context.Context, slug string, after int64, limit int) (*desk.OwnerEvents, error) {
	if limit <= 0 {
		limit = 10
	}
	out := &desk.OwnerEvents{Events: []*desk.OwnerEvent{}}
	err := db.view(ctx, func(q querier) error {
		p, err := projectBySlug(ctx, q, slug)
		if err != nil {
			return err
		}
		out.Project = &p.Project
		if err := q.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&out.Last); err != nil {
			return err
		}
		if after >= out.Last {
			return nil
		}
		return eachRow(ctx, q, ownerEventsSQL, []any{p.Slug, after, out.Last, desk.MaxOwnerScan}, func(rs pgx.Rows) error {
			var r desk.OwnerFeedRow
			if err := rs.Scan(&r.Seq, &r.Issue, &r.Type, &r.Action, &r.Actor, &r.Verdict, &r.At,
				&r.Title, &r.Source, &r.Merged, &r.CommentText, &r.Detail); err != nil {
				return err
			}
			e := r.Event(p.Slug)
			if e == nil || !p.Notify.Enabled(desk.NotifyEventOf(e.Kind)) {
				return nil
			}
			if len(out.Events) < limit {
				out.Events = append(out.Events, e)
			} else {
				out.More++
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Brief returns what an agent session is told when it starts on project
// slug: the project with its unmerged issues counted by status, the
// latest handoff and the feed position, in one snapshot.
func (db *DB) Brief(ctx context.Context, slug string) (*desk.Brief, error) {
	var b *desk.Brief
	err := db.view(ctx, func(q querier) error {
		p, err := projectBySlug(ctx, q, slug)
		if err != nil {
			return err
		}
		b = &desk.Brief{Project: &p.Project}
		p.Counts = desk.NewCounts().Status
		err = eachRow(ctx, q, `SELECT status, count(*) FROM issues WHERE project_id = $1 AND merged_into IS NULL GROUP BY status`,
			[]any{p.id}, func(rs pgx.Rows) error {
				var s string
				var n int
				err := rs.Scan(&s, &n)
				p.Counts[s] += n
				return err
			})
		if err != nil {
			return err
		}
		if b.Handoff, err = readHandoff(ctx, q, p, 0); err != nil {
			return err
		}
		return q.QueryRow(ctx, `SELECT coalesce(max(seq), 0) FROM changes`).Scan(&b.Seq)
	})
	return b, err
}

// ProjectSlugs returns every project's slug, by name without case, then
// slug, as Projects orders them.
func (db *DB) ProjectSlugs(ctx context.Context) ([]string, error) {
	ps, err := db.Projects(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.Slug
	}
	return out, nil
}
