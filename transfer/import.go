package transfer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"desk"
	"desk/attachpath"
	"desk/sqlite"
)

// Options tune an import.
type Options struct {
	// Project receives the issues that name no project of their own when
	// the file does not name one either.
	Project string
	// Fallback is the project used when neither the issue, the file nor
	// Project names one and the file creates not exactly one (the folder's
	// linked project, say).
	Fallback string
	// Author files the issues and writes the comments that name nobody.
	Author string
	// Dirs are where relative attachment_paths are looked for, in order
	// (the current folder, then the JSON file's folder).
	Dirs []string
}

// Result counts what an import did.
type Result struct {
	Projects        int      `json:"projects_created"`
	ProjectsSkipped []string `json:"projects_skipped"`
	Created         int      `json:"created"`
	Skipped         int      `json:"skipped"` // issues whose external_ref the project has
	Comments        int      `json:"comments"`
	Attachments     int      `json:"attachments"`
	Issues          []string `json:"issues"` // the ids created, in order
	MissingFiles    []string `json:"missing_files"`
}

// item is one issue of an import, checked and ready to file.
type item struct {
	project  string
	fields   desk.IssueFields
	author   string
	files    []desk.AttachmentInput
	comments []desk.CommentInput
}

// ImportJSON reads data, a desk export or a list of issues, and files it in
// db. A list is a JSON array of issues, or an object {project, projects:
// [{slug, name, prefix}], issues: [...]}; each issue may name its project
// and carry comments [{author, text, verdict}] and attachment_paths.
// Issues whose external_ref their project already has are skipped, so an
// import can run twice. Everything is checked before the first write: a bad
// item, an unreadable file or an unknown project changes nothing.
func ImportJSON(ctx context.Context, db *sqlite.DB, data []byte, o Options) (*Result, error) {
	res := &Result{Issues: []string{}, ProjectsSkipped: []string{}, MissingFiles: []string{}}
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return nil, desk.Errorf(desk.Invalid, "the JSON is empty: expected a list of issues or {\"issues\": [...]}")
	}
	var rawItems []json.RawMessage
	var newProjects []desk.NewProject
	defaultProject := o.Project
	if data[0] == '[' {
		if err := json.Unmarshal(data, &rawItems); err != nil {
			return nil, desk.Errorf(desk.Invalid, "not a JSON list of issues: %v", err)
		}
	} else {
		var top struct {
			Format   string            `json:"format"`
			Project  string            `json:"project"`
			Projects []json.RawMessage `json:"projects"`
			Issues   []json.RawMessage `json:"issues"`
		}
		if err := json.Unmarshal(data, &top); err != nil {
			return nil, desk.Errorf(desk.Invalid, "expected a list of issues or {\"project\", \"projects\", \"issues\"}: %v", err)
		}
		if top.Format == ExportFormat {
			var e Export
			if err := json.Unmarshal(data, &e); err != nil {
				return nil, desk.Errorf(desk.Invalid, "not a readable desk export: %v", err)
			}
			if e.Version > ExportVersion {
				return nil, desk.Errorf(desk.Invalid, "this export was written by a newer desk (version %d)", e.Version).WithHint("update desk")
			}
			if len(e.Projects) != 1 {
				return nil, desk.Errorf(desk.Invalid, "a desk export holds exactly one project, this one %d", len(e.Projects))
			}
			return res, restoreExport(ctx, db, &e, res)
		}
		if top.Issues == nil {
			return nil, desk.Errorf(desk.Invalid, "the object has no \"issues\" list")
		}
		rawItems = top.Issues
		if top.Project != "" {
			defaultProject = top.Project
		}
		for i, raw := range top.Projects {
			var p struct{ Slug, Name, Prefix string }
			if err := json.Unmarshal(raw, &p); err != nil {
				return nil, desk.Errorf(desk.Invalid, "projects[%d]: expected {slug, name, prefix}", i)
			}
			np := desk.NewProject{Slug: p.Slug, Name: p.Name, Prefix: p.Prefix}
			if err := np.Normalize(); err != nil {
				return nil, desk.Errorf(desk.Invalid, "projects[%d]: %s", i, desk.ErrorMessage(err))
			}
			newProjects = append(newProjects, np)
		}
		if defaultProject == "" && len(newProjects) == 1 {
			defaultProject = newProjects[0].Slug
		}
	}
	if defaultProject == "" {
		defaultProject = o.Fallback
	}

	// Check everything first.
	known := map[string]bool{}
	for _, np := range newProjects {
		if _, err := db.Project(ctx, np.Slug); err == nil {
			known[np.Slug] = true
			res.ProjectsSkipped = append(res.ProjectsSkipped, np.Slug)
		} else if desk.ErrorCode(err) != desk.NotFound {
			return nil, err
		}
	}
	planned := map[string]bool{}
	for _, np := range newProjects {
		planned[np.Slug] = true
	}
	items := make([]*item, 0, len(rawItems))
	for i, raw := range rawItems {
		it, err := decodeItem(raw, o)
		if err != nil {
			return nil, desk.Errorf(desk.ErrorCode(err), "issues[%d]: %s", i, desk.ErrorMessage(err))
		}
		if it.project == "" {
			it.project = defaultProject
		}
		if it.project == "" {
			return nil, desk.Errorf(desk.Invalid, "issues[%d]: no project: give \"project\" in the file, or --project", i)
		}
		if !known[it.project] && !planned[it.project] {
			if _, err := db.Project(ctx, it.project); err != nil {
				return nil, desk.Errorf(desk.ErrorCode(err), "issues[%d]: %s", i, desk.ErrorMessage(err))
			}
			known[it.project] = true
		}
		items = append(items, it)
	}

	// Then write.
	for _, np := range newProjects {
		if known[np.Slug] {
			continue
		}
		if _, err := db.CreateProject(ctx, np, o.Author); err != nil {
			return res, err
		}
		res.Projects++
	}
	for i, it := range items {
		d, err := db.CreateIssue(ctx, it.project, it.fields, desk.CreateOptions{
			Author: it.author, Attachments: it.files, SkipDuplicate: true,
		})
		if err != nil {
			return res, desk.Errorf(desk.ErrorCode(err), "issues[%d]: %s (%d issue(s) were filed before it; importing again skips them)", i, desk.ErrorMessage(err), res.Created)
		}
		if d == nil {
			res.Skipped++
			continue
		}
		res.Created++
		res.Attachments += len(it.files)
		res.Issues = append(res.Issues, d.ID)
		for _, c := range it.comments {
			if _, _, err := db.AddComment(ctx, d.ID, c); err != nil {
				return res, desk.Errorf(desk.ErrorCode(err), "issues[%d] comment: %s", i, desk.ErrorMessage(err))
			}
			res.Comments++
		}
	}
	return res, nil
}

// decodeItem reads and checks one issue of a list.
func decodeItem(raw json.RawMessage, o Options) (*item, error) {
	m, err := desk.DecodeObject(raw)
	if err != nil {
		return nil, err
	}
	it := &item{author: o.Author}
	if r, ok := m["project"]; ok {
		if it.project, err = desk.DecodeString("project", r, 100); err != nil {
			return nil, err
		}
	}
	if r, ok := m["author"]; ok {
		a, err := desk.DecodeString("author", r, desk.MaxAuthor)
		if err != nil {
			return nil, err
		}
		if strings.TrimSpace(a) != "" {
			it.author = a
		}
	}
	if r, ok := m["comments"]; ok {
		var cs []struct {
			Author  string `json:"author"`
			Text    string `json:"text"`
			Verdict string `json:"verdict"`
		}
		if err := json.Unmarshal(r, &cs); err != nil {
			return nil, desk.Errorf(desk.Invalid, "comments: expected a list of {author, text, verdict}")
		}
		for j, c := range cs {
			in := desk.CommentInput{Author: c.Author, Text: c.Text, Verdict: strings.ToLower(strings.TrimSpace(c.Verdict))}
			if strings.TrimSpace(in.Author) == "" {
				in.Author = it.author
			}
			if err := desk.CheckAuthor(in.Author); err != nil {
				return nil, desk.Errorf(desk.ErrorCode(err), "comments[%d]: %s", j, desk.ErrorMessage(err))
			}
			if err := desk.CheckVerdict(in.Author, in.Verdict); err != nil {
				return nil, desk.Errorf(desk.ErrorCode(err), "comments[%d]: %s", j, desk.ErrorMessage(err))
			}
			if strings.TrimSpace(in.Text) == "" && in.Verdict == "" {
				return nil, desk.Errorf(desk.Invalid, "comments[%d]: no text", j)
			}
			if len(in.Text) > desk.MaxCommentText {
				return nil, desk.Errorf(desk.Invalid, "comments[%d]: longer than %d characters", j, desk.MaxCommentText)
			}
			it.comments = append(it.comments, in)
		}
	}
	if r, ok := m["attachment_paths"]; ok {
		var paths []string
		if err := json.Unmarshal(r, &paths); err != nil {
			return nil, desk.Errorf(desk.Invalid, "attachment_paths: expected a list of file paths")
		}
		for _, p := range paths {
			f, err := attachpath.Read(p, o.Dirs...)
			if err != nil {
				return nil, desk.Errorf(desk.Invalid, "attachment_paths: %s", desk.ErrorMessage(err))
			}
			it.files = append(it.files, f)
		}
	}
	if it.fields, err = desk.DecodeIssueFields(m); err != nil {
		return nil, err
	}
	if it.fields.Title == nil {
		return nil, desk.Errorf(desk.Invalid, "title: required")
	}
	return it, nil
}

// String describes a result in one line.
func (r *Result) String() string {
	s := fmt.Sprintf("Imported %d issue(s), skipped %d already there, %d comment(s), %d attachment(s)", r.Created, r.Skipped, r.Comments, r.Attachments)
	if r.Projects > 0 {
		s += fmt.Sprintf(", %d new project(s)", r.Projects)
	}
	return s
}
