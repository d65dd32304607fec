package backup

import (
	"archive/zip"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"desk"
	"desk/link"
	"desk/office"
	"desk/pair"
	"desk/serverfile"
	"desk/sqlite"
)

// RestoreOptions tune Restore.
type RestoreOptions struct {
	// Replace moves a desk already in the target folder aside to
	// <data>.before-restore-<time> (never deleting it) instead of refusing.
	Replace bool
	// CheckOnly verifies the backup and changes nothing.
	CheckOnly bool
	// Now is the time used in the moved-aside folder's name (default now).
	Now time.Time
}

// Result says what a restore found and did.
type Result struct {
	Manifest *Manifest `json:"manifest"`
	// Restored is false for a check.
	Restored bool   `json:"restored"`
	DataDir  string `json:"data_dir"` // "" for a check
	// MovedAside is where the desk that was there went.
	MovedAside string `json:"moved_aside"` // "" when the folder held no desk
	// MissingLinks are linked folders that do not exist on this machine.
	MissingLinks map[string]string `json:"missing_links"`
}

// Check verifies a backup without restoring it: the manifest, every file's
// size and checksum, the database's integrity, row counts and schema
// version. Every problem is an Invalid error that names it.
func Check(ctx context.Context, zipPath string) (*Manifest, error) {
	work, err := os.MkdirTemp("", "desk-check-*")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	return verify(ctx, zipPath, work)
}

// Restore restores the backup zipPath into dataDir after checking it
// (see Check). The target must be empty or missing, unless o.Replace; it
// is never changed while a server started with serve --detach runs there.
func Restore(ctx context.Context, zipPath, dataDir string, o RestoreOptions) (*Result, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	dataDir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	if o.CheckOnly {
		m, err := Check(ctx, zipPath)
		if err != nil {
			return nil, err
		}
		return &Result{Manifest: m, MissingLinks: missingLinks(nil)}, nil
	}
	occupied, err := hasContent(dataDir)
	if err != nil {
		return nil, err
	}
	if occupied {
		if !o.Replace {
			return nil, desk.Errorf(desk.Conflict, "%s already holds a desk", dataDir).WithHint(
				"restore into an empty folder with --data, or add --replace to move the current desk aside")
		}
		if pid, running, _ := serverfile.Detached(dataDir); running {
			return nil, desk.Errorf(desk.Conflict, "a desk started with serve --detach runs on %s (pid %d)", dataDir, pid).WithHint(
				"stop it with desk stop, close the agent sessions that use it, then restore")
		}
		if info, err := serverfile.Read(dataDir); err == nil {
			return nil, desk.Errorf(desk.Conflict, "a desk server runs on %s (pid %d at %s)", dataDir, info.PID, info.URL).WithHint(
				"stop it, close the agent sessions that use it, then restore")
		}
	}
	// The new desk is built beside the target, on the same file system, so
	// that putting it in place is a rename.
	parent := filepath.Dir(dataDir)
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return nil, err
	}
	stage, err := os.MkdirTemp(parent, "."+filepath.Base(dataDir)+".restore-*")
	if err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	done := false
	defer func() {
		if !done {
			os.RemoveAll(stage)
		}
	}()
	m, err := verify(ctx, zipPath, stage)
	if err != nil {
		return nil, err
	}
	// Opening it once brings an older schema up to date and rebuilds the
	// search index, so the first real open is quick.
	db, err := sqlite.Open(ctx, stage, sqlite.Options{NoCreate: true})
	if err != nil {
		return nil, fmt.Errorf("restore: open the restored desk: %w", err)
	}
	// The pairs' patches name their files by whole path: in the folder
	// the backup was taken from, and from now on in this one.
	if m.Source != "" {
		if err := db.MovePatchFiles(ctx, pair.PatchRootIn(m.Source), pair.PatchRootIn(dataDir)); err != nil {
			db.Close()
			return nil, fmt.Errorf("restore: move the patch files: %w", err)
		}
	}
	if err := db.Close(); err != nil {
		return nil, err
	}
	res := &Result{Manifest: m, Restored: true, DataDir: dataDir}
	if occupied {
		aside := dataDir + ".before-restore-" + o.Now.UTC().Format("20060102-150405")
		if _, err := os.Stat(aside); err == nil {
			return nil, desk.Errorf(desk.Conflict, "%s exists already; try again in a second", aside)
		}
		if err := os.Rename(dataDir, aside); err != nil {
			return nil, fmt.Errorf("restore: move the current desk aside: %w", err)
		}
		if err := os.Rename(stage, dataDir); err != nil {
			if back := os.Rename(aside, dataDir); back != nil {
				return nil, fmt.Errorf("restore: put the restored desk in place: %v; the old desk is in %s", err, aside)
			}
			return nil, fmt.Errorf("restore: put the restored desk in place: %w", err)
		}
		res.MovedAside = aside
	} else {
		// An empty folder is replaced by the restored one.
		if err := os.Remove(dataDir); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("restore: %w", err)
		}
		if err := os.Rename(stage, dataDir); err != nil {
			return nil, fmt.Errorf("restore: put the restored desk in place: %w", err)
		}
	}
	done = true
	links, _ := link.Read(dataDir)
	res.MissingLinks = missingLinks(links)
	return res, nil
}

// verify checks the zip and extracts it into dir.
func verify(ctx context.Context, zipPath, dir string) (*Manifest, error) {
	bad := func(format string, args ...any) error {
		return desk.Errorf(desk.Invalid, "%s: "+format, append([]any{zipPath}, args...)...).WithHint("this backup cannot be restored; use another copy")
	}
	zr, err := zip.OpenReader(zipPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, desk.Errorf(desk.NotFound, "%s: no such file", zipPath)
		}
		return nil, bad("not a readable zip (%v)", err)
	}
	defer zr.Close()
	entries := map[string]*zip.File{}
	for _, f := range zr.File {
		if !safeName(f.Name) {
			return nil, bad("unsafe file name %q in the zip", f.Name)
		}
		if entries[f.Name] != nil {
			return nil, bad("%s appears twice", f.Name)
		}
		entries[f.Name] = f
	}
	mf := entries[ManifestName]
	if mf == nil {
		return nil, bad("no %s: not a desk backup", ManifestName)
	}
	var m Manifest
	if err := readJSON(mf, &m); err != nil {
		return nil, bad("%s is not valid: %v", ManifestName, err)
	}
	switch {
	case m.Format > Format:
		return nil, desk.Errorf(desk.Invalid, "%s was made by a newer desk (backup format %d, this desk reads %d)", zipPath, m.Format, Format).WithHint("update desk, then restore")
	case m.Format < 1:
		return nil, bad("the manifest has no format")
	case m.SchemaVersion > sqlite.SchemaVersion:
		return nil, desk.Errorf(desk.Invalid, "%s was made by a newer desk (%s, schema %d; this desk knows %d)", zipPath, m.DeskVersion, m.SchemaVersion, sqlite.SchemaVersion).WithHint("update desk, then restore")
	}
	listed := map[string]bool{ManifestName: true}
	hasDB := false
	for _, f := range m.sortedFiles() {
		if !safeName(f.Path) {
			return nil, bad("the manifest names an unsafe path %q", f.Path)
		}
		if listed[f.Path] {
			return nil, bad("the manifest lists %s twice", f.Path)
		}
		listed[f.Path] = true
		hasDB = hasDB || f.Path == sqlite.FileName
		zf := entries[f.Path]
		if zf == nil {
			return nil, bad("%s is listed in the manifest but missing from the zip", f.Path)
		}
		if err := extract(ctx, zf, f, filepath.Join(dir, filepath.FromSlash(f.Path))); err != nil {
			return nil, bad("%s: %v", f.Path, err)
		}
	}
	if !hasDB {
		return nil, bad("the manifest lists no database")
	}
	for name := range entries {
		if !listed[name] {
			return nil, bad("%s is in the zip but not in the manifest", name)
		}
	}
	if err := checkDatabase(ctx, filepath.Join(dir, sqlite.FileName), &m); err != nil {
		return nil, bad("%v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, link.FileName)); err == nil {
		if _, err := link.Read(dir); err != nil {
			return nil, bad("%s is not valid: %v", link.FileName, err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, office.LayoutName)); err == nil {
		if _, err := office.NewStore(dir).Layout(ctx); err != nil {
			return nil, bad("%s", desk.ErrorMessage(err))
		}
	}
	return &m, nil
}

func readJSON(f *zip.File, v any) error {
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	d := json.NewDecoder(io.LimitReader(r, 64<<20))
	return d.Decode(v)
}

// extract writes one file, checking its size and checksum on the way.
func extract(ctx context.Context, zf *zip.File, want File, dst string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := zf.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return err
	}
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(r, want.Size+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("damaged (%v)", err)
	}
	if n != want.Size {
		return fmt.Errorf("%d bytes, the manifest says %d", n, want.Size)
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want.SHA256 {
		return fmt.Errorf("checksum %s does not match the manifest's %s", got[:12], shortSum(want.SHA256))
	}
	return nil
}

func shortSum(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// checkDatabase runs SQLite's integrity check on the extracted database and
// compares its schema version and row counts with the manifest.
func checkDatabase(ctx context.Context, path string, m *Manifest) error {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
	if err != nil {
		return err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `PRAGMA integrity_check`)
	if err != nil {
		return fmt.Errorf("the database cannot be read: %v", err)
	}
	var problems []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return err
		}
		if s != "ok" {
			problems = append(problems, s)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("the database cannot be read: %v", err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("the database is damaged: %s", strings.Join(problems[:min(3, len(problems))], "; "))
	}
	var v int
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&v); err != nil {
		return err
	}
	if v != m.SchemaVersion {
		return fmt.Errorf("the database has schema %d, the manifest says %d", v, m.SchemaVersion)
	}
	counts, err := countRows(ctx, db)
	if err != nil {
		return fmt.Errorf("the database is not a desk: %v", err)
	}
	for _, t := range Tables {
		if counts[t] != m.Counts[t] {
			return fmt.Errorf("%s has %d rows, the manifest says %d", t, counts[t], m.Counts[t])
		}
	}
	return nil
}

// hasContent reports whether dir exists and holds anything.
func hasContent(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return len(entries) > 0, nil
}

// missingLinks returns the links whose folders do not exist here.
func missingLinks(links map[string]string) map[string]string {
	out := map[string]string{}
	for p, slug := range links {
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			out[p] = slug
		}
	}
	return out
}

// SortedLinks returns a link map's folders in order, for printing.
func SortedLinks(links map[string]string) []string {
	out := make([]string, 0, len(links))
	for p := range links {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}
