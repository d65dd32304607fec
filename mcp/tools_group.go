package mcp

import (
	"context"
	"encoding/json"
	"strings"

	"desk"
)

// groupTools link issues: parents, merges and the proposals for them.
var groupTools = []*tool{
	{
		name: "link_parent",
		desc: "Make an issue part of another one in the same project, or with parent null (or \"none\") part of none.",
		params: []param{
			{name: "child", typ: tString, required: true, desc: "the issue that becomes part of parent"},
			{name: "parent", typ: tString, required: true, nullable: true, desc: "the parent's id; null or \"none\" removes it"},
			pAuthor,
		},
		run: linkParent,
	},
	{
		name: "merge_issues",
		desc: "Merge duplicates into target: their comments, files and history move there and their ids lead to it. unmerge undoes it.",
		params: []param{
			{name: "target", typ: tString, required: true, desc: "the issue that stays"},
			{name: "sources", typ: tArray, required: true, min: intp(1), items: map[string]any{"type": tString}, desc: "the issues merged into it"},
			pAuthor,
		},
		destructive: true,
		run:         mergeIssues,
	},
	{
		name:   "unmerge",
		desc:   "Undo the merge of an issue: it comes back with its own comments and status.",
		params: []param{{name: "id", typ: tString, required: true, desc: "the merged issue"}, pAuthor},
		run:    unmerge,
	},
	{
		name:     "suggest_groups",
		desc:     "Propose merges of likely duplicates and groups of related issues. Proposals only: nothing changes.",
		readOnly: true,
		params:   []param{pProject, {name: "limit", typ: tInteger, min: intp(1), max: intp(100), desc: "proposals to return (default 20)"}},
		run:      suggestGroups,
	},
}

func linkParent(ctx context.Context, s *server, a *args) (any, error) {
	var parent *string
	if raw := a.raw("parent"); !isNull(raw) {
		var p string
		if json.Unmarshal(raw, &p) != nil {
			return nil, argError("link_parent: parent must be an issue id, or null to remove it")
		}
		if p = strings.TrimSpace(p); p != "" && !strings.EqualFold(p, "none") {
			parent = &p
		}
	}
	d, err := s.db.SetParent(ctx, a.str("child"), parent, s.author(a))
	if err != nil {
		return nil, err
	}
	out := map[string]any{"id": d.ID, "parent": nil}
	if d.Parent != nil {
		out["parent"] = *d.Parent
	}
	return out, nil
}

func mergeIssues(ctx context.Context, s *server, a *args) (any, error) {
	res, err := s.db.Merge(ctx, a.str("target"), a.list("sources"), s.author(a))
	if err != nil {
		return nil, err
	}
	return map[string]any{"target": res.Target, "merged": res.Merged, "issue": compact(&res.Issue.Issue, false)}, nil
}

func unmerge(ctx context.Context, s *server, a *args) (any, error) {
	res, err := s.db.Unmerge(ctx, a.str("id"), s.author(a))
	if err != nil {
		return nil, err
	}
	return map[string]any{"source": res.Source, "target": res.Target, "issue": compact(&res.Issue.Issue, false)}, nil
}

func suggestGroups(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	groups, err := s.db.SuggestGroups(ctx, slug, a.integer("limit", 20))
	if err != nil {
		return nil, err
	}
	if groups == nil {
		groups = []desk.Group{}
	}
	return map[string]any{"project": slug, "groups": groups}, nil
}
