// Package backup writes a whole desk to one zip file while it keeps
// running, and restores such a file into a data folder.
//
// A backup holds a consistent copy of the database (taken with VACUUM INTO
// inside one read transaction, so writers are never blocked and never
// half-seen), every attachment the database names, the repo links
// (projects.json), the office's layout and seat choices (office.json,
// office-seats.json), the pairs' patch files (pairs/<id>/patches) and a
// manifest with the row counts, the schema version and the size and
// SHA-256 of every file. The search index is left out: it
// only copies other tables, and the first open of the restored desk
// rebuilds it.
//
// A restore checks everything before it changes anything: the manifest,
// every file's checksum, the database's integrity and its row counts, and
// that the backup does not come from a newer desk. It then builds the new
// desk in a folder beside the target and moves it into place with renames,
// so a restore that fails at any point leaves the old desk as it was.
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
	"io/fs"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"desk"
	"desk/link"
	"desk/office"
	"desk/pair"
	"desk/sqlite"
)

// Format is the version of the zip's layout; a restore refuses a newer one.
const Format = 1

// ManifestName is the manifest's name inside the zip.
const ManifestName = "manifest.json"

// Tables are the tables a backup counts, in the order the manifest lists
// them.
var Tables = []string{"projects", "issues", "comments", "attachments", "activity", "commands", "handoffs", "changes"}

// Manifest describes a backup.
type Manifest struct {
	Format        int              `json:"format"`
	DeskVersion   string           `json:"desk_version"`
	SchemaVersion int              `json:"schema_version"`
	CreatedAt     string           `json:"created_at"`
	Source        string           `json:"source"` // the data folder it was taken from
	Counts        map[string]int64 `json:"counts"` // rows per table
	Files         []File           `json:"files"`  // every file in the zip but the manifest
	// Missing lists attachments the database named but the folder no
	// longer had when the backup was taken (deleted meanwhile).
	Missing []string `json:"missing"`
}

// File is one file of a backup.
type File struct {
	Path   string `json:"path"` // slash separated, relative to the data folder
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// DefaultPath is where a backup goes when no --out is given:
// <data>/backups/desk-<time>.zip.
func DefaultPath(dataDir string, now time.Time) string {
	return filepath.Join(dataDir, "backups", "desk-"+now.UTC().Format("20060102-150405")+".zip")
}

// Create writes a backup of the desk in dataDir to the file out (replaced
// atomically: a failed backup leaves no half file) and returns its
// manifest. The desk may be in use meanwhile.
func Create(ctx context.Context, dataDir, out string) (*Manifest, error) {
	dataDir, err := filepath.Abs(dataDir)
	if err != nil {
		return nil, err
	}
	dbPath := filepath.Join(dataDir, sqlite.FileName)
	if _, err := os.Stat(dbPath); err != nil {
		return nil, desk.Errorf(desk.NotFound, "no desk in %s", dataDir)
	}
	work, err := os.MkdirTemp(filepath.Dir(out), ".desk-backup-*")
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	defer os.RemoveAll(work)

	// The copy: one read transaction sees one committed state, so the
	// database and the list of attachments it names agree.
	copyPath := filepath.Join(work, sqlite.FileName)
	if err := snapshot(ctx, dbPath, copyPath); err != nil {
		return nil, err
	}
	m := &Manifest{Format: Format, DeskVersion: desk.Version, CreatedAt: desk.FormatTime(time.Now()), Source: dataDir, Missing: []string{}}
	stored, err := prepareCopy(ctx, copyPath, m)
	if err != nil {
		return nil, err
	}

	tmp, err := os.CreateTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	defer func() {
		tmp.Close()
		os.Remove(tmp.Name())
	}()
	zw := zip.NewWriter(tmp)
	add := func(name, src string, method uint16) error {
		f, err := os.Open(src)
		if err != nil {
			return err
		}
		defer f.Close()
		w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: method, Modified: time.Now()})
		if err != nil {
			return err
		}
		h := sha256.New()
		n, err := io.Copy(io.MultiWriter(w, h), f)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, File{Path: name, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))})
		return nil
	}
	if err := add(sqlite.FileName, copyPath, zip.Deflate); err != nil {
		return nil, fmt.Errorf("backup: add the database: %w", err)
	}
	// The links, and the office's layout and seat choices.
	for _, name := range []string{link.FileName, office.LayoutName, office.SeatsName} {
		if _, err := os.Stat(filepath.Join(dataDir, name)); err == nil {
			if err := add(name, filepath.Join(dataDir, name), zip.Deflate); err != nil {
				return nil, fmt.Errorf("backup: add %s: %w", name, err)
			}
		}
	}
	// The pairs' patch files: the records name them, the critics' diffs
	// are in them. One released meanwhile is gone from the records too.
	patches, err := patchFiles(dataDir)
	if err != nil {
		return nil, fmt.Errorf("backup: list the patch files: %w", err)
	}
	for _, rel := range patches {
		err := add(rel, filepath.Join(dataDir, filepath.FromSlash(rel)), zip.Deflate)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("backup: add %s: %w", rel, err)
		}
	}
	for _, rel := range stored {
		// Screenshots are compressed already; storing them is faster and
		// the zip is about as large as the attachments folder.
		err := add(rel, filepath.Join(dataDir, filepath.FromSlash(rel)), zip.Store)
		if errors.Is(err, os.ErrNotExist) {
			m.Missing = append(m.Missing, rel)
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("backup: add %s: %w", rel, err)
		}
	}
	// The code's objects: every row of the copy was written after its
	// object, so the objects there now hold all the copy names (and any
	// newer one is only unused).
	if err := addCode(dataDir, add); err != nil {
		return nil, fmt.Errorf("backup: add the code's objects: %w", err)
	}
	w, err := zw.Create(ManifestName)
	if err != nil {
		return nil, err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(m); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return nil, fmt.Errorf("backup: %w", err)
	}
	return m, nil
}

// codeFolder is where the data folder keeps the code's objects (see
// package code/folderstore).
const codeFolder = "code"

// addCode adds every object file under the code folder, stored as it is:
// objects are compressed where it pays already, or small.
func addCode(dataDir string, add func(name, src string, method uint16) error) error {
	root := filepath.Join(dataDir, codeFolder)
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") {
			return nil
		}
		rel, err := filepath.Rel(dataDir, p)
		if err != nil {
			return err
		}
		return add(filepath.ToSlash(rel), p, zip.Store)
	})
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}

// patchFiles returns the pairs' patch files under dataDir, relative to it
// and slash separated.
func patchFiles(dataDir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(pair.PatchRootIn(dataDir), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(dataDir, p)
		if err == nil && safeName(filepath.ToSlash(rel)) {
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	return out, err
}

// snapshot copies the database at src to dst with VACUUM INTO, which reads
// one snapshot and never blocks the desk's writers.
func snapshot(ctx context.Context, src, dst string) error {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: src}).EscapedPath()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, `VACUUM INTO ?`, dst); err != nil {
		return fmt.Errorf("backup: copy the database: %w", err)
	}
	return nil
}

// prepareCopy drops the search index from the copy, fills the manifest's
// counts and schema version, and returns the attachment paths it names.
func prepareCopy(ctx context.Context, path string, m *Manifest) ([]string, error) {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath())
	if err != nil {
		return nil, err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if _, err := db.ExecContext(ctx, sqlite.DropSearchIndexSQL()); err != nil {
		return nil, fmt.Errorf("backup: drop the search index from the copy: %w", err)
	}
	if _, err := db.ExecContext(ctx, `VACUUM`); err != nil {
		return nil, fmt.Errorf("backup: compact the copy: %w", err)
	}
	if err := db.QueryRowContext(ctx, `PRAGMA user_version`).Scan(&m.SchemaVersion); err != nil {
		return nil, err
	}
	if m.Counts, err = countRows(ctx, db); err != nil {
		return nil, err
	}
	rows, err := db.QueryContext(ctx, `SELECT DISTINCT stored_path FROM attachments ORDER BY stored_path`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var p string
		if err := rows.Scan(&p); err != nil {
			return nil, err
		}
		if safeName(p) {
			out = append(out, p)
		}
	}
	return out, rows.Err()
}

func countRows(ctx context.Context, db *sql.DB) (map[string]int64, error) {
	counts := map[string]int64{}
	for _, t := range Tables {
		var n int64
		if err := db.QueryRowContext(ctx, `SELECT count(*) FROM `+t).Scan(&n); err != nil {
			return nil, fmt.Errorf("count %s: %w", t, err)
		}
		counts[t] = n
	}
	return counts, nil
}

// safeName reports whether a name from a zip or a database is a plain
// relative path that stays inside the folder it is joined to.
func safeName(name string) bool {
	if name == "" || strings.Contains(name, "\\") || path.IsAbs(name) || filepath.IsAbs(name) || strings.Contains(name, ":") {
		return false
	}
	clean := path.Clean(name)
	return clean == name && clean != "." && clean != ".." && !strings.HasPrefix(clean, "../")
}

// sortedFiles returns the manifest's files by path.
func (m *Manifest) sortedFiles() []File {
	fs := append([]File(nil), m.Files...)
	sort.Slice(fs, func(i, j int) bool { return fs[i].Path < fs[j].Path })
	return fs
}
