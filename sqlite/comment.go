package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"path/filepath"

	"desk"
)

// AddComment comments on an issue; a verdict moves its status.
func (db *DB) AddComment(ctx context.Context, id string, in desk.CommentInput) (*desk.Comment, *desk.Issue, error) {
	if err := desk.NormalizeComment(&in); err != nil {
		return nil, nil, err
	}
	files, err := checkAttachments(in.Attachments, desk.MaxAttachment)
	if err != nil {
		return nil, nil, err
	}
	var out *desk.Comment
	var is *desk.Issue
	err = db.update(ctx, func(tx *Tx) error {
		r, _, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		cid, err := tx.addComment(r, in, files)
		if err != nil {
			return err
		}
		// The answer is read in the same transaction: the issue as the
		// write and its triggers left it, and the comment as it was
		// written (a new comment has nothing the store adds but its id,
		// time and files).
		out = &desk.Comment{ID: cid, Author: in.Author, Text: in.Text, CreatedAt: tx.ts, Attachments: []*desk.Attachment{}}
		if in.Verdict != "" {
			out.Verdict = &in.Verdict
		}
		if len(files) > 0 {
			if out.Attachments, err = attachments(ctx, tx, r, `a.comment_id = ?`, cid); err != nil {
				return err
			}
		}
		after, err := issueByRowID(ctx, tx, r.rowid)
		if err != nil {
			return err
		}
		is = &after.Issue
		return db.withClaim(ctx, tx, after)
	})
	if err != nil {
		return nil, nil, err
	}
	return out, is, nil
}

func (tx *Tx) addComment(r *row, in desk.CommentInput, files []desk.AttachmentInput) (int64, error) {
	var verdict any
	if in.Verdict != "" {
		verdict = in.Verdict
	}
	res, err := tx.exec(`INSERT INTO comments (issue_id, author, text, verdict, created_at) VALUES (?, ?, ?, ?, ?)`,
		r.rowid, in.Author, in.Text, verdict, tx.ts)
	if err != nil {
		return 0, err
	}
	cid, _ := res.LastInsertId()
	action := desk.CommentAction(in.Verdict)
	var v *string
	if in.Verdict != "" {
		v = &in.Verdict
	}
	key := r.ID
	if err := tx.feed(desk.Change{Project: r.Project, Issue: &key, Type: desk.ChangeComment, ID: cid, Action: action,
		Actor: in.Author, Verdict: v}, r.rowid); err != nil {
		return 0, err
	}
	if len(files) > 0 {
		if _, err := tx.addAttachments(r, &cid, files, in.Author, false); err != nil {
			return 0, err
		}
	}
	if _, err := tx.exec(`UPDATE issues SET updated_at = ? WHERE id = ?`, tx.ts, r.rowid); err != nil {
		return 0, err
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
	files, err := checkAttachments(files, desk.MaxAttachment)
	if err != nil {
		return nil, err
	}
	author = cleanActor(author, desk.OwnerActor)
	var ids []int64
	var key string
	err = db.update(ctx, func(tx *Tx) error {
		r, _, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		key = r.ID
		if commentID != nil {
			var n int
			if err := tx.queryRow(`SELECT count(*) FROM comments WHERE id = ? AND issue_id = ?`, *commentID, r.rowid).Scan(&n); err != nil {
				return err
			}
			if n == 0 {
				return desk.ErrNoComment(*commentID, r.ID)
			}
		}
		ids, err = tx.addAttachments(r, commentID, files, author, commentID == nil)
		if err != nil {
			return err
		}
		_, err = tx.exec(`UPDATE issues SET updated_at = ? WHERE id = ?`, tx.ts, r.rowid)
		return err
	})
	if err != nil {
		return nil, err
	}
	var out []*desk.Attachment
	err = db.view(ctx, func(q *readTx) error {
		r, err := issueByKey(ctx, q, key)
		if err != nil {
			return err
		}
		all, err := attachments(ctx, q, r, `a.issue_id = ?`, r.rowid)
		want := map[int64]bool{}
		for _, id := range ids {
			want[id] = true
		}
		for _, a := range all {
			if want[a.ID] {
				out = append(out, a)
			}
		}
		return err
	})
	return out, err
}

// checkAttachments is desk.CheckAttachments.
func checkAttachments(files []desk.AttachmentInput, limit int) ([]desk.AttachmentInput, error) {
	return desk.CheckAttachments(files, limit)
}

// addAttachments writes the files under attachments/<project>/<yyyy-mm>/
// with random names and records them; an attachment of the issue itself
// (not of a comment) gets an "attached" timeline entry.
func (tx *Tx) addAttachments(r *row, commentID *int64, files []desk.AttachmentInput, author string, activity bool) ([]int64, error) {
	var ids []int64
	for _, f := range files {
		rel, err := tx.writeFile(r.Project, f)
		if err != nil {
			return nil, err
		}
		var cid any
		if commentID != nil {
			cid = *commentID
		}
		res, err := tx.exec(`INSERT INTO attachments (issue_id, comment_id, filename, mime, size, stored_path, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, r.rowid, cid, f.Filename, f.Mime, len(f.Data), rel, tx.ts)
		if err != nil {
			return nil, err
		}
		id, _ := res.LastInsertId()
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

// writeFile stores an attachment's bytes and returns the path relative to
// the data folder. The file is removed again if the transaction fails.
func (tx *Tx) writeFile(project string, f desk.AttachmentInput) (string, error) {
	rel, err := desk.AttachmentKey(project, tx.now, f.Filename)
	if err != nil {
		return "", err
	}
	if err := tx.db.blobs.Put(tx.ctx, rel, f.Data); err != nil {
		return "", fmt.Errorf("store attachment: %w", err)
	}
	tx.newFiles = append(tx.newFiles, rel)
	return rel, nil
}

// attachmentPath turns a stored relative path into a path in the data folder.
func (db *DB) attachmentPath(rel string) string {
	return filepath.Join(db.dir, filepath.FromSlash(rel))
}

// Attachment returns an attachment's description.
func (db *DB) Attachment(ctx context.Context, attID int64) (*desk.Attachment, error) {
	var out *desk.Attachment
	err := db.view(ctx, func(q *readTx) error {
		var issueID int64
		if err := q.QueryRowContext(ctx, `SELECT issue_id FROM attachments WHERE id = ?`, attID).Scan(&issueID); err == sql.ErrNoRows {
			return notFound("no attachment %d", attID)
		} else if err != nil {
			return err
		}
		r, err := issueByRowID(ctx, q, issueID)
		if err != nil {
			return err
		}
		as, err := attachments(ctx, q, r, `a.id = ?`, attID)
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
		return nil, nil, notFound("attachment %d: its file is missing from the data folder", attID)
	}
	if err != nil {
		return nil, nil, err
	}
	return a, f, nil
}

// DeleteAttachment removes an attachment and its file.
func (db *DB) DeleteAttachment(ctx context.Context, attID int64, actor string) error {
	actor = cleanActor(actor, desk.OwnerActor)
	return db.update(ctx, func(tx *Tx) error {
		var issueID int64
		var filename, path string
		err := tx.queryRow(`SELECT issue_id, filename, stored_path FROM attachments WHERE id = ?`, attID).Scan(&issueID, &filename, &path)
		if err == sql.ErrNoRows {
			return notFound("no attachment %d", attID)
		}
		if err != nil {
			return err
		}
		r, err := issueByRowID(tx.ctx, tx, issueID)
		if err != nil {
			return err
		}
		if _, err := tx.exec(`DELETE FROM attachments WHERE id = ?`, attID); err != nil {
			return err
		}
		tx.dropFiles = append(tx.dropFiles, path)
		if _, err := tx.exec(`UPDATE issues SET updated_at = ? WHERE id = ?`, tx.ts, r.rowid); err != nil {
			return err
		}
		_, err = tx.activity(r, actor, desk.ActDetached, desk.DetachedDetail(filename))
		return err
	})
}

// attachments reads attachments of r's project matching where.
func attachments(ctx context.Context, q queryer, r *row, where string, args ...any) ([]*desk.Attachment, error) {
	rows, err := q.QueryContext(ctx, `SELECT a.id, a.comment_id, a.filename, a.mime, a.size, a.stored_path, a.created_at, mf.number
		FROM attachments a LEFT JOIN issues mf ON mf.id = a.merged_from WHERE `+where+` ORDER BY a.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*desk.Attachment{}
	for rows.Next() {
		var a desk.Attachment
		var cid, mf sql.NullInt64
		if err := rows.Scan(&a.ID, &cid, &a.Filename, &a.Mime, &a.Size, &a.Path, &a.CreatedAt, &mf); err != nil {
			return nil, err
		}
		if cid.Valid {
			a.CommentID = &cid.Int64
		}
		if mf.Valid {
			k := r.key(mf.Int64)
			a.MergedFrom = &k
		}
		a.Issue = r.ID
		a.URL = desk.AttachmentURL(a.ID)
		a.IsImage = desk.IsImageMime(a.Mime)
		out = append(out, &a)
	}
	return out, rows.Err()
}

// comments reads the comments of r matching where (all of them when
// where is empty), with their files.
func comments(ctx context.Context, q queryer, r *row, files map[int64][]*desk.Attachment, where string, args ...any) ([]*desk.Comment, error) {
	if where == "" {
		where, args = "c.issue_id = ?", []any{r.rowid}
	}
	rows, err := q.QueryContext(ctx, `SELECT c.id, c.author, c.text, c.verdict, c.created_at, mf.number
		FROM comments c LEFT JOIN issues mf ON mf.id = c.merged_from WHERE `+where+` ORDER BY c.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]*desk.Comment, 0, r.CommentCount)
	for rows.Next() {
		var c desk.Comment
		var verdict sql.NullString
		var mf sql.NullInt64
		if err := rows.Scan(&c.ID, &c.Author, &c.Text, &verdict, &c.CreatedAt, &mf); err != nil {
			return nil, err
		}
		if verdict.Valid {
			c.Verdict = &verdict.String
		}
		if mf.Valid {
			k := r.key(mf.Int64)
			c.MergedFrom = &k
		}
		c.Attachments = files[c.ID]
		if c.Attachments == nil {
			c.Attachments = []*desk.Attachment{}
		}
		out = append(out, &c)
	}
	return out, rows.Err()
}

// activities reads the timeline entries of r's project matching where,
// oldest first.
func activities(ctx context.Context, q queryer, r *row, where string, args ...any) ([]*desk.Activity, error) {
	rows, err := q.QueryContext(ctx, `SELECT a.id, a.actor, a.action, a.detail, a.created_at, mf.number
		FROM activity a LEFT JOIN issues mf ON mf.id = a.merged_from WHERE `+where+` ORDER BY a.id`, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*desk.Activity{}
	for rows.Next() {
		var a desk.Activity
		var detail string
		var mf sql.NullInt64
		if err := rows.Scan(&a.ID, &a.Actor, &a.Action, &detail, &a.CreatedAt, &mf); err != nil {
			return nil, err
		}
		a.Detail = []byte(detail)
		if mf.Valid {
			k := r.key(mf.Int64)
			a.MergedFrom = &k
		}
		out = append(out, &a)
	}
	return out, rows.Err()
}
