package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"sync/atomic"

	"desk"
)

// A head of the issue index stands for one version of an issue: any write
// that touches the issue names it in the feed, and the index then replaces
// the head. So what is derived from a head can be kept on it, and is
// dropped with it: the decoded JSON fields, the body and plan, and the parts of the
// issue's detail. The server reads the same busy issues again and again
// while agents write elsewhere; these caches spare it decoding and reading
// them each time.
type rowCache struct {
	head   atomic.Pointer[decodedHead]
	text   atomic.Pointer[rowText]
	detail atomic.Pointer[detailParts]
	json   [2]atomic.Pointer[[]byte] // the issue as a list writes it: full, summary

	excerpt atomic.Pointer[cachedExcerpt] // the last search's excerpt
	// prev is the detail last read for an earlier version of the issue,
	// set when the head replaces that version and never changed after.
	prev *detailParts
}

// decodedHead holds what head.decoded makes of a head. Lists hand out
// copies of the issue that share these values; nothing may change them.
type decodedHead struct {
	tags     []string
	location desk.Location
	build    *desk.BuildRef

	key                   string
	parent, merged        *string
	closedAt, lastVerdict *string
}

type cachedExcerpt struct {
	key   string // the words, the field and the comment it was cut for
	match desk.Match
}

type rowText struct {
	body string
	plan desk.Plan
}

// detailParts is an issue's detail without the issue itself. Its last
// commands are kept without their state, which moves with the clock (see
// commandsAt). parent is the index row of the issue's parent when the
// parts were read: its title and status show in the detail, and it
// changes without this row changing.
type detailParts struct {
	parent        *head
	comments      []*desk.Comment
	attachments   []*desk.Attachment
	activity      []*desk.Activity
	commands      []*desk.Command
	children      []desk.ChildInfo
	mergedSources []desk.MergedSource
	parentInfo    *desk.ParentInfo

	json atomic.Pointer[desk.DetailLists] // see lists
}

// lists returns the parts' comments, attachments and activity as a
// detail's JSON writes them (desk.IssueDetail.Lists), written on first use.
// Two readers may both write them; they write the same bytes.
func (d *detailParts) lists() []byte {
	if l := d.json.Load(); l != nil {
		return l.All
	}
	l := desk.NewDetailLists(d.comments, d.attachments, d.activity)
	d.json.Store(l)
	return l.All
}

// decodeBuild reads a stored build reference; one it cannot read is none.
func decodeBuild(raw string) *desk.BuildRef {
	var b desk.BuildRef
	if json.Unmarshal([]byte(raw), &b) != nil {
		return nil
	}
	return &b
}

// fillText sets the body and plan of a page's issues, reading only those
// the rows do not hold yet.
func fillText(ctx context.Context, tx queryer, rows []*head, page []*desk.Issue) error {
	var missing []int64
	byID := map[int64]*head{}
	for _, r := range rows {
		if r.cache.text.Load() == nil {
			missing = append(missing, r.rowid)
			byID[r.rowid] = r
		}
	}
	if len(missing) > 0 {
		err := eachRow(ctx, tx, `SELECT id, body, plan FROM issues WHERE id IN (SELECT value FROM json_each(?))`,
			[]any{jsonIDs(missing)}, func(rs *sql.Rows) error {
				var id int64
				var body, plan string
				if err := rs.Scan(&id, &body, &plan); err != nil {
					return err
				}
				if r := byID[id]; r != nil {
					r.cache.text.Store(&rowText{body: body, plan: decodePlan(plan)})
				}
				return nil
			})
		if err != nil {
			return err
		}
	}
	for i, r := range rows {
		if t := r.cache.text.Load(); t != nil {
			page[i].Body, page[i].Plan = t.body, t.plan
		}
	}
	return nil
}

// encoded returns is (the head's issue as a list returns it) as JSON, kept
// on the head for the next list.
func (r *head) encoded(is *desk.Issue, summary bool) []byte {
	slot := &r.cache.json[0]
	if summary {
		slot = &r.cache.json[1]
	}
	if b := slot.Load(); b != nil {
		return *b
	}
	b := is.AppendJSON(nil, summary)
	slot.Store(&b)
	return b
}
