package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"desk"

	"github.com/jackc/pgx/v5"
)

// row is an issue as stored: the domain issue plus the row ids the domain
// names by key.
type row struct {
	desk.Issue
	rowid     int64
	projectID int64
	prefix    string
	parentID  int64 // 0: none
	mergedID  int64 // 0: not merged
}

// issueColumns reads issues with their project, parent and merge target
// keys; a query appends its WHERE clause. With text false the body and
// the plan are left out.
func issueSelect(text bool) string {
	bodyPlan := "'', '{}'"
	if text {
		bodyPlan = "i.body, i.plan"
	}
	return `SELECT i.id, i.project_id, p.slug, p.prefix, i.number, i.title, ` + bodyPlan + `, i.kind, i.status,
	i.priority, i.area, i.tags, i.location, i.source, i.external_ref, i.size, i.milestone, i.build,
	i.plan_done, i.plan_total, i.parent_id, par.number, i.merged_into, mi.number, i.child_count, i.child_done,
	i.comment_count, i.attachment_count, i.last_verdict, i.created_at, i.updated_at, i.closed_at
FROM issues i JOIN projects p ON p.id = i.project_id
LEFT JOIN issues par ON par.id = i.parent_id
LEFT JOIN issues mi ON mi.id = i.merged_into `
}

func scanIssue(s pgx.Row) (*row, error) {
	var (
		r                          row
		tags, loc, plan            string
		build, lastVerdict, closed *string
		parentID, mergedID         *int64
		parentNum, mergedNum       *int
	)
	err := s.Scan(&r.rowid, &r.projectID, &r.Project, &r.prefix, &r.Number, &r.Title, &r.Body, &plan, &r.Kind, &r.Status,
		&r.Priority, &r.Area, &tags, &loc, &r.Source, &r.ExternalRef, &r.Size, &r.Milestone, &build,
		&r.Progress.Done, &r.Progress.Total, &parentID, &parentNum, &mergedID, &mergedNum, &r.ChildCount, &r.ChildDone,
		&r.CommentCount, &r.AttachmentCount, &lastVerdict, &r.CreatedAt, &r.UpdatedAt, &closed)
	if err != nil {
		return nil, err
	}
	r.ID = desk.IssueKey(r.prefix, r.Number)
	if err := json.Unmarshal([]byte(tags), &r.Tags); err != nil || r.Tags == nil {
		r.Tags = []string{}
	}
	if err := json.Unmarshal([]byte(loc), &r.Location); err != nil {
		r.Location = desk.Location{}
	}
	if plan != "" && plan != "{}" {
		_ = json.Unmarshal([]byte(plan), &r.Plan)
	}
	if build != nil && *build != "" {
		var b desk.BuildRef
		if json.Unmarshal([]byte(*build), &b) == nil {
			r.Build = &b
		}
	}
	r.LastVerdict, r.ClosedAt = lastVerdict, closed
	if parentID != nil && parentNum != nil {
		r.parentID = *parentID
		k := desk.IssueKey(r.prefix, *parentNum)
		r.Parent = &k
	}
	if mergedID != nil && mergedNum != nil {
		r.mergedID = *mergedID
		k := desk.IssueKey(r.prefix, *mergedNum)
		r.MergedInto = &k
	}
	return &r, nil
}

// issueByKey reads an issue by its key ("MG-12"), with body and plan.
func issueByKey(ctx context.Context, q querier, key string) (*row, error) {
	sql, args, err := issueByKeyQuery(key)
	if err != nil {
		return nil, err
	}
	return scanIssueByKey(q.QueryRow(ctx, sql, args...), key)
}

// issueByKeyQuery is issueByKey's statement, for a caller that sends it
// in a batch.
func issueByKeyQuery(key string) (string, []any, error) {
	prefix, number, err := desk.ParseIssueKey(key)
	if err != nil {
		return "", nil, err
	}
	return issueSelect(true) + `WHERE p.prefix = $1 AND i.number = $2`, []any{prefix, number}, nil
}

// scanIssueByKey reads the answer to issueByKeyQuery(key).
func scanIssueByKey(s pgx.Row, key string) (*row, error) {
	r, err := scanIssue(s)
	if errors.Is(err, pgx.ErrNoRows) {
		prefix, number, _ := desk.ParseIssueKey(key)
		return nil, notFound("no issue %s", desk.IssueKey(prefix, number))
	}
	if err != nil {
		return nil, fmt.Errorf("read issue %s: %w", key, err)
	}
	return r, nil
}

// updateIssue runs fn in a write transaction on the issue key stands for
// (following merges), read under the writers' lock in the lock's own
// round trip.
func (db *DB) updateIssue(ctx context.Context, key string, fn func(tx *Tx, r *row) error) error {
	sql, args, err := issueByKeyQuery(key)
	if err != nil {
		return err
	}
	var r *row
	first := &lockedRead{sql: sql, args: args, scan: func(s pgx.Row) (err error) {
		r, err = scanIssueByKey(s, key)
		return err
	}}
	return db.write(ctx, first, func(tx *Tx) error {
		r, _, err := followMerges(ctx, tx, r)
		if err != nil {
			return err
		}
		return fn(tx, r)
	})
}

// issueByRowID reads an issue by its row id.
func issueByRowID(ctx context.Context, q querier, id int64) (*row, error) {
	r, err := scanIssue(q.QueryRow(ctx, issueSelect(true)+`WHERE i.id = $1`, id))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound("no issue with row %d", id)
	}
	return r, err
}

// resolve reads an issue by key and follows merges to the issue that holds
// it now; from is the key asked for when it was merged, else "".
func resolve(ctx context.Context, q querier, key string) (r *row, from string, err error) {
	r, err = issueByKey(ctx, q, key)
	if err != nil {
		return nil, "", err
	}
	return followMerges(ctx, q, r)
}

// followMerges follows r's merges to the issue that holds it now; from is
// r's key when it was merged, else "".
func followMerges(ctx context.Context, q querier, r *row) (_ *row, from string, err error) {
	for hops := 0; r.mergedID != 0 && hops < 20; hops++ {
		if from == "" {
			from = r.ID
		}
		if r, err = issueByRowID(ctx, q, r.mergedID); err != nil {
			return nil, "", err
		}
	}
	return r, from, nil
}

// projectRow is a project as stored.
type projectRow struct {
	desk.Project
	id          int64
	nextNumber  int
	buildsCount int
}

const projectSelect = `SELECT id, slug, name, prefix, next_number, default_seed, notify, lead, build, builds_count,
	builds_enabled, created_at FROM projects `

func scanProject(s pgx.Row) (*projectRow, error) {
	var (
		p           projectRow
		notify      string
		lead, build *string
	)
	if err := s.Scan(&p.id, &p.Slug, &p.Name, &p.Prefix, &p.nextNumber, &p.DefaultSeed, &notify, &lead, &build, &p.buildsCount,
		&p.BuildsEnabled, &p.CreatedAt); err != nil {
		return nil, err
	}
	p.IssueCount = p.nextNumber - 1
	p.Notify = desk.DefaultNotify
	_ = json.Unmarshal([]byte(notify), &p.Notify)
	if lead != nil && *lead != "" {
		p.Lead = lead
	}
	if build != nil && *build != "" {
		var b desk.Build
		if json.Unmarshal([]byte(*build), &b) == nil {
			p.Build = &b
		}
	}
	return &p, nil
}

func projectBySlug(ctx context.Context, q querier, slug string) (*projectRow, error) {
	p, err := scanProject(q.QueryRow(ctx, projectSelect+`WHERE slug = $1`, strings.TrimSpace(slug)))
	if err != nil {
		return nil, projectReadError(slug, err)
	}
	return p, nil
}

func projectReadError(slug string, err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return notFound("no project %q: list them with desk projects, or create it with desk new-project", slug)
	}
	return fmt.Errorf("read project %s: %w", slug, err)
}

func projectByID(ctx context.Context, q querier, id int64) (*projectRow, error) {
	p, err := scanProject(q.QueryRow(ctx, projectSelect+`WHERE id = $1`, id))
	if err != nil {
		return nil, fmt.Errorf("read project %d: %w", id, err)
	}
	return p, nil
}

func jsonText(v any) string { return desk.JSONText(v) }

func itoa64(n int64) string { return strconv.FormatInt(n, 10) }

// searchWords is text as the index holds it: desk's words, split as
// desk.SearchWords splits them, for desk_search to stem.
func searchWords(text string) string { return strings.Join(desk.SearchWords(text), " ") }

// reindex writes the search words of issue rowid from its fields.
func (tx *Tx) reindex(r *row) error {
	return tx.exec(`UPDATE issues SET title_words = to_tsvector('desk_search', $2), details_words = to_tsvector('desk_search', $3),
		body_words = to_tsvector('desk_search', $4) WHERE id = $1`,
		r.rowid, searchWords(r.Title), searchWords(desk.DetailsText(&r.Issue)), searchWords(r.Body))
}

// eachRow calls fn for each row query returns.
func eachRow(ctx context.Context, q querier, query string, args []any, fn func(pgx.Rows) error) error {
	rows, err := q.Query(ctx, query, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
