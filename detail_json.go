package desk

import (
	"bytes"
	"encoding/json"
	"strconv"
)

// An issue's detail is the answer the owner's page reads most, and a busy
// issue carries hundreds of comments and timeline entries: it is written by
// hand too, byte for byte as encoding/json writes it (a test holds it to
// that).

// AppendJSON appends the detail as JSON to b.
func (d *IssueDetail) AppendJSON(b []byte) []byte {
	b = d.Issue.AppendJSON(b, false)
	b = b[:len(b)-1] // the issue's closing brace: the detail's fields follow
	if d.Lists != nil {
		b = append(b, d.Lists...)
	} else {
		b = AppendDetailLists(b, d.Comments, d.Attachments, d.Activity)
	}
	b = append(b, `,"children":`...)
	b = appendValues(b, d.Children, (*ChildInfo).appendJSON)
	b = append(b, `,"merged_sources":`...)
	b = appendValues(b, d.MergedSources, (*MergedSource).appendJSON)
	b = append(b, `,"parent_info":`...)
	if p := d.ParentInfo; p == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, `{"id":`...)
		b = appendString(b, p.ID)
		b = appendField(b, "title", p.Title)
		b = appendField(b, "status", p.Status)
		b = append(b, '}')
	}
	b = append(b, `,"commands":`...)
	b = appendList(b, d.Commands, (*Command).appendJSON)
	b = append(b, `,"landings":`...)
	b = appendValues(b, d.Landings, (*Landing).appendJSON)
	b = appendField(b, "redirected_from", d.RedirectedFrom)
	b = append(b, `,"agents":`...)
	if len(d.Agents) == 0 {
		b = append(b, "[]"...)
	} else {
		b = append(b, d.Agents...)
	}
	return append(b, '}')
}

// MarshalJSON writes the detail with AppendJSON.
func (d *IssueDetail) MarshalJSON() ([]byte, error) {
	return d.AppendJSON(make([]byte, 0, 4096+len(d.Lists))), nil
}

// DetailLists is a detail's comments, attachments and activity written as
// JSON, kept so that the next version of a busy issue, which only adds to
// them, extends them instead of writing them again.
type DetailLists struct {
	// All is the three fields, each after its comma, as IssueDetail.Lists
	// holds them.
	All []byte
	// lists are where each list's JSON stands in All.
	lists [3][2]int
}

// NewDetailLists writes the lists.
func NewDetailLists(comments []*Comment, attachments []*Attachment, activity []*Activity) *DetailLists {
	return (*DetailLists)(nil).Extend(comments, attachments, activity, len(comments), len(attachments), len(activity))
}

// Extend returns the lists of a later version whose lists are these lists
// with the last newComments, newAttachments and newActivity entries added.
// On nil lists it writes every entry.
func (l *DetailLists) Extend(comments []*Comment, attachments []*Attachment, activity []*Activity, newComments, newAttachments, newActivity int) *DetailLists {
	n := &DetailLists{}
	size := 64
	if l != nil {
		size += len(l.All) + (newComments+newAttachments+newActivity)*512
	}
	n.All = appendDetailLists(make([]byte, 0, size), l, &n.lists, comments, attachments, activity, newComments, newAttachments, newActivity)
	return n
}

// AppendDetailLists appends the comments, attachments and activity fields
// of a detail, each after its comma, as IssueDetail.Lists holds them.
func AppendDetailLists(b []byte, comments []*Comment, attachments []*Attachment, activity []*Activity) []byte {
	return appendDetailLists(b, nil, nil, comments, attachments, activity, len(comments), len(attachments), len(activity))
}

// appendDetailLists appends the three fields, each list extended from
// prev's (nil: written whole), and notes in at, unless nil, where each
// list's JSON stands in b.
func appendDetailLists(b []byte, prev *DetailLists, at *[3][2]int, comments []*Comment, attachments []*Attachment, activity []*Activity, newComments, newAttachments, newActivity int) []byte {
	old := func(i int) []byte {
		if prev == nil {
			return nil
		}
		return prev.All[prev.lists[i][0]:prev.lists[i][1]]
	}
	for i, key := range [3]string{`,"comments":`, `,"attachments":`, `,"activity":`} {
		b = append(b, key...)
		start := len(b)
		switch i {
		case 0:
			b = extendList(b, old(i), comments, newComments, (*Comment).AppendJSON)
		case 1:
			b = extendList(b, old(i), attachments, newAttachments, (*Attachment).appendJSON)
		case 2:
			b = extendList(b, old(i), activity, newActivity, (*Activity).appendJSON)
		}
		if at != nil {
			at[i] = [2]int{start, len(b)}
		}
	}
	return b
}

// extendList appends list as JSON, from prev (list but its last added
// entries) when that saves writing the older ones.
func extendList[T any](b, prev []byte, list []*T, added int, each func(*T, []byte) []byte) []byte {
	switch {
	case list == nil || added >= len(list) || len(prev) < 2 || prev[0] != '[':
		return appendList(b, list, each)
	case added == 0:
		return append(b, prev...)
	}
	b = append(b, prev[:len(prev)-1]...) // all but the closing bracket
	for _, v := range list[len(list)-added:] {
		b = each(v, append(b, ','))
	}
	return append(b, ']')
}

func (c *ChildInfo) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, c.ID)
	b = appendField(b, "title", c.Title)
	b = appendField(b, "status", c.Status)
	b = appendField(b, "kind", c.Kind)
	b = appendField(b, "priority", c.Priority)
	b = appendProgress(b, c.Progress)
	return append(b, '}')
}

func (m *MergedSource) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendString(b, m.ID)
	b = appendField(b, "title", m.Title)
	b = appendField(b, "merged_at", m.MergedAt)
	return append(b, '}')
}

// appendValues appends list as a JSON array (null for a nil list), each
// entry written by each.
func appendValues[T any](b []byte, list []T, each func(*T, []byte) []byte) []byte {
	if list == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i := range list {
		if i > 0 {
			b = append(b, ',')
		}
		b = each(&list[i], b)
	}
	return append(b, ']')
}

// appendList appends list as a JSON array (null for a nil list, and for
// a nil entry), each entry written by each.
func appendList[T any](b []byte, list []*T, each func(*T, []byte) []byte) []byte {
	return appendValues(b, list, func(v **T, b []byte) []byte {
		if *v == nil {
			return append(b, "null"...)
		}
		return each(*v, b)
	})
}

func appendProgress(b []byte, p Progress) []byte {
	b = append(b, `,"plan_progress":{"done":`...)
	b = strconv.AppendInt(b, int64(p.Done), 10)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(p.Total), 10)
	return append(b, '}')
}

// AppendJSON appends the comment as JSON, as encoding/json would write it.
func (c *Comment) AppendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, c.ID, 10)
	if c.Issue != "" {
		b = appendField(b, "issue", c.Issue)
	}
	b = appendField(b, "author", c.Author)
	b = appendField(b, "text", c.Text)
	b = appendOptField(b, "verdict", c.Verdict)
	b = appendField(b, "created_at", c.CreatedAt)
	b = append(b, `,"attachments":`...)
	b = appendList(b, c.Attachments, (*Attachment).appendJSON)
	b = appendOptField(b, "merged_from", c.MergedFrom)
	return append(b, '}')
}

func (a *Attachment) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, a.ID, 10)
	if a.Issue != "" {
		b = appendField(b, "issue", a.Issue)
	}
	b = append(b, `,"comment_id":`...)
	if a.CommentID == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, *a.CommentID, 10)
	}
	b = appendField(b, "filename", a.Filename)
	b = appendField(b, "mime", a.Mime)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, a.Size, 10)
	b = appendField(b, "url", a.URL)
	b = append(b, `,"is_image":`...)
	b = strconv.AppendBool(b, a.IsImage)
	b = appendField(b, "created_at", a.CreatedAt)
	b = appendOptField(b, "merged_from", a.MergedFrom)
	return append(b, '}')
}

func (a *Activity) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, a.ID, 10)
	b = appendField(b, "actor", a.Actor)
	b = appendField(b, "action", a.Action)
	b = append(b, `,"detail":`...)
	switch {
	case a.Detail == nil:
		b = append(b, "null"...)
	case bytes.ContainsAny(a.Detail, " \t\r\n"):
		// Written by something else than desk, or with spaces in its
		// strings: compacted, as encoding/json does with raw JSON.
		var buf bytes.Buffer
		if err := json.Compact(&buf, a.Detail); err != nil {
			b = append(b, "null"...)
		} else {
			b = append(b, buf.Bytes()...)
		}
	default:
		b = append(b, a.Detail...)
	}
	b = appendField(b, "created_at", a.CreatedAt)
	b = appendOptField(b, "merged_from", a.MergedFrom)
	return append(b, '}')
}

func (c *Command) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, c.ID, 10)
	b = appendField(b, "project", c.Project)
	b = appendField(b, "command", c.Command)
	b = appendOptField(b, "issue", c.Issue)
	b = appendField(b, "created_by", c.CreatedBy)
	b = appendField(b, "created_at", c.CreatedAt)
	b = appendField(b, "expires_at", c.ExpiresAt)
	b = appendOptField(b, "delivered_at", c.DeliveredAt)
	b = appendOptField(b, "client", c.Client)
	b = appendField(b, "state", c.State)
	return append(b, '}')
}
