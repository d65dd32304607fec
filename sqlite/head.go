package sqlite

import (
	"context"
	"database/sql"
	"math"
	"slices"
	"strconv"
	"strings"

	"desk"
)

// head is an issue as the index holds it: the fields a list shows, kept as
// the one text SQLite packed them into (headExpr) with where each field
// starts, and the codes lists filter, count and sort by. An index holds
// every issue of the projects it serves, a hundred thousand on a large
// desk: a head is about a third of the size of a row with its desk.Issue,
// and the collector, which visits every pointer of every live object on
// each cycle, finds a fifth as many pointers in it. The issue itself is made
// from the text when a list returns it (issue).
type head struct {
	// What a list reads of every head comes first, within one cache line:
	// a list over a large project walks tens of thousands of heads and
	// touches little else of most of them.

	// The enum fields as their place in desk's lists (-1 for a value
	// outside them), so that filters and counts compare integers.
	st, kd, pr, sz int8
	tr             int8 // the status's place in the triage order

	// The free-text facets (area, milestone) and the seed as ids of their
	// project's index (0: none), so that a list counts them in arrays
	// rather than in maps keyed by text (see projIndex.name).
	areaID, milestoneID, seedID int32

	// The times as milliseconds, for sorting without comparing text.
	created, updated int64

	rowid    int64
	mergedID int64 // 0: not merged
	number   int

	projectID int64
	parentID  int64 // 0: none
	// The numbers of the parent and the merge target, for their keys;
	// filled by projIndex.name, which knows the project's numbers.
	parentNumber, mergedNumber int
	proj                       *projNames // the project's slug and prefix

	packed string
	at     [headFields]uint32 // where field i starts in packed
	cache  rowCache
}

// projNames are what an issue's key and project field are made of. One
// value per project is shared by its heads.
type projNames struct{ slug, prefix string }

// The fields of headExpr, by position.
const (
	hProject = iota
	hNumber
	hTitle
	hKind
	hStatus
	hPriority
	hArea
	hTags
	hLocation
	hSeed
	hSource
	hExternalRef
	hSize
	hMilestone
	hBuild
	hPlanDone
	hPlanTotal
	hParent
	hMerged
	hComments
	hAttachments
	hVerdict
	hChildren
	hChildrenDone
	hCreated
	hUpdated
	hClosed
)

// field returns field i of the head's packed text.
func (h *head) field(i int) string {
	end := len(h.packed)
	if i+1 < headFields {
		end = int(h.at[i+1]) - 1 // the separator
	}
	return h.packed[h.at[i]:end]
}

// num returns field i as a number (0 when empty).
func (h *head) num(i int) int {
	n, _ := atoi(h.field(i))
	return n
}

func (h *head) title() string       { return h.field(hTitle) }
func (h *head) status() string      { return h.field(hStatus) }
func (h *head) kind() string        { return h.field(hKind) }
func (h *head) priority() string    { return h.field(hPriority) }
func (h *head) size() string        { return h.field(hSize) }
func (h *head) area() string        { return h.field(hArea) }
func (h *head) milestone() string   { return h.field(hMilestone) }
func (h *head) source() string      { return h.field(hSource) }
func (h *head) externalRef() string { return h.field(hExternalRef) }
func (h *head) updatedAt() string   { return h.field(hUpdated) }
func (h *head) tagsRaw() string     { return h.field(hTags) }
func (h *head) commentCount() int   { return h.num(hComments) }

// key returns the issue's key ("MG-12").
func (h *head) key() string { return desk.IssueKey(h.proj.prefix, h.number) }

// seed returns the issue's world seed, if it has one.
func (h *head) seed() (int64, bool) {
	s := h.field(hSeed)
	if s == "" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	return v, err == nil
}

// hasSeed reports whether the issue's world seed is seed.
func (h *head) hasSeed(seed int64) bool {
	v, ok := h.seed()
	return ok && v == seed
}

// newHead cuts a head from a row of headSelect: the issue's id and its
// packed fields. It reports false when the text cannot be cut (a field
// holding the separator); such an issue is read field by field
// (readOddHead).
func newHead(h *head, id int64, packed string) bool {
	if len(packed) > math.MaxUint32 { // past what the offsets hold
		return false
	}
	start := 0
	for i := range headFields - 1 {
		n := strings.IndexByte(packed[start:], 0x1f)
		if n < 0 {
			return false
		}
		h.at[i] = uint32(start)
		start += n + 1
	}
	if strings.IndexByte(packed[start:], 0x1f) >= 0 {
		return false
	}
	h.at[headFields-1] = uint32(start)
	h.packed, h.rowid = packed, id
	return h.setCodes()
}

// packHead packs fields (one text per field of headExpr) into h, with
// where each starts: for the rare issue whose text holds the separator.
func packHead(h *head, id int64, fields []string) bool {
	var b strings.Builder
	for i, f := range fields {
		if i > 0 {
			b.WriteByte(0x1f)
		}
		h.at[i] = uint32(b.Len())
		b.WriteString(f)
	}
	h.packed, h.rowid = b.String(), id
	return h.setCodes()
}

// setCodes fills the numbers, ids and codes from the packed fields. It
// reports false for numbers it cannot read.
func (h *head) setCodes() bool {
	project, ok1 := atoi(h.field(hProject))
	number, ok2 := atoi(h.field(hNumber))
	parent, ok3 := atoi(h.field(hParent))
	merged, ok4 := atoi(h.field(hMerged))
	_, hasSeed := h.seed()
	if !ok1 || !ok2 || !ok3 || !ok4 || (!hasSeed && h.field(hSeed) != "") {
		return false
	}
	h.projectID, h.number, h.parentID, h.mergedID = int64(project), number, int64(parent), int64(merged)
	code := func(set []string, v string) int8 { return int8(slices.Index(set, v)) } // -1: not in set
	status := h.status()
	h.st, h.kd, h.pr = code(desk.Statuses, status), code(desk.Kinds, h.kind()), code(desk.Priorities, h.priority())
	h.sz = code(sizeOrder, h.size())
	h.tr = code(desk.TriageOrder, status)
	h.created, h.updated = millis(h.field(hCreated)), millis(h.updatedAt())
	return true
}

// atoi reads a number field; an empty one is 0.
func atoi(s string) (int, bool) {
	if s == "" {
		return 0, true
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// oddHeadSelect reads headExpr's fields one column each, for an issue
// whose packed text cannot be cut apart.
const oddHeadSelect = `SELECT ` + headColumns + ` FROM issues WHERE id = ?`

// readOddHead reads the head of issue id field by field.
func readOddHead(ctx context.Context, q queryer, h *head, id int64) (bool, error) {
	fields := make([]string, headFields)
	dest := make([]any, headFields)
	for i := range fields {
		dest[i] = &fields[i]
	}
	if err := q.QueryRowContext(ctx, oddHeadSelect, id).Scan(dest...); err != nil {
		if err == sql.ErrNoRows {
			return false, nil
		}
		return false, err
	}
	return packHead(h, id, fields), nil
}

// issue returns the issue the head holds, without its body and plan.
func (h *head) issue() desk.Issue {
	d := h.decoded()
	return desk.Issue{
		ID: d.key, Number: h.number, Project: h.proj.slug,
		Title: h.title(), Kind: h.kind(), Status: h.status(), Priority: h.priority(), Area: h.area(),
		Tags: d.tags, Location: d.location, Build: d.build,
		Source: h.source(), ExternalRef: h.externalRef(), Size: h.size(), Milestone: h.milestone(),
		CreatedAt: h.field(hCreated), UpdatedAt: h.updatedAt(), ClosedAt: d.closedAt,
		Progress: desk.Progress{Done: h.num(hPlanDone), Total: h.num(hPlanTotal)},
		Parent:   d.parent, MergedInto: d.merged,
		ChildCount: h.num(hChildren), ChildDone: h.num(hChildrenDone),
		CommentCount: h.commentCount(), AttachmentCount: h.num(hAttachments), LastVerdict: d.lastVerdict,
	}
}

// decoded returns what the head's issue holds that is not text of the
// head: the JSON fields decoded, the keys and the optional fields. It is
// made once per head and kept, so that the issues a list makes of the
// head share it.
func (h *head) decoded() *decodedHead {
	if d := h.cache.head.Load(); d != nil {
		return d
	}
	opt := func(i int) *string {
		if s := h.field(i); s != "" {
			return &s
		}
		return nil
	}
	d := &decodedHead{tags: decodeTags(h.tagsRaw()), key: h.key(), closedAt: opt(hClosed), lastVerdict: opt(hVerdict)}
	if loc := h.field(hLocation); loc != "" {
		d.location = decodeLocation(loc)
	}
	if b := h.field(hBuild); b != "" {
		d.build = decodeBuild(b)
	}
	if h.parentID != 0 {
		k := desk.IssueKey(h.proj.prefix, h.parentNumber)
		d.parent = &k
	}
	if h.mergedID != 0 {
		k := desk.IssueKey(h.proj.prefix, h.mergedNumber)
		d.merged = &k
	}
	h.cache.head.Store(d)
	return d
}

// tags returns the head's tags, decoding them (without keeping them) when
// they are not decoded yet.
func (h *head) tags() []string {
	if d := h.cache.head.Load(); d != nil {
		return d.tags
	}
	return decodeTags(h.tagsRaw())
}

// hasTag reports whether the head carries tag (any case).
func (h *head) hasTag(tag string) bool {
	raw := h.tagsRaw()
	if !strings.Contains(strings.ToLower(raw), strings.ToLower(tag)) {
		return false
	}
	for _, t := range h.tags() {
		if strings.EqualFold(t, tag) {
			return true
		}
	}
	return false
}
