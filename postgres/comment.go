package postgres

import (
	"context"
	"errors"
	"io"

	"desk"

	"github.com/jackc/pgx/v5"
)

// AddComment comments on an issue; a verdict moves its status.
func (db *DB) AddComment(ctx context.Context, id string, in desk.CommentInput) (*desk.Comment, *desk.Issue, error) {
	if err := desk.NormalizeComment(&in); err != nil {
		return nil, nil, err
	}
	files, err := desk.CheckAttachments(in.Attachments, desk.MaxAttachment)
	if err != nil {
		return nil, nil, err
	}
	var out *desk.Comment
	var rowid int64
	err = db.updateIssue(ctx, id, func(tx *Tx, r *row) error {
		rowid = r.rowid
		cid, err := tx.addComment(r, in, files)
		if err != nil {
			return err
		}
		out = &desk.Comment{ID: cid, Author: in.Author, Text: in.Text, CreatedAt: tx.ts, Attachments: []*desk.Attachment{}}
		if in.Verdict != "" {
			out.Verdict = &in.Verdict
		}
		if len(files) > 0 {
			if out.Attachments, err = attachments(ctx, tx, r, `a.comment_id = $1`, cid); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	// The issue as the comment left it, read once the writers' lock is
	// released (as writeIssue reads its answer).
	after, err := issueByRowID(ctx, db.pool, rowid)
	if err != nil {
		return nil, nil, err
	}
	return out, &after.Issue, db.withClaim(ctx, db.pool, after)
}

func (tx *Tx) addComment(r *row, in desk.CommentInput, files []desk.AttachmentInput) (int64, error) {
	var verdict *string
	if in.Verdict != "" {
		verdict = &in.Verdict
	}
	// The comment and the issue's time in one statement: one round trip
	// under the writers' lock.
	var cid int64
	if err := tx.queryRow(`WITH c AS (INSERT INTO comments (issue_id, author, text, verdict, created_at, words)
		VALUES ($1, $2, $3, $4, $5, to_tsvector('desk_search', $6)) RETURNING id),
		u AS (UPDATE issues SET updated_at = $5 WHERE id = $1)
		SELECT id FROM c`,
		r.rowid, in.Author, in.Text, verdict, tx.ts, searchWords(in.Text)).Scan(&cid); err != nil {
		return 0, err
	}
	key := r.ID
	tx.feed(desk.Change{Project: r.Project, Issue: &key, Type: desk.ChangeComment, ID: cid, Action: desk.CommentAction(in.Verdict),
		Actor: in.Author, Verdict: verdict}, r.rowid)
	if len(files) > 0 {
		if _, err := tx.addAttachments(r, &cid, files, in.Author, false); err != nil {
			return 0, err
		}
	}
	if to := desk.VerdictStatus(r.Status, in.Verdict); to != "" {
		p, err := projectByID(tx.ctx, tx, r.projectID)
		if err != nil {
			return 0, err
		}
		if err := tx.setStatus(r, p, to, in.Author, desk.ReasonVerdict); err != nil {
			return 0, err
		}
	}
	return cid, nil
}

// AddAttachments attaches files to an issue or one of its comments.
func (db *DB) AddAttachments(ctx context.Context, id string, commentID *int64, files []desk.AttachmentInput, author string) ([]*desk.Attachment, error) {
	if len(files) == 0 {
		return nil, desk.ErrNoFiles
	}
	files, err := desk.CheckAttachments(files, desk.MaxAttachment)
	if err != nil {
		return nil, err
	}
	author = desk.CleanActor(author, desk.OwnerActor)
	var out []*desk.Attachment
	err = db.update(ctx, func(tx *Tx) error {
		r, _, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		if commentID != nil {
			var n int
			if err := tx.queryRow(`SELECT count(*) FROM comments WHERE id = $1 AND issue_id = $2`, *commentID, r.rowid).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return desk.ErrNoComment(*commentID, r.ID)
			}
		}
		ids, err := tx.addAttachments(r, commentID, files, author, commentID == nil)
		if err != nil {
			return err
		}
		if err := tx.exec(`UPDATE issues SET updated_at = $1 WHERE id = $2`, tx.ts, r.rowid); err != nil {
			return err
		}
		out, err = attachments(ctx, tx, r, `a.id = ANY($1)`, ids)
		return err
	})
	return out, err
}

// addAttachments stores the files' bytes (before their rows, so that a
// failure leaves at most an unreferenced object, removed again when the
// transaction fails) and records them; a file of the issue itself gets an
// "attached" timeline entry.
func (tx *Tx) addAttachments(r *row, commentID *int64, files []desk.AttachmentInput, author string, activity bool) ([]int64, error) {
	var ids []int64
	for _, f := range files {
		key, err := tx.putBlob(r.Project, f)
		if err != nil {
			return nil, err
		}
		var id int64
		if err := tx.queryRow(`INSERT INTO attachments (issue_id, comment_id, filename, mime, size, key, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id`, r.rowid, commentID, f.Filename, f.Mime, len(f.Data), key, tx.ts).Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
		if activity {
			if _, err := tx.activity(r, author, desk.ActAttached, desk.AttachedDetail(f.Filename, id)); err != nil {
				return nil, err
			}
		} else {
			tx.touch(r)
		}
	}
	return ids, nil
}

// putBlob stores an attachment's bytes under desk.AttachmentKey.
func (tx *Tx) putBlob(project string, f desk.AttachmentInput) (string, error) {
	key, err := desk.AttachmentKey(project, tx.now, f.Filename)
	if err != nil {
		return "", err
	}
	if err := tx.db.blobs.Put(tx.ctx, key, f.Data); err != nil {
		return "", desk.Errorf(desk.Internal, "store attachment %s: %v", f.Filename, err)
	}
	tx.newBlobs = append(tx.newBlobs, key)
	return key, nil
}

// Attachment returns an attachment's description.
func (db *DB) Attachment(ctx context.Context, attID int64) (*desk.Attachment, error) {
	var out *desk.Attachment
	err := db.view(ctx, func(q querier) error {
		var issueID int64
		if err := q.QueryRow(ctx, `SELECT issue_id FROM attachments WHERE id = $1`, attID).Scan(&issueID); errors.Is(err, pgx.ErrNoRows) {
			return notFound("no attachment %d", attID)
		} else if err != nil {
			return err
		}
		r, err := issueByRowID(ctx, q, issueID)
		if err != nil {
			return err
		}
		as, err := attachments(ctx, q, r, `a.id = $1`, attID)
		if err != nil {
			return err
		}
		if len(as) == 0 {
			return notFound("no attachment %d", attID)
		}
		out = as[0]
		return nil
	})
	return out, err
}

// OpenAttachment opens an attachment's bytes.
func (db *DB) OpenAttachment(ctx context.Context, attID int64) (*desk.Attachment, io.ReadSeekCloser, error) {
	a, err := db.Attachment(ctx, attID)
	if err != nil {
		return nil, nil, err
	}
	f, _, err := db.blobs.Open(ctx, a.Path)
	if desk.ErrorCode(err) == desk.NotFound {
		return nil, nil, notFound("attachment %d: its bytes are missing from the object store", attID)
	}
	if err != nil {
		return nil, nil, err
	}
	return a, f, nil
}

// DeleteAttachment removes an attachment and its bytes.
func (db *DB) DeleteAttachment(ctx context.Context, attID int64, actor string) error {
	actor = desk.CleanActor(actor, desk.OwnerActor)
	return db.update(ctx, func(tx *Tx) error {
		var issueID int64
		var filename, key string
		err := tx.queryRow(`SELECT issue_id, filename, key FROM attachments WHERE id = $1`, attID).Scan(&issueID, &filename, &key)
		if errors.Is(err, pgx.ErrNoRows) {
			return notFound("no attachment %d", attID)
		}
		if err != nil {
			return err
		}
		r, err := issueByRowID(tx.ctx, tx, issueID)
		if err != nil {
			return err
		}
		if err := tx.exec(`DELETE FROM attachments WHERE id = $1`, attID); err != nil {
			return err
		}
		tx.dropBlobs = append(tx.dropBlobs, key)
		if err := tx.exec(`UPDATE issues SET updated_at = $1 WHERE id = $2`, tx.ts, r.rowid); err != nil {
			return err
		}
		_, err = tx.activity(r, actor, desk.ActDetached, desk.DetachedDetail(filename))
		return err
	})
}

// attachments reads attachments of r's project matching where.
func attachments(ctx context.Context, q querier, r *row, where string, args ...any) ([]*desk.Attachment, error) {
	out := []*desk.Attachment{}
	err := eachRow(ctx, q, `SELECT a.id, a.comment_id, a.filename, a.mime, a.size, a.key, a.created_at, mf.number
		FROM attachments a LEFT JOIN issues mf ON mf.id = a.merged_from WHERE `+where+` ORDER BY a.id`, args, func(rs pgx.Rows) error {
		var a desk.Attachment
		var mf *int
		if err := rs.Scan(&a.ID, &a.CommentID, &a.Filename, &a.Mime, &a.Size, &a.Path, &a.CreatedAt, &mf); err != nil {
			return err
		}
		if mf != nil {
			k := desk.IssueKey(r.prefix, *mf)
			a.MergedFrom = &k
		}
		a.Issue = r.ID
		a.URL = desk.AttachmentURL(a.ID)
		a.IsImage = desk.IsImageMime(a.Mime)
		out = append(out, &a)
		return nil
	})
	return out, err
}
