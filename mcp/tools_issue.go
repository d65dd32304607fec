package mcp

import (
	"context"
	"encoding/json"
	"strings"

	"desk"
)

// agentStatuses are the statuses an agent may set: every one but passed,
// which is the owner's verdict alone.
var agentStatuses = func() []string {
	var out []string
	for _, s := range desk.Statuses {
		if s != desk.StatusPassed {
			out = append(out, s)
		}
	}
	return out
}()

// commandItems is the schema of one location command.
var commandItems = map[string]any{
	"type": tObject,
	"properties": map[string]any{
		"command": map[string]any{"type": tString, "description": "the game's own command that takes the owner to one place"},
		"label":   map[string]any{"type": tString, "description": "a few words naming the place"},
	},
	"required": []string{"command"},
}

// fieldParams are the issue fields agents write, shared by create_issue,
// update_issue and import_checks.
var fieldParams = []param{
	{name: "title", typ: tString, desc: "one line saying what to look at or what is wrong"},
	{name: "body", typ: tString, desc: "markdown: steps, expected and actual result"},
	{name: "kind", typ: tString, enum: desk.Kinds, desc: "default check"},
	{name: "priority", typ: tString, enum: desk.Priorities, desc: "p0 most urgent; default p2"},
	{name: "area", typ: tString, desc: "part of the game, e.g. terrain"},
	{name: "tags", typ: tArray, items: map[string]any{"type": tString}},
	{name: "size", typ: tString, enum: []string{"S", "M", "L"}, desc: "effort for the backlog"},
	{name: "milestone", typ: tString},
	{name: "commands", typ: tArray, items: commandItems, desc: "location commands, one place each, in the order to visit"},
	{name: "command", typ: tString, desc: "a single location command (replaces the first)"},
	{name: "location", typ: tObject, desc: "where it is: {place, x, y, z, yaw, pitch, time, weather, action, seed, commands}"},
	{name: "seed", typ: tInteger, desc: "world seed of the location"},
}

var issueFieldNames = func() []string {
	var names []string
	for _, p := range fieldParams {
		names = append(names, p.name)
	}
	return names
}()

func withParams(ps ...[]param) []param {
	var out []param
	for _, p := range ps {
		out = append(out, p...)
	}
	return out
}

func requireParam(ps []param, name string) []param {
	out := append([]param(nil), ps...)
	for i := range out {
		if out[i].name == name {
			out[i].required = true
		}
	}
	return out
}

// issueTools file, edit and move issues.
var issueTools = []*tool{
	{
		name: "create_issue",
		desc: "File an issue. Defaults: kind check; a check goes to to_check when the owner can check it " +
			"(plan finished, a location command, a current build where builds are used), else auto_check. " +
			"Give each place its own command.",
		params: withParams([]param{pProject}, requireParam(fieldParams, "title"), []param{
			{name: "status", typ: tString, enum: agentStatuses, lenient: true, desc: "default: see above"},
			{name: "external_ref", typ: tString, desc: "a commit or TODO item this comes from"},
			{name: "parent", typ: tString, desc: "id of the issue this is part of"},
			pAttach, pAuthor,
		}),
		run: createIssue,
	},
	{
		name: "update_issue",
		desc: "Edit an issue's fields, e.g. to make a terse report clear; the owner's first wording stays in the timeline. " +
			"Status is set with set_status, the parent with link_parent.",
		params: withParams([]param{pID}, fieldParams, []param{pAuthor}),
		unknown: func(name string) string {
			switch name {
			case "status":
				return "update_issue cannot change status; use set_status"
			case "parent":
				return "update_issue cannot change the parent; use link_parent"
			case "attachment_paths":
				return "update_issue cannot attach files; use comment with attachment_paths"
			case "source", "external_ref":
				return "update_issue cannot change " + name
			}
			return ""
		},
		run: updateIssue,
	},
	{
		name: "comment",
		desc: "Comment on an issue: what you changed, evidence, a question. verdict failed marks a check failed; only the owner passes.",
		params: []param{
			pID,
			{name: "text", typ: tString, required: true, desc: "markdown"},
			{name: "verdict", typ: tString, enum: []string{desk.StatusFailed}, lenient: true, desc: "failed: the check did not pass"},
			pAttach, pAuthor,
		},
		run: addComment,
	},
	{
		name: "set_status",
		desc: "Move an issue. to_check hands it to the owner and needs every plan step done or dropped, a location command " +
			"and a current build where builds are used; use auto_check while you verify yourself. Never passed.",
		params: []param{
			pID,
			{name: "status", typ: tString, required: true, enum: agentStatuses, lenient: true},
			pAuthor,
		},
		run: setStatus,
	},
	{
		name: "set_location",
		desc: "Set where an issue can be seen: commands replaces the command list, command the first one, location merges the rest.",
		params: []param{
			pID,
			{name: "commands", typ: tArray, items: commandItems, desc: "location commands, one place each"},
			{name: "command", typ: tString, desc: "replaces the first command"},
			{name: "location", typ: tObject, desc: "{place, x, y, z, yaw, pitch, time, weather, action, seed}"},
			{name: "seed", typ: tInteger, desc: "world seed"},
			pAuthor,
		},
		run: setLocation,
	},
	{
		name: "import_checks",
		desc: "File many checks at once (same fields as create_issue). Checks whose external_ref the project already has are skipped.",
		params: []param{
			pProject,
			{name: "checks", typ: tArray, required: true, min: intp(1), items: map[string]any{"type": tObject, "required": []string{"title"}},
				desc: "the checks: objects with create_issue's fields (title required)"},
			pAuthor,
		},
		run: importChecks,
	},
}

// decodeFields reads issue fields from a call's arguments with the core's
// decoder, which checks their values.
func decodeFields(m map[string]json.RawMessage) (desk.IssueFields, error) {
	return desk.DecodeIssueFields(m)
}

func createIssue(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	f, err := decodeFields(a.fields(append(issueFieldNames, "status", "external_ref", "parent")...))
	if err != nil {
		return nil, err
	}
	files, err := s.attachments(a.list("attachment_paths"))
	if err != nil {
		return nil, err
	}
	d, err := s.db.CreateIssue(ctx, slug, f, desk.CreateOptions{Author: s.author(a), Attachments: files, Agent: true})
	if err != nil {
		return nil, err
	}
	return compact(&d.Issue, false), nil
}

func updateIssue(ctx context.Context, s *server, a *args) (any, error) {
	f, err := decodeFields(a.fields(issueFieldNames...))
	if err != nil {
		return nil, err
	}
	if f == (desk.IssueFields{}) {
		return nil, argError("update_issue: give at least one field to change (%s)", strings.Join(issueFieldNames, ", "))
	}
	d, err := s.db.UpdateIssue(ctx, a.str("id"), f, s.author(a))
	if err != nil {
		return nil, err
	}
	return compact(d, false), nil
}

type commentAnswer struct {
	Comment struct {
		ID      int64    `json:"id"`
		Author  string   `json:"author"`
		Verdict string   `json:"verdict,omitempty"`
		Files   []string `json:"files,omitempty"`
	} `json:"comment"`
	Issue struct {
		ID          string `json:"id"`
		Status      string `json:"status"`
		Comments    int    `json:"comment_count"`
		Attachments int    `json:"attachment_count,omitempty"`
	} `json:"issue"`
}

func addComment(ctx context.Context, s *server, a *args) (any, error) {
	files, err := s.attachments(a.list("attachment_paths"))
	if err != nil {
		return nil, err
	}
	c, d, err := s.db.AddComment(ctx, a.str("id"), desk.CommentInput{
		Author: s.author(a), Text: a.str("text"), Verdict: a.str("verdict"), Attachments: files,
	})
	if err != nil {
		return nil, err
	}
	var out commentAnswer
	out.Comment.ID, out.Comment.Author = c.ID, c.Author
	if c.Verdict != nil {
		out.Comment.Verdict = *c.Verdict
	}
	for _, f := range c.Attachments {
		out.Comment.Files = append(out.Comment.Files, fileLabel(f))
	}
	out.Issue.ID, out.Issue.Status, out.Issue.Comments, out.Issue.Attachments = d.ID, d.Status, d.CommentCount, d.AttachmentCount
	return out, nil
}

func setStatus(ctx context.Context, s *server, a *args) (any, error) {
	d, err := s.db.SetStatus(ctx, a.str("id"), a.str("status"), s.author(a))
	if err != nil {
		return nil, err
	}
	out := map[string]any{"id": d.ID, "status": d.Status}
	if d.Build != nil {
		out["build"] = d.Build.Label
	}
	return out, nil
}

func setLocation(ctx context.Context, s *server, a *args) (any, error) {
	f, err := decodeFields(a.fields("commands", "command", "location", "seed"))
	if err != nil {
		return nil, err
	}
	if !f.TouchesLocation() {
		return nil, argError("set_location: give commands, command, location or seed")
	}
	if f.Location != nil {
		// A location given here adds to the stored one: what it leaves out
		// stays as it was.
		cur, err := s.db.Issue(ctx, a.str("id"))
		if err != nil {
			return nil, err
		}
		merged, err := mergeLocation(cur.Location, a.raw("location"))
		if err != nil {
			return nil, err
		}
		f.Location = &merged
	}
	d, err := s.db.UpdateIssue(ctx, a.str("id"), f, s.author(a))
	if err != nil {
		return nil, err
	}
	return map[string]any{"id": d.ID, "location": d.Location}, nil
}

// mergeLocation lays the members of patch over the stored location and
// decodes the result with the core's decoder.
func mergeLocation(cur desk.Location, patch json.RawMessage) (desk.Location, error) {
	base, err := json.Marshal(cur)
	if err != nil {
		return desk.Location{}, err
	}
	var m, p map[string]json.RawMessage
	if err := json.Unmarshal(base, &m); err != nil {
		return desk.Location{}, err
	}
	if err := json.Unmarshal(patch, &p); err != nil {
		return desk.Location{}, argError("location: expected an object")
	}
	if _, ok := p["commands"]; ok {
		delete(m, "command")
	} else if _, ok := p["command"]; ok {
		delete(m, "commands")
	}
	for k, v := range p {
		m[k] = v
	}
	merged, err := json.Marshal(m)
	if err != nil {
		return desk.Location{}, err
	}
	return desk.DecodeLocation(merged)
}

type importAnswer struct {
	Created []string      `json:"created"`
	Skipped []string      `json:"skipped,omitempty"` // external_refs already on the desk
	Errors  []importError `json:"errors,omitempty"`
}

type importError struct {
	Index int    `json:"index"`
	Title string `json:"title,omitempty"`
	Error string `json:"error"`
}

// importChecks files each check on its own. Input that cannot be read (a
// bad field, a missing file) stops the import before anything is written;
// a check the core refuses is reported and the rest go on.
func importChecks(ctx context.Context, s *server, a *args) (any, error) {
	slug, err := s.project(ctx, a)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := json.Unmarshal(a.raw("checks"), &items); err != nil {
		return nil, argError("import_checks: checks must be a list of objects")
	}
	type prepared struct {
		f     desk.IssueFields
		files []desk.AttachmentInput
		title string
	}
	allowed := map[string]bool{"status": true, "external_ref": true, "parent": true, "attachment_paths": true}
	for _, n := range issueFieldNames {
		allowed[n] = true
	}
	var todo []prepared
	for i, raw := range items {
		m, err := desk.DecodeObject(raw)
		if err != nil {
			return nil, argError("import_checks: checks[%d]: %s", i, desk.ErrorMessage(err))
		}
		for k := range m {
			if !allowed[k] {
				return nil, argError("import_checks: checks[%d] has %q, which a check does not take", i, k)
			}
		}
		var paths []string
		if raw, ok := m["attachment_paths"]; ok {
			if json.Unmarshal(raw, &paths) != nil {
				return nil, argError("import_checks: checks[%d].attachment_paths must be a list of paths", i)
			}
			delete(m, "attachment_paths")
		}
		f, err := desk.DecodeIssueFields(m)
		if err != nil {
			return nil, argError("import_checks: checks[%d]: %s", i, desk.ErrorMessage(err))
		}
		if f.Title == nil {
			return nil, argError("import_checks: checks[%d] has no title", i)
		}
		files, err := s.attachments(paths)
		if err != nil {
			return nil, argError("import_checks: checks[%d]: %s", i, desk.ErrorMessage(err))
		}
		todo = append(todo, prepared{f: f, files: files, title: *f.Title})
	}
	out := importAnswer{Created: []string{}}
	author := s.author(a)
	for i, p := range todo {
		d, err := s.db.CreateIssue(ctx, slug, p.f, desk.CreateOptions{Author: author, Attachments: p.files, Agent: true, SkipDuplicate: true})
		switch {
		case err != nil:
			if desk.ErrorCode(err) == desk.Internal {
				return nil, err
			}
			out.Errors = append(out.Errors, importError{Index: i, Title: p.title, Error: desk.ErrorMessage(err)})
		case d == nil:
			ref := ""
			if p.f.ExternalRef != nil {
				ref = *p.f.ExternalRef
			}
			out.Skipped = append(out.Skipped, ref)
		default:
			out.Created = append(out.Created, d.ID+" "+d.Status)
		}
	}
	return out, nil
}
