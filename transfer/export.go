// Package transfer moves projects in and out of a desk as JSON: an export
// writes one project whole, as readable JSON with attachments as metadata;
// an import reads either such an export (restored exactly: numbers, times,
// authors, history) or a list of issues written by a person or a script
// (filed through the same rules as any other new issue).
package transfer

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"desk"
	"desk/sqlite"
)

// ExportFormat marks a desk export; import-json recognises it by this.
const ExportFormat = "desk-export"

// ExportVersion is the export layout's version.
const ExportVersion = 1

// Export is one project as export writes it. Its top level has the shape
// import-json reads ({project, projects, issues}), so an export can be
// imported anywhere.
type Export struct {
	Format      string           `json:"format"`
	Version     int              `json:"version"`
	DeskVersion string           `json:"desk_version"`
	ExportedAt  string           `json:"exported_at"`
	Project     string           `json:"project"`
	Projects    []ExportProject  `json:"projects"` // the one exported project
	Issues      []*ExportIssue   `json:"issues"`
	Commands    []*desk.Command  `json:"commands"`
	Handoffs    []*ExportHandoff `json:"handoffs"`
}

// ExportProject is the project's settings and counters.
type ExportProject = sqlite.LoadProject

// ExportIssue is an issue with its comments, attachments (metadata and
// where the file is on the machine that exported it) and activity.
type ExportIssue struct {
	desk.Issue
	Comments    []*desk.Comment     `json:"comments"`
	Attachments []*ExportAttachment `json:"attachments"`
	Activity    []*desk.Activity    `json:"activity"`
}

// ExportAttachment is an attachment's metadata. File is its path on the
// machine that exported it; an import on that machine copies it from there.
type ExportAttachment struct {
	desk.Attachment
	File string `json:"file"`
}

// ExportHandoff is one saved handoff version.
type ExportHandoff struct {
	Version   int    `json:"version"`
	Markdown  string `json:"markdown"`
	Author    string `json:"author"`
	Note      string `json:"note"`
	CreatedAt string `json:"created_at"`
}

// ExportProjectJSON reads project slug of db (whose data folder is dataDir)
// in one snapshot.
func ExportProjectJSON(ctx context.Context, db *sqlite.DB, slug string) (*Export, error) {
	d, err := db.Dump(ctx, slug)
	if err != nil {
		return nil, err
	}
	e := &Export{
		Format: ExportFormat, Version: ExportVersion, DeskVersion: desk.Version,
		ExportedAt: desk.FormatTime(time.Now()), Project: d.Project.Slug,
		Projects: []ExportProject{d.Project}, Issues: make([]*ExportIssue, len(d.Issues)),
		Commands: d.Commands, Handoffs: make([]*ExportHandoff, len(d.Handoffs)),
	}
	for i, is := range d.Issues {
		ei := &ExportIssue{Issue: is.Issue, Comments: is.Comments, Activity: is.Activity, Attachments: make([]*ExportAttachment, len(is.Attachments))}
		for j, a := range is.Attachments {
			ei.Attachments[j] = &ExportAttachment{Attachment: *a, File: filepath.Join(db.Dir(), filepath.FromSlash(a.Path))}
		}
		e.Issues[i] = ei
	}
	for i, h := range d.Handoffs {
		e.Handoffs[i] = &ExportHandoff{Version: h.Version, Markdown: h.Markdown, Author: h.Author, Note: h.Note, CreatedAt: h.CreatedAt}
	}
	return e, nil
}

// restoreExport loads an export into db as it was: a project the desk does
// not have yet, with every number, time and author kept. Attachments come
// back when their file is still where the export says (the same machine);
// the others are counted as missing.
func restoreExport(ctx context.Context, db *sqlite.DB, e *Export, res *Result) error {
	for _, p := range e.Projects {
		exists := false
		if _, err := db.Project(ctx, p.Slug); err == nil {
			exists = true
		} else if desk.ErrorCode(err) != desk.NotFound {
			return err
		}
		if exists {
			res.Skipped += len(e.Issues)
			res.ProjectsSkipped = append(res.ProjectsSkipped, p.Slug)
			continue
		}
		stats, err := db.Load(ctx, sqlite.LoadOptions{}, func(l *sqlite.Loader) error {
			p.NotifySet = true
			pid, err := l.Project(p)
			if err != nil {
				return err
			}
			ids := make([]int64, len(e.Issues))
			for i, is := range e.Issues {
				if ids[i], err = l.Issue(pid, &is.Issue); err != nil {
					return err
				}
			}
			for i, is := range e.Issues {
				comments := map[int64]int64{}
				for _, c := range is.Comments {
					id, err := l.Comment(ids[i], c)
					if err != nil {
						return err
					}
					comments[c.ID] = id
				}
				for _, a := range is.Attachments {
					f, err := os.Open(a.File)
					if err != nil {
						res.MissingFiles = append(res.MissingFiles, a.Filename)
						continue
					}
					att := a.Attachment
					if att.CommentID != nil {
						if id, ok := comments[*att.CommentID]; ok {
							att.CommentID = &id
						} else {
							att.CommentID = nil
						}
					}
					_, err = l.Attachment(ids[i], &att, f)
					f.Close()
					if err != nil {
						return err
					}
				}
				for _, a := range is.Activity {
					if _, err := l.Activity(ids[i], a); err != nil {
						return err
					}
				}
			}
			for _, c := range e.Commands {
				var issue int64
				if c.Issue != nil {
					issue, _ = l.IssueID(*c.Issue)
				}
				if _, err := l.Command(pid, issue, c); err != nil {
					return err
				}
			}
			for _, h := range e.Handoffs {
				if _, err := l.Handoff(pid, &desk.Handoff{Version: h.Version, Markdown: h.Markdown, Author: h.Author, Note: h.Note, CreatedAt: h.CreatedAt}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
		res.Projects++
		res.Created += stats.Issues
		res.Comments += stats.Comments
		res.Attachments += stats.Attachments
	}
	return nil
}
