package desk

import "encoding/json"

// The rules of parents and merges, shared by every store. The walks up a
// chain of parents are the store's (it reads them); what they may find and
// what a merge records are decided here.

// CheckParent decides whether issue is may become part of parent; old is
// its current parent's id (nil: none). same reports that parent is the
// issue's current parent already, when the write changes nothing.
func CheckParent(is, parent *Issue, old *string) (same bool, err error) {
	switch {
	case parent.ID == is.ID:
		return false, Errorf(Invalid, "parent: %s cannot be part of itself", is.ID)
	case parent.Project != is.Project:
		return false, Errorf(Invalid, "parent: %s is in project %s, %s in %s; a parent must be in the same project", parent.ID, parent.Project, is.ID, is.Project)
	case parent.MergedInto != nil:
		return false, Errorf(Invalid, "parent: %s is merged into %s; use %s", parent.ID, *parent.MergedInto, *parent.MergedInto)
	case old != nil && *old == parent.ID:
		return true, nil
	}
	return false, nil
}

// ErrParentLoop is the refusal of a parent that is already part of the issue.
func ErrParentLoop(is, parent *Issue) error {
	return Errorf(Invalid, "parent: %s is already part of %s; that would make a loop", parent.ID, is.ID)
}

// ParentDetail is the detail of the "parent" entry on the child's
// timeline; ChildDetail the "child" entry on a parent's (op added or
// removed).
func ParentDetail(parent, previous *string) map[string]any {
	var p, prev any
	if parent != nil {
		p = *parent
	}
	if previous != nil {
		prev = *previous
	}
	return map[string]any{"parent": p, "previous": prev}
}

// ChildDetail is the detail of a "child" timeline entry.
func ChildDetail(op, child string) map[string]any {
	return map[string]any{"op": op, "child": child}
}

// CheckMergeTarget decides whether issues may be merged into t.
func CheckMergeTarget(t *Issue, sources []string) error {
	if len(sources) == 0 {
		return Errorf(Invalid, "sources: name at least one issue to merge into %s", t.ID)
	}
	if t.MergedInto != nil {
		return Errorf(Invalid, "target: %s is itself merged into %s; merge into %s instead", t.ID, *t.MergedInto, *t.MergedInto)
	}
	return nil
}

// CheckMergeSource decides whether s may be merged into t; containsTarget
// reports whether t is part of s (walking up t's parents meets s).
func CheckMergeSource(t, s *Issue, containsTarget bool) error {
	switch {
	case s.ID == t.ID:
		return Errorf(Invalid, "sources: %s is the target; an issue cannot merge into itself", s.ID)
	case s.Project != t.Project:
		return Errorf(Invalid, "sources: %s is in project %s, not %s; merges stay in one project", s.ID, s.Project, t.Project)
	case s.MergedInto != nil:
		return Errorf(Conflict, "%s is already merged into %s", s.ID, *s.MergedInto)
	case containsTarget:
		return Errorf(Invalid, "sources: %s contains %s; make %s the target instead", s.ID, t.ID, s.ID)
	}
	return nil
}

// MergeClosedAt is when a merged source counts as closed: when it was
// finished already, else now.
func MergeClosedAt(s *Issue, now string) string {
	if s.ClosedAt != nil && IsDone(s.Status) {
		return *s.ClosedAt
	}
	return now
}

// MergedIntoDetail is the detail of the "merged_into" entry on the source's
// timeline: what an unmerge restores (its status and the store's ids of
// the children the merge moved to the target).
func MergedIntoDetail(s, t *Issue, children []int64) map[string]any {
	if children == nil {
		children = []int64{}
	}
	return map[string]any{"into": t.ID, "prev_status": s.Status, "children": children}
}

// MergedDetail is the detail of the "merged" entry on the target's
// timeline: the source as it was.
func MergedDetail(s *Issue) map[string]any {
	return map[string]any{
		"from": s.ID, "title": s.Title, "body": s.Body, "kind": s.Kind, "status": s.Status, "source": s.Source,
		"area": s.Area, "tags": s.Tags, "location": s.Location, "created_at": s.CreatedAt,
	}
}

// ErrNotMerged is the refusal to unmerge an issue merged into nothing.
func ErrNotMerged(id string) error {
	return Errorf(Conflict, "%s is not merged into anything", id)
}

// UnmergeRecord reads what a merge recorded (MergedIntoDetail's JSON, ""
// when none was found): the status to go back to and the children to move
// back. An unreadable record goes back to reported.
func UnmergeRecord(detail string) (prevStatus string, children []int64) {
	var rec struct {
		PrevStatus string  `json:"prev_status"`
		Children   []int64 `json:"children"`
	}
	_ = json.Unmarshal([]byte(detail), &rec)
	if !OneOf(rec.PrevStatus, Statuses) {
		rec.PrevStatus = StatusReported
	}
	return rec.PrevStatus, rec.Children
}

// UnmergedDetails are the details of the "unmerged" entries on the
// source's and the target's timelines.
func UnmergedDetails(s, t *Issue, status string) (source, target map[string]any) {
	return map[string]any{"from": t.ID, "status": status}, map[string]any{"source": s.ID}
}
