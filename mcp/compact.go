package mcp

import (
	"encoding/json"
	"strconv"
	"strings"

	"desk"
	"desk/sqlite"
)

// The compact forms below are what agents read. They leave out what is
// empty or default and fold what a list row does not need (the plan to
// "done/total", the build to its label, the location to its first command),
// because an agent pays for every byte it reads.

// brief is an issue as lists show it.
type brief struct {
	ID          string   `json:"id"`
	Title       string   `json:"title"`
	Status      string   `json:"status"`
	Kind        string   `json:"kind"`
	Priority    string   `json:"priority"`
	Area        string   `json:"area,omitempty"`
	Tags        []string `json:"tags,omitempty"`
	Size        string   `json:"size,omitempty"`
	Milestone   string   `json:"milestone,omitempty"`
	Source      string   `json:"source,omitempty"` // left out for the owner's own
	ExternalRef string   `json:"external_ref,omitempty"`
	Parent      string   `json:"parent,omitempty"`
	MergedInto  string   `json:"merged_into,omitempty"`
	Plan        string   `json:"plan,omitempty"`     // "done/total"
	Children    string   `json:"children,omitempty"` // "done/count done"
	Build       string   `json:"build,omitempty"`    // the label it was handed over in
	Command     string   `json:"command,omitempty"`  // the first, seeded
	Commands    int      `json:"commands,omitempty"` // how many, when more than one
	Seed        *int64   `json:"seed,omitempty"`
	Comments    int      `json:"comment_count,omitempty"`
	Attachments int      `json:"attachment_count,omitempty"`
	LastVerdict string   `json:"last_verdict,omitempty"`
	ClaimedBy   string   `json:"claimed_by,omitempty"`    // the session whose claim is in force
	ClaimedTill string   `json:"claimed_until,omitempty"` // when it expires
	UpdatedAt   string   `json:"updated_at"`

	Match *desk.Match `json:"match,omitempty"`

	// With full (list_issues) or in a detail.
	Body     string         `json:"body,omitempty"`
	Location *desk.Location `json:"location,omitempty"`
}

func compact(is *desk.Issue, full bool) *brief {
	b := &brief{
		ID: is.ID, Title: is.Title, Status: is.Status, Kind: is.Kind, Priority: is.Priority,
		Area: is.Area, Tags: is.Tags, Size: is.Size, Milestone: is.Milestone, ExternalRef: is.ExternalRef,
		Comments: is.CommentCount, Attachments: is.AttachmentCount, UpdatedAt: is.UpdatedAt, Match: is.Match,
		Seed: is.Location.Seed,
	}
	if is.Source != desk.SourceOwner {
		b.Source = is.Source
	}
	if is.Parent != nil {
		b.Parent = *is.Parent
	}
	if is.Claim != nil {
		b.ClaimedBy, b.ClaimedTill = is.Claim.Holder, is.Claim.ExpiresAt
	}
	if is.MergedInto != nil {
		b.MergedInto = *is.MergedInto
	}
	if is.Progress.Total > 0 {
		b.Plan = progress(is.Progress)
	}
	if is.ChildCount > 0 {
		b.Children = strconv.Itoa(is.ChildDone) + "/" + strconv.Itoa(is.ChildCount) + " done"
	}
	if is.Build != nil {
		b.Build = is.Build.Label
	}
	if cmds := is.Location.SeededCommands(); len(cmds) > 0 {
		b.Command = cmds[0].Command
		if len(cmds) > 1 {
			b.Commands = len(cmds)
		}
	}
	if is.LastVerdict != nil {
		b.LastVerdict = *is.LastVerdict
	}
	if full {
		b.Body = is.Body
		if !is.Location.IsZero() {
			loc := is.Location
			b.Location = &loc
		}
	}
	return b
}

func progress(p desk.Progress) string {
	return strconv.Itoa(p.Done) + "/" + strconv.Itoa(p.Total)
}

// nonZero keeps the counts that are not zero.
func nonZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// detail is an issue as get_issue shows it: the compact fields, the body,
// the location with every command, the plan, the newest comments and
// timeline entries, and what it is linked to.
type detail struct {
	*brief
	RedirectedFrom string           `json:"redirected_from,omitempty"`
	CreatedAt      string           `json:"created_at"`
	ClosedAt       string           `json:"closed_at,omitempty"`
	BuildInfo      *desk.BuildRef   `json:"build_info,omitempty"`
	Steps          []step           `json:"steps,omitempty"`
	Verification   string           `json:"verification,omitempty"`
	ParentTitle    string           `json:"parent_title,omitempty"`
	ChildList      []desk.ChildInfo `json:"child_issues,omitempty"`
	MergedSources  []string         `json:"merged_sources,omitempty"`
	Files          []string         `json:"files,omitempty"` // issue attachments: "name (mime, size)"
	CommentList    []comment        `json:"comments,omitempty"`
	EarlierComms   int              `json:"earlier_comments,omitempty"`
	Timeline       []timelineEntry  `json:"activity,omitempty"`
	EarlierAct     int              `json:"earlier_activity,omitempty"`
	SentCommands   []sentCommand    `json:"sent_commands,omitempty"`
}

type step struct {
	N      int    `json:"n"`
	Text   string `json:"text"`
	State  string `json:"state"`
	Commit string `json:"commit,omitempty"`
	Note   string `json:"note,omitempty"`
}

func steps(p desk.Plan) []step {
	out := make([]step, len(p.Steps))
	for i, s := range p.Steps {
		out[i] = step{N: i + 1, Text: s.Text, State: s.State, Commit: s.Commit, Note: s.Note}
	}
	return out
}

type comment struct {
	ID         int64    `json:"id"`
	Author     string   `json:"author"`
	Text       string   `json:"text,omitempty"`
	Verdict    string   `json:"verdict,omitempty"`
	At         string   `json:"at"`
	Files      []string `json:"files,omitempty"`
	MergedFrom string   `json:"merged_from,omitempty"`
}

type timelineEntry struct {
	At     string          `json:"at"`
	Actor  string          `json:"actor"`
	Action string          `json:"action"`
	Detail json.RawMessage `json:"detail,omitempty"`
}

type sentCommand struct {
	ID      int64  `json:"id"`
	Command string `json:"command"`
	State   string `json:"state"`
	Client  string `json:"client,omitempty"`
}

func fileLabel(a *desk.Attachment) string {
	return a.Filename + " (" + a.Mime + ", " + strconv.FormatInt(a.Size, 10) + " B)"
}

// detailOf shapes an issue's detail as the store read it: with its newest
// comments and timeline entries, and how many earlier ones there are.
func detailOf(t *sqlite.IssueTail) *detail {
	d := t.IssueDetail
	out := &detail{brief: compact(&d.Issue, true), RedirectedFrom: d.RedirectedFrom, CreatedAt: d.CreatedAt,
		BuildInfo: d.Build, Verification: d.Plan.Verification, ChildList: d.Children,
		EarlierComms: t.EarlierComments, EarlierAct: t.EarlierActivity}
	out.brief.Build = ""
	if d.ClosedAt != nil {
		out.ClosedAt = *d.ClosedAt
	}
	if len(d.Plan.Steps) > 0 {
		out.Steps = steps(d.Plan)
	}
	if d.ParentInfo != nil {
		out.ParentTitle = d.ParentInfo.Title
	}
	for _, m := range d.MergedSources {
		out.MergedSources = append(out.MergedSources, m.ID+" "+m.Title)
	}
	for _, a := range d.Attachments {
		if a.CommentID == nil {
			out.Files = append(out.Files, fileLabel(a))
		}
	}
	for _, c := range d.Comments {
		cc := comment{ID: c.ID, Author: c.Author, Text: c.Text, At: c.CreatedAt}
		if c.Verdict != nil {
			cc.Verdict = *c.Verdict
		}
		if c.MergedFrom != nil {
			cc.MergedFrom = *c.MergedFrom
		}
		for _, a := range c.Attachments {
			cc.Files = append(cc.Files, fileLabel(a))
		}
		out.CommentList = append(out.CommentList, cc)
	}
	for _, a := range d.Activity {
		e := timelineEntry{At: a.CreatedAt, Actor: a.Actor, Action: a.Action}
		if det := strings.TrimSpace(string(a.Detail)); det != "" && det != "{}" && det != "null" {
			e.Detail = a.Detail
		}
		out.Timeline = append(out.Timeline, e)
	}
	for _, c := range d.Commands {
		sc := sentCommand{ID: c.ID, Command: c.Command, State: c.State}
		if c.Client != nil {
			sc.Client = *c.Client
		}
		out.SentCommands = append(out.SentCommands, sc)
	}
	return out
}

// appendJSON appends the list as encoding/json writes it with HTML
// escaping off: list_issues is the call agents make most, and reflection
// was a fifth of its cost. A test holds the two to the same bytes.
func (l *issueList) appendJSON(b []byte) []byte {
	b = append(b, `{"project":`...)
	b = desk.AppendJSONString(b, l.Project)
	b = append(b, `,"total":`...)
	b = strconv.AppendInt(b, int64(l.Total), 10)
	if l.Offset != 0 {
		b = append(b, `,"offset":`...)
		b = strconv.AppendInt(b, int64(l.Offset), 10)
	}
	b = append(b, `,"status_counts":`...)
	b = desk.AppendCountMap(b, l.Counts)
	if l.Search != "" {
		b = append(b, `,"search_mode":`...)
		b = desk.AppendJSONString(b, l.Search)
	}
	b = append(b, `,"issues":`...)
	if l.Issues == nil {
		return append(b, "null}"...)
	}
	b = append(b, '[')
	for i, is := range l.Issues {
		if i > 0 {
			b = append(b, ',')
		}
		b = is.appendJSON(b)
	}
	return append(b, "]}"...)
}

// appendJSON appends the brief as encoding/json writes it with HTML
// escaping off (see issueList.appendJSON).
func (br *brief) appendJSON(b []byte) []byte {
	str := func(key, v string) {
		if v != "" {
			b = append(b, `,"`...)
			b = append(b, key...)
			b = append(b, `":`...)
			b = desk.AppendJSONString(b, v)
		}
	}
	num := func(key string, v int) {
		if v != 0 {
			b = append(b, `,"`...)
			b = append(b, key...)
			b = append(b, `":`...)
			b = strconv.AppendInt(b, int64(v), 10)
		}
	}
	b = append(b, `{"id":`...)
	b = desk.AppendJSONString(b, br.ID)
	b = append(b, `,"title":`...)
	b = desk.AppendJSONString(b, br.Title)
	b = append(b, `,"status":`...)
	b = desk.AppendJSONString(b, br.Status)
	b = append(b, `,"kind":`...)
	b = desk.AppendJSONString(b, br.Kind)
	b = append(b, `,"priority":`...)
	b = desk.AppendJSONString(b, br.Priority)
	str("area", br.Area)
	if len(br.Tags) > 0 {
		b = append(b, `,"tags":[`...)
		for i, t := range br.Tags {
			if i > 0 {
				b = append(b, ',')
			}
			b = desk.AppendJSONString(b, t)
		}
		b = append(b, ']')
	}
	str("size", br.Size)
	str("milestone", br.Milestone)
	str("source", br.Source)
	str("external_ref", br.ExternalRef)
	str("parent", br.Parent)
	str("merged_into", br.MergedInto)
	str("plan", br.Plan)
	str("children", br.Children)
	str("build", br.Build)
	str("command", br.Command)
	num("commands", br.Commands)
	if br.Seed != nil {
		b = append(b, `,"seed":`...)
		b = strconv.AppendInt(b, *br.Seed, 10)
	}
	num("comment_count", br.Comments)
	num("attachment_count", br.Attachments)
	str("last_verdict", br.LastVerdict)
	str("claimed_by", br.ClaimedBy)
	str("claimed_until", br.ClaimedTill)
	b = append(b, `,"updated_at":`...)
	b = desk.AppendJSONString(b, br.UpdatedAt)
	if br.Match != nil {
		b = append(b, `,"match":`...)
		b = br.Match.AppendJSON(b)
	}
	str("body", br.Body)
	if br.Location != nil {
		b = append(b, `,"location":`...)
		b = br.Location.AppendJSON(b)
	}
	return append(b, '}')
}
