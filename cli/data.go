package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"desk"
	"desk/backup"
	"desk/link"
	"desk/pairdesk"
	"desk/postgres"
	"desk/transfer"
	"encoding/json"
)

func init() {
	Register(&Command{Name: "backup", Summary: "write the whole desk to one zip, while it runs", Run: runBackup})
	Register(&Command{Name: "restore", Summary: "restore a backup zip (--check only checks it)", Run: runRestore})
	Register(&Command{Name: "export", Summary: "write one project as readable JSON (attachments as metadata)", Run: runExport})
	Register(&Command{Name: "import-json", Summary: "import issues from JSON: a list, {projects, issues}, or a desk export", Run: runImportJSON})
	Register(&Command{Name: "import-pair-desk", Summary: "bring in a Pair Desk data folder: projects, issues, history, files, links", Run: runImportPairDesk})
}

func runImportPairDesk(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("import-pair-desk", c)
	asJSON := fs.Bool("json", false, "print the counts as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "import-pair-desk", 1, 1, "the Pair Desk data folder, e.g. desk import-pair-desk ~/.agent-pair-programming"); err != nil {
		return err
	}
	src := fs.Arg(0)
	if !filepath.IsAbs(src) {
		src = filepath.Join(c.Dir, src)
	}
	if _, err := os.Stat(filepath.Join(src, pairdesk.DBName)); err != nil {
		return desk.Errorf(desk.NotFound, "%s has no %s: not a Pair Desk data folder", src, pairdesk.DBName)
	}
	if abs, _ := filepath.Abs(src); abs == c.DataDir {
		return desk.Errorf(desk.Invalid, "the Pair Desk folder is the desk's own data folder; pass another --data")
	}
	db, err := openStore(ctx, c, true)
	if err != nil {
		return err
	}
	defer db.Close()
	res, err := pairdesk.Import(ctx, db, c.DataDir, src)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, res)
	}
	fmt.Fprintf(c.Stdout, "Imported %d project(s), %d issue(s), %d comment(s), %d attachment(s), %d activity entries, %d command(s), %d handoff version(s), %d link(s)\n",
		res.Projects, res.Issues, res.Comments, res.Attachments, res.Activity, res.Commands, res.Handoffs, res.Links)
	if len(res.Skipped) > 0 {
		fmt.Fprintf(c.Stdout, "Already in the desk, left alone: %s\n", strings.Join(res.Skipped, ", "))
	}
	if len(res.MissingFiles) > 0 {
		fmt.Fprintf(c.Stdout, "note: %d attachment file(s) were missing from the source and are left out\n", len(res.MissingFiles))
	}
	return nil
}

func runBackup(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("backup", c)
	out := fs.String("out", "", "the zip to write (default <data>/backups/desk-<time>.zip)")
	asJSON := fs.Bool("json", false, "print the manifest as JSON")
	teamDB := fs.String("db", "", "back up the team store of this database (postgres://...) instead of the local desk")
	teamObjectsURL := fs.String("objects", "", "with --db: the team store's object store (s3://...; default the S3_ variables)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "backup"); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(c.DataDir, "desk.sqlite")); err != nil && *teamDB == "" {
		return noDesk(c)
	}
	path := *out
	if path == "" {
		path = backup.DefaultPath(c.DataDir, time.Now())
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
	} else if !filepath.IsAbs(path) {
		path = filepath.Join(c.Dir, path)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return desk.Errorf(desk.Invalid, "--out %s: the folder %s does not exist", *out, filepath.Dir(path))
	}
	var m *backup.Manifest
	var err error
	if *teamDB != "" {
		m, err = backupTeam(ctx, c, *teamDB, *teamObjectsURL, path)
	} else {
		m, err = backup.Create(ctx, c.DataDir, path)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, map[string]any{"path": path, "manifest": m})
	}
	var size int64
	for _, f := range m.Files {
		size += f.Size
	}
	fmt.Fprintf(c.Stdout, "Backed up %d project(s), %d issue(s), %d comment(s), %d attachment file(s) to %s (%s)\n",
		m.Counts["projects"], m.Counts["issues"], m.Counts["comments"], len(m.Files)-countNonAttachments(m), path, sizeText(size))
	if len(m.Missing) > 0 {
		fmt.Fprintf(c.Stdout, "note: %d attachment file(s) were deleted while the backup ran and are not in it\n", len(m.Missing))
	}
	fmt.Fprintln(c.Stdout, "Keep a copy on another disk or machine.")
	return nil
}

func countNonAttachments(m *backup.Manifest) int {
	n := 0
	for _, f := range m.Files {
		if !strings.HasPrefix(f.Path, "attachments/") {
			n++
		}
	}
	return n
}

func runRestore(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("restore", c)
	replace := fs.Bool("replace", false, "move the desk in the data folder aside to <data>.before-restore-<time> and restore in its place")
	check := fs.Bool("check", false, "only check the backup; change nothing")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	teamDB := fs.String("db", "", "restore into the empty team store of this database (postgres://...) instead of the data folder")
	teamObjectsURL := fs.String("objects", "", "with --db: the team store's object store (s3://...; default the S3_ variables)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "restore", 1, 1, "the backup zip, e.g. desk restore desk-20260930-140200.zip"); err != nil {
		return err
	}
	zipPath := fs.Arg(0)
	if !filepath.IsAbs(zipPath) {
		zipPath = filepath.Join(c.Dir, zipPath)
	}
	if *teamDB != "" && !*check {
		res, rep, err := restoreTeam(ctx, c, *teamDB, *teamObjectsURL, zipPath)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(c.Stdout, map[string]any{"manifest": res.Manifest, "team": rep})
		}
		m := res.Manifest
		fmt.Fprintf(c.Stdout, "Restored %d project(s), %d issue(s), %d comment(s), %d attachment(s) into the team store %s, checked table by table\n",
			m.Counts["projects"], m.Counts["issues"], m.Counts["comments"], m.Counts["attachments"], postgres.Redact(*teamDB))
		return nil
	}
	res, err := backup.Restore(ctx, zipPath, c.DataDir, backup.RestoreOptions{Replace: *replace, CheckOnly: *check})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, res)
	}
	m := res.Manifest
	what := fmt.Sprintf("%d project(s), %d issue(s), %d comment(s), %d attachment(s); desk %s, schema %d, made %s",
		m.Counts["projects"], m.Counts["issues"], m.Counts["comments"], m.Counts["attachments"], m.DeskVersion, m.SchemaVersion, m.CreatedAt)
	if !res.Restored {
		fmt.Fprintf(c.Stdout, "The backup is sound: %s\n", what)
		return nil
	}
	fmt.Fprintf(c.Stdout, "Restored %s into %s\n", what, res.DataDir)
	if res.MovedAside != "" {
		fmt.Fprintf(c.Stdout, "The desk that was there is in %s\n", res.MovedAside)
	}
	if len(res.MissingLinks) > 0 {
		fmt.Fprintln(c.Stdout, "These linked folders do not exist on this machine; link them again with desk link --project SLUG --path FOLDER:")
		for _, p := range backup.SortedLinks(res.MissingLinks) {
			fmt.Fprintf(c.Stdout, "  %s -> %s\n", p, res.MissingLinks[p])
		}
	}
	return nil
}

func runExport(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("export", c)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	out := fs.String("out", "", "the file to write (default: standard output)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "export"); err != nil {
		return err
	}
	db, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer db.Close()
	slug, err := project(ctx, c, db, *proj, "export")
	if err != nil {
		return err
	}
	e, err := transfer.ExportProjectJSON(ctx, db, slug)
	if err != nil {
		return err
	}
	if *out == "" {
		return printJSON(c.Stdout, e)
	}
	path := *out
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.Dir, path)
	}
	b, err := json.MarshalIndent(e, "", "  ")
	if err != nil {
		return err
	}
	if err := link.WriteFileAtomic(path, append(b, '\n'), 0o600); err != nil {
		return desk.Errorf(desk.Invalid, "--out %s: %s", *out, plainIOError(err))
	}
	fmt.Fprintf(c.Stdout, "Exported %s (%d issue(s)) to %s\n", slug, len(e.Issues), path)
	return nil
}

func runImportJSON(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("import-json", c)
	proj := fs.String("project", "", "the project of issues that name none (default: the linked or only one)")
	by := fs.String("author", "", "who files them (default $DESK_AUTHOR, else agent)")
	asJSON := fs.Bool("json", false, "print the counts as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "import-json", 1, 1, "the JSON file, e.g. desk import-json checks.json (- for standard input)"); err != nil {
		return err
	}
	file := fs.Arg(0)
	data, err := readLocalFile(c, "import-json", file, 256<<20)
	if err != nil {
		return err
	}
	dirs := []string{c.Dir}
	if file != "-" {
		p := file
		if !filepath.IsAbs(p) {
			p = filepath.Join(c.Dir, p)
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	if !json.Valid(data) {
		return desk.Errorf(desk.Invalid, "%s is not valid JSON", file)
	}
	db, err := openStore(ctx, c, true)
	if err != nil {
		return err
	}
	defer db.Close()
	o := transfer.Options{Project: *proj, Author: author(c, *by), Dirs: dirs}
	if o.Project == "" {
		// The linked or only project, for items that name none when the
		// file does not either.
		if slug, err := project(ctx, c, db, "", "import-json"); err == nil {
			o.Fallback = slug
		}
	}
	res, err := transfer.ImportJSON(ctx, db, data, o)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, res)
	}
	fmt.Fprintln(c.Stdout, res.String())
	if len(res.ProjectsSkipped) > 0 {
		fmt.Fprintf(c.Stdout, "Projects already in the desk: %s\n", strings.Join(res.ProjectsSkipped, ", "))
	}
	if len(res.MissingFiles) > 0 {
		fmt.Fprintf(c.Stdout, "note: %d attachment file(s) were not on this machine and are left out\n", len(res.MissingFiles))
	}
	return nil
}
