package desk

import (
	"encoding/json"
	"strings"
)

// The agents' work calls every store answers alike: a progress report
// (a plan step and a comment in one write), the newest part of an issue,
// and the owner's events a session is told of.

// ProgressResult answers a store's Progress: the issue as it stands after
// the change (its status, plan progress and counters) and the comment it
// added, if any.
type ProgressResult struct {
	Issue     *Issue
	CommentID int64 // 0 when no text was given
}

// CheckProgress checks a progress report before a store writes it: a step
// to change (p, normalized here), a text to post, or both; the text is a
// comment, signed by actor. It returns the actor as the writes sign them
// and whether there is a text.
func CheckProgress(p *StepPatch, text, actor string) (string, bool, error) {
	hasText := strings.TrimSpace(text) != ""
	if hasText {
		if err := CheckAuthor(actor); err != nil {
			return "", false, err
		}
	}
	actor = CleanActor(actor, OwnerActor)
	if p == nil && !hasText {
		return "", false, Errorf(Invalid, "give a step to change, a text to post, or both")
	}
	if len(text) > MaxCommentText {
		return "", false, Errorf(Invalid, "text: longer than %d characters", MaxCommentText)
	}
	if p != nil {
		if err := NormalizeStepPatch(p); err != nil {
			return "", false, err
		}
	}
	return actor, hasText, nil
}

// IssueTail is an issue with only the newest part of its history: what an
// agent reads, where the owner's page reads everything.
type IssueTail struct {
	*IssueDetail
	// EarlierComments and EarlierActivity count what was left out.
	EarlierComments int
	EarlierActivity int
}

// TailOf cuts the tail of a whole detail d: its newest nComments comments
// and nActivity timeline entries, the issue's own files and those of the
// comments kept; the landings stay all of them. The slices are shared
// with d.
func TailOf(d *IssueDetail, nComments, nActivity int) *IssueTail {
	nComments, nActivity = max(nComments, 0), max(nActivity, 0)
	cs := d.Comments[len(d.Comments)-min(nComments, len(d.Comments)):]
	acts := d.Activity[len(d.Activity)-min(nActivity, len(d.Activity)):]
	first := int64(1 << 62)
	if len(cs) > 0 {
		first = cs[0].ID
	}
	files := []*Attachment{}
	for _, a := range d.Attachments {
		if a.CommentID == nil || *a.CommentID >= first {
			files = append(files, a)
		}
	}
	t := *d
	t.Comments, t.Activity, t.Attachments = append([]*Comment{}, cs...), append([]*Activity{}, acts...), files
	t.Landings = LandingsOf(d.Activity)
	return &IssueTail{IssueDetail: &t,
		EarlierComments: max(d.CommentCount-len(cs), 0),
		EarlierActivity: len(d.Activity) - len(acts)}
}

// OwnerFeedRow is a feed row that may be an owner event, with what it
// refers to: the issue's title, source and whether it was merged away,
// the comment's text or the timeline entry's detail.
type OwnerFeedRow struct {
	Seq                                 int64
	Issue, Type, Action, Actor, Verdict string
	At, Title, Source                   string
	Merged                              bool
	CommentText, Detail                 string
}

// MaxOwnerScan bounds how many feed rows one OwnerEvents call reads. A
// session that was away long enough to miss more is told the newest ones
// and how many more there were, up to this bound.
const MaxOwnerScan = 500

// Event turns the row into an owner event of project slug, or nil when it
// is not one: an agent's report, a report merged away since, a status
// change a verdict or a plan step made (the verdict or step is the
// event), a plan written rather than a step changed.
func (r *OwnerFeedRow) Event(slug string) *OwnerEvent {
	e := &OwnerEvent{Seq: r.Seq, Project: slug, Issue: r.Issue, Actor: r.Actor, At: r.At, Title: r.Title}
	if r.Type == ChangeComment {
		e.Kind, e.Text = EventComment, r.CommentText
		if r.Verdict != "" {
			e.Kind, e.Verdict = EventVerdict, r.Verdict
		}
		return e
	}
	// Activity details: a status change's from and to, a step change's
	// index, from, to and note, a merge's source (from), a new parent.
	var d struct {
		From, To, Reason, Op, Note string
		Index                      int
		Parent                     *string
	}
	_ = json.Unmarshal([]byte(r.Detail), &d)
	switch r.Action {
	case ActCreated:
		ownerReport := r.Source == SourceOwner && IsOwner(r.Actor)
		if r.Merged || !(r.Source == SourceGame || ownerReport) {
			return nil
		}
		e.Kind, e.Source = EventReport, r.Source
	case ActStatus:
		// A status change with a reason follows from a verdict or a plan
		// step, which is told already.
		if d.Reason != "" {
			return nil
		}
		e.Kind, e.From, e.To = EventStatus, d.From, d.To
	case ActPlan:
		if d.Op != "step" {
			return nil
		}
		e.Kind, e.Step, e.From, e.To, e.Text = EventPlan, d.Index, d.From, d.To, d.Note
	case ActMerged:
		e.Kind, e.Other = EventMerged, d.From
	case ActParent:
		e.Kind = EventParent
		if d.Parent != nil {
			e.Other = strings.TrimSpace(*d.Parent)
		}
	default:
		return nil
	}
	return e
}
