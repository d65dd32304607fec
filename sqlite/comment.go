package sqlite

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"desk"
)

// AddComment comments on an issue; a verdict moves its status.
func (db *DB) AddComment(ctx context.Context, id string, in desk.CommentInput) (*desk.Comment, *desk.Issue, error) {
	if err := desk.CheckAuthor(in.Author); err != nil {
		return nil, nil, err
	}
	in.Author = cleanActor(in.Author, desk.OwnerActor)
	in.Verdict = strings.ToLower(strings.TrimSpace(in.Verdict))
	if err := desk.CheckVerdict(in.Author, in.Verdict); err != nil {
		return nil, nil, err
	}
	if len(in.Text) > desk.MaxCommentText {
		return nil, nil, desk.Errorf(desk.Invalid, "text: longer than %d characters", desk.MaxCommentText)
	}
	if strings.TrimSpace(in.Text) == "" && in.Verdict == "" && len(in.Attachments) == 0 {
		return nil, nil, desk.Errorf(desk.Invalid, "text: a comment needs text, a verdict or an attachment")
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
		return nil
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
	action := "comment"
	var v *string
	if in.Verdict != "" {
		action, v = "verdict", &in.Verdict
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
	if in.Verdict != "" && r.Status != in.Verdict {
		p, err := projectByID(tx.ctx, tx, r.projectID)
		if err != nil {
			return 0, err
		}
		if err := tx.setStatus(r, p, in.Verdict, in.Author, desk.ReasonVerdict); err != nil {
			return 0, err
		}
	}
	return cid, nil
}

// AddAttachments attaches files to an issue or one of its comments.
func (db *DB) AddAttachments(ctx context.Context, id string, commentID *int64, files []desk.AttachmentInput, author string) ([]*desk.Attachment, error) {
	if len(files) == 0 {
		return nil, desk.Errorf(desk.Invalid, "attachments: no file given")
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
				return desk.Errorf(desk.NotFound, "comment_id: no comment %d on %s", *commentID, r.ID)
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

// checkAttachments cleans names, decides types and enforces the size cap.
func checkAttachments(files []desk.AttachmentInput, limit int) ([]desk.AttachmentInput, error) {
	out := make([]desk.AttachmentInput, len(files))
	for i, f := range files {
		if len(f.Data) == 0 {
			return nil, desk.Errorf(desk.Invalid, "attachments[%d]: the file %q is empty", i, f.Filename)
		}
		if len(f.Data) > limit {
			return nil, desk.Errorf(desk.Invalid, "attachments[%d]: %q is %d bytes; the limit is %d MB", i, f.Filename, len(f.Data), limit>>20)
		}
		f.Filename = desk.CleanFilename(f.Filename)
		f.Mime = desk.AttachmentMime(f.Filename, f.Mime, f.Data)
		out[i] = f
	}
	return out, nil
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
			if _, err := tx.activity(r, author, desk.ActAttached, map[string]any{"filename": f.Filename, "attachment": id}); err != nil {
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
	var rnd [16]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	ext := strings.ToLower(filepath.Ext(f.Filename))
	if len(ext) > 10 || strings.ContainsAny(ext, " /\\") {
		ext = ""
	}
	rel := filepath.ToSlash(filepath.Join("attachments", project, tx.now.Format("2006-01"), hex.EncodeToString(rnd[:])+ext))
	abs := tx.db.attachmentPath(rel)
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return "", fmt.Errorf("store attachment: %w", err)
	}
	if err := os.WriteFile(abs, f.Data, 0o600); err != nil {
		os.Remove(abs)
		return "", fmt.Errorf("store attachment: %w", err)
	}
	tx.newFiles = append(tx.newFiles, abs)
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
	f, err := os.Open(db.attachmentPath(a.Path))
	if os.IsNotExist(err) {
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
		tx.dropFiles = append(tx.dropFiles, tx.db.attachmentPath(path))
		if _, err := tx.exec(`UPDATE issues SET updated_at = ? WHERE id = ?`, tx.ts, r.rowid); err != nil {
			return err
		}
		_, err = tx.activity(r, actor, desk.ActDetached, map[string]any{"filename": filename})
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
		a.URL = fmt.Sprintf("/api/attachments/%d", a.ID)
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
