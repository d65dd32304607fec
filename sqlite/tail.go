package sqlite

import (
	"context"

	"desk"
)

// IssueTail is an issue with only the newest part of its history
// (desk.IssueTail, which every store answers).
type IssueTail = desk.IssueTail

// IssueTail returns an issue as Issue does (following merges), but with
// only its newest nComments comments and nActivity timeline entries, and
// only the files of those comments. An issue with hundreds of comments
// then costs what a young one costs: the rows left out are counted, not
// read.
func (db *DB) IssueTail(ctx context.Context, id string, nComments, nActivity int) (*IssueTail, error) {
	nComments, nActivity = max(nComments, 0), max(nActivity, 0)
	var out *IssueTail
	err := db.view(ctx, func(tx *readTx) error {
		r, from, err := resolve(ctx, tx, id)
		if err != nil {
			return err
		}
		// A process whose index holds the project keeps each issue's whole
		// history on its index row, as the server does for the page (see
		// detailPartsOf): an agent reads the issue it works on again and
		// again, and after the first read only what was added since is read.
		if h, parent := db.index.current(ctx, tx, r.projectID, r.rowid, r.parentID); h != nil {
			parts, err := detailPartsOf(ctx, tx, r, h, parent)
			if err != nil {
				return err
			}
			out = tailOf(r, parts, nComments, nActivity)
			out.RedirectedFrom = from
			out.Commands = commandsAt(parts.commands, db.Now())
			return nil
		}

		d := &desk.IssueDetail{Issue: r.Issue, RedirectedFrom: from, Comments: []*desk.Comment{}, Activity: []*desk.Activity{}}
		out = &IssueTail{IssueDetail: d}

		// The newest comments, read newest first and turned around, then
		// the files of those comments and of the issue itself.
		if nComments > 0 {
			if d.Comments, err = comments(ctx, tx, r, nil, `c.id IN (SELECT id FROM comments WHERE issue_id = ? ORDER BY id DESC LIMIT ?)`, r.rowid, nComments); err != nil {
				return err
			}
		}
		first := filesFrom(d.Comments)
		// Two ranges of attachments_issue_comment: the issue's own files and
		// those of its newest comments (an OR of the two reads them all).
		if d.Attachments, err = attachments(ctx, tx, r, `a.id IN (SELECT id FROM attachments WHERE issue_id = ? AND comment_id IS NULL
			UNION ALL SELECT id FROM attachments WHERE issue_id = ? AND comment_id >= ?)`, r.rowid, r.rowid, first); err != nil {
			return err
		}
		files := filesByComment(d.Attachments)
		for _, c := range d.Comments {
			if fs := files[c.ID]; fs != nil {
				c.Attachments = fs
			}
		}
		out.EarlierComments = max(r.CommentCount-len(d.Comments), 0)

		total, err := activityCount(ctx, tx, r)
		if err != nil {
			return err
		}
		if nActivity > 0 {
			if d.Activity, err = activities(ctx, tx, r, `a.id IN (SELECT id FROM activity WHERE issue_id = ? ORDER BY id DESC LIMIT ?)`, r.rowid, nActivity); err != nil {
				return err
			}
		}
		out.EarlierActivity = total - len(d.Activity)
		if d.Children, d.MergedSources, d.ParentInfo, err = readRelations(ctx, tx, r); err != nil {
			return err
		}
		cs, err := issueCommands(ctx, tx, r)
		if err != nil {
			return err
		}
		d.Commands = commandsAt(cs, db.Now())
		// The tail keeps the newest entries only; the landings are all
		// of them.
		landed, err := activities(ctx, tx, r, `a.issue_id = ? AND a.action = ?`, r.rowid, desk.ActLanded)
		d.Landings = desk.LandingsOf(landed)
		return err
	})
	return out, err
}

// tailOf cuts an issue's tail from the whole history in parts, with what
// IssueTail's queries read: the newest comments and timeline entries, the
// issue's own files and those of the comments kept. The slices are shared
// with parts; nothing may change them.
func tailOf(r *row, parts *detailParts, nComments, nActivity int) *IssueTail {
	cs := parts.comments[len(parts.comments)-min(nComments, len(parts.comments)):]
	acts := parts.activity[len(parts.activity)-min(nActivity, len(parts.activity)):]
	first := filesFrom(cs)
	files := []*desk.Attachment{}
	for _, a := range parts.attachments {
		if a.CommentID == nil || *a.CommentID >= first {
			files = append(files, a)
		}
	}
	d := &desk.IssueDetail{Issue: r.Issue, Comments: cs, Attachments: files, Activity: acts,
		Children: parts.children, MergedSources: parts.mergedSources, ParentInfo: parts.parentInfo,
		Landings: desk.LandingsOf(parts.activity)}
	if d.Comments == nil {
		d.Comments = []*desk.Comment{}
	}
	if d.Activity == nil {
		d.Activity = []*desk.Activity{}
	}
	return &IssueTail{IssueDetail: d,
		EarlierComments: max(r.CommentCount-len(cs), 0),
		EarlierActivity: len(parts.activity) - len(acts)}
}

// filesFrom is the comment id from which a tail keeps comments' files: its
// oldest comment's, or past every id when it keeps no comment.
func filesFrom(kept []*desk.Comment) int64 {
	if len(kept) == 0 {
		return 1 << 62
	}
	return kept[0].ID
}
