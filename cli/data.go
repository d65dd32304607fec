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
)

func init() {
	Register(&Command{Name: "backup", Summary: "write the whole desk to one zip, while it runs", Run: runBackup})
	Register(&Command{Name: "restore", Summary: "restore a backup zip (--check only checks it)", Run: runRestore})
}

func runBackup(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("backup", c)
	out := fs.String("out", "", "the zip to write (default <data>/backups/desk-<time>.zip)")
	asJSON := fs.Bool("json", false, "print the manifest as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "backup"); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(c.DataDir, "desk.sqlite")); err != nil {
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
	m, err := backup.Create(ctx, c.DataDir, path)
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
