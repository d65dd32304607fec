package mcp

import (
	"context"
	"strconv"

	"desk"
)

// Params most tools share.
var (
	pProject = param{name: "project", typ: tString, desc: "project slug; default: the project linked to this repo, or the only one"}
	pAuthor  = param{name: "author", typ: tString, desc: "your name in the timeline; default: your client's name"}
	pID      = param{name: "id", typ: tString, required: true, desc: "issue id, e.g. MG-12"}
)

func statusList() map[string]any {
	return map[string]any{"type": tString, "enum": desk.Statuses}
}

// readTools read the desk and change nothing.
var readTools = []*tool{
	{
		name:     "list_projects",
		desc:     "List the desk's projects with their counts by status, and which one this repo is linked to.",
		readOnly: true,
		run:      listProjects,
	},
	{
		name: "list_issues",
		desc: "List a project's issues, filtered and sorted, as compact rows (body and location only with full). " +
			"Filters take one value or several.",
		readOnly: true,
		params: []param{
			pProject,
			{name: "status", typ: tArray, items: statusList(), desc: "statuses to keep, e.g. [\"failed\",\"reported\"]"},
			{name: "kind", typ: tArray, items: map[string]any{"type": tString, "enum": desk.Kinds}, desc: "kinds to keep"},
			{name: "priority", typ: tArray, items: map[string]any{"type": tString, "enum": desk.Priorities}, desc: "priorities to keep"},
			{name: "area", typ: tString, desc: "area to keep"},
			{name: "source", typ: tString, enum: desk.Sources, desc: "who filed it"},
			{name: "milestone", typ: tString, desc: "milestone to keep"},
			{name: "tag", typ: tString, desc: "tag to keep"},
			{name: "q", typ: tString, desc: "search text (ranked; see search for excerpts)"},
			{name: "seed", typ: tInteger, desc: "world seed of the location"},
			{name: "merged", typ: tBoolean, desc: "only issues merged into another"},
			{name: "unclaimed", typ: tBoolean, desc: "leave out issues another session has claimed (claim_issue)"},
			{name: "since", typ: tString, desc: "updated at or after this ISO time"},
			{name: "sort", typ: tString, enum: desk.Sorts, desc: "order; default triage (relevance with q)"},
			{name: "limit", typ: tInteger, min: intp(1), max: intp(500), desc: "rows to return (default 50)"},
			{name: "offset", typ: tInteger, min: intp(0), desc: "rows to skip"},
			{name: "full", typ: tBoolean, desc: "include body and location"},
		},
		run: listIssues,
	},
	{
		name: "search",
		desc: "Search a project's issues and comments, best match first, with the field that matched and an excerpt. " +
			"Words match whole and stemmed, \"quoted words\" together, word* as a prefix.",
		readOnly: true,
		params: []param{
			{name: "q", typ: tString, required: true, desc: "what to look for"},
			pProject,
			{name: "area", typ: tString, desc: "area to keep"},
			{name: "status", typ: tArray, items: statusList(), desc: "statuses to keep"},
			{name: "kind", typ: tArray, items: map[string]any{"type": tString, "enum": desk.Kinds}, desc: "kinds to keep"},
			{name: "limit", typ: tInteger, min: intp(1), max: intp(200), desc: "results to return (default 20)"},
		},
		run: search,
	},
	{
		name: "get_issue",
		desc: "Read one issue: body, location with every command, plan, newest comments and timeline. " +
			"The id of a merged issue gives the issue it was merged into.",
		readOnly: true,
		params: []param{
			pID,
			{name: "comments", typ: tInteger, min: intp(0), max: intp(5000), desc: "newest comments to include (default 30)"},
			{name: "activity", typ: tInteger, min: intp(0), max: intp(5000), desc: "newest timeline entries to include (default 15)"},
		},
		run: getIssue,
	},
}

type projectRow struct {
	Slug          string         `json:"slug"`
	Name          string         `json:"name"`
	Prefix        string         `json:"prefix"`
	Counts        map[string]int `json:"counts"`
	Lead          string         `json:"lead,omitempty"`
	Build         string         `json:"build,omitempty"`
	BuildsEnabled bool           `json:"builds_enabled,omitempty"`
}

func listProjects(ctx context.Context, s *server, a *args) (any, error) {
	ps, err := s.db.Projects(ctx)
	if err != nil {
		return nil, err
	}
	return projectsAnswer(s, ps), nil
}

// projectsAnswer is list_projects' answer for ps.
func projectsAnswer(s *server, ps []*desk.Project) map[string]any {
	rows := make([]projectRow, len(ps))
	for i, p := range ps {
		rows[i] = projectRow{Slug: p.Slug, Name: p.Name, Prefix: p.Prefix, Counts: nonZero(p.Counts), BuildsEnabled: p.BuildsEnabled}
		if p.Lead != nil {
			rows[i].Lead = *p.Lead
		}
		if p.Build != nil {
			rows[i].Build = p.Build.Label
		}
	}
	out := map[string]any{"projects": rows}
	if f, ok := s.linked(); ok {
		out["linked_project"] = f.Project
	}
	return out
}

type issueList struct {
	Project string         `json:"project"`
	Total   int            `json:"total"`
	Offset  int            `json:"offset,omitempty"`
	Counts  map[string]int `json:"status_counts"`
	Search  string         `json:"search_mode,omitempty"`
	Issues  []*brief       `json:"issues"`
}

func listIssues(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	f := desk.IssueFilter{
		Status: a.list("status"), Kind: a.list("kind"), Priority: a.list("priority"),
		Tag: a.str("tag"), Q: a.str("q"), Since: a.str("since"), Sort: a.str("sort"),
		Merged: a.boolean("merged"), Unclaimed: a.boolean("unclaimed"), Limit: a.integer("limit", 50), Offset: a.integer("offset", 0),
		Summary: !a.boolean("full"), StatusCountsOnly: true, // the answer counts statuses only
	}
	if v := a.str("area"); v != "" {
		f.Area = []string{v}
	}
	if v := a.str("source"); v != "" {
		f.Source = []string{v}
	}
	if v := a.str("milestone"); v != "" {
		f.Milestone = []string{v}
	}
	if a.has("seed") {
		seed := int64(a.integer("seed", 0))
		f.Seed = &seed
	}
	l, err := s.issues(ctx, slug, f)
	if err != nil {
		return nil, err
	}
	return shapeList(l, a.boolean("full")), nil
}

func shapeList(l *desk.IssueList, full bool) *issueList {
	out := &issueList{Project: l.Project, Total: l.Total, Offset: l.Offset, Counts: nonZero(l.Counts.Status), Issues: make([]*brief, len(l.Issues))}
	if l.Search != nil {
		out.Search = l.Search.Mode
	}
	for i, is := range l.Issues {
		out.Issues[i] = compact(is, full)
	}
	return out
}

type searchHit struct {
	ID     string      `json:"id"`
	Title  string      `json:"title"`
	Status string      `json:"status"`
	Kind   string      `json:"kind"`
	Area   string      `json:"area,omitempty"`
	Match  *desk.Match `json:"match,omitempty"`
}

func search(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	f := desk.IssueFilter{Q: a.str("q"), Status: a.list("status"), Kind: a.list("kind"), Limit: a.integer("limit", 20), Summary: true}
	if v := a.str("area"); v != "" {
		f.Area = []string{v}
	}
	l, err := s.issues(ctx, slug, f)
	if err != nil {
		return nil, err
	}
	hits := make([]searchHit, len(l.Issues))
	for i, is := range l.Issues {
		hits[i] = searchHit{ID: is.ID, Title: is.Title, Status: is.Status, Kind: is.Kind, Area: is.Area, Match: is.Match}
	}
	mode := ""
	if l.Search != nil {
		mode = l.Search.Mode
	}
	return map[string]any{"project": l.Project, "total": l.Total, "mode": mode, "results": hits}, nil
}

func getIssue(ctx context.Context, s *server, a *args) (any, error) {
	t, err := s.db.IssueTail(ctx, a.str("id"), a.integer("comments", 30), a.integer("activity", 15))
	if err != nil {
		return nil, err
	}
	return detailOf(t), nil
}

// itoa is strconv.Itoa, for the one-line answers.
func itoa(i int) string { return strconv.Itoa(i) }
