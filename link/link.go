// Package link ties folders on this machine to desk projects, so that an
// agent working in a repo finds its project without being told. A repo is
// linked by a marker file at its root ({"project": "mygame"} in .desk.json,
// or Pair Desk's .pair-desk.json) or by an entry in the data folder's
// projects.json. Subfolders of a linked folder match; the marker wins.
package link

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"desk"
)

// MarkerNames are the marker files looked for, in order.
var MarkerNames = []string{".desk.json", ".pair-desk.json"}

// FileName is the links file in the data folder.
const FileName = "projects.json"

// Found says which project a folder belongs to and why.
type Found struct {
	Project string // the project's slug
	Path    string // the marker file, or the linked folder
	Marker  bool   // found by a marker file in the repo
}

// ErrNotLinked is returned when no marker or link covers the folder.
var ErrNotLinked = errors.New("folder is not linked to a project")

// Resolve finds the project of folder dir: the nearest marker file in dir
// or a parent, else the longest linked path in dataDir's projects.json that
// contains dir. It reads only; it never creates the data folder.
func Resolve(dataDir, dir string) (Found, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return Found{}, err
	}
	for d := dir; ; {
		for _, name := range MarkerNames {
			p := filepath.Join(d, name)
			if slug, err := readMarker(p); err == nil {
				return Found{Project: slug, Path: p, Marker: true}, nil
			} else if !errors.Is(err, os.ErrNotExist) {
				return Found{}, err
			}
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	links, err := Read(dataDir)
	if err != nil {
		return Found{}, err
	}
	best := ""
	for path := range links {
		if contains(path, dir) && len(path) > len(best) {
			best = path
		}
	}
	if best == "" {
		return Found{}, ErrNotLinked
	}
	return Found{Project: links[best], Path: best}, nil
}

func readMarker(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var m struct {
		Project string `json:"project"`
	}
	if err := json.Unmarshal(b, &m); err != nil || strings.TrimSpace(m.Project) == "" {
		return "", fmt.Errorf("%s: expected {\"project\": \"<slug>\"}", path)
	}
	return strings.TrimSpace(m.Project), nil
}

// contains reports whether folder dir is root or inside it.
func contains(root, dir string) bool {
	if samePath(root, dir) {
		return true
	}
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel)
}

func samePath(a, b string) bool {
	if filepath.Separator == '\\' {
		return strings.EqualFold(filepath.Clean(a), filepath.Clean(b))
	}
	return filepath.Clean(a) == filepath.Clean(b)
}

// Read returns the links of dataDir's projects.json: folder → slug. A
// missing file means no links.
func Read(dataDir string) (map[string]string, error) {
	b, err := os.ReadFile(filepath.Join(dataDir, FileName))
	if errors.Is(err, os.ErrNotExist) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	links := map[string]string{}
	if err := json.Unmarshal(b, &links); err != nil {
		return nil, desk.Errorf(desk.Invalid, "%s is not a JSON object of folder to project: %v", filepath.Join(dataDir, FileName), err)
	}
	return links, nil
}

// Write links folder dir to project slug in dataDir's projects.json, replacing
// an earlier link of the same folder. The file is replaced atomically.
func Write(dataDir, dir, slug string) error {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	links, err := Read(dataDir)
	if err != nil {
		return err
	}
	for p := range links {
		if samePath(p, dir) {
			delete(links, p)
		}
	}
	links[dir] = slug
	return save(dataDir, links)
}

// Remove drops the link of folder dir; it reports whether there was one.
func Remove(dataDir, dir string) (bool, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return false, err
	}
	links, err := Read(dataDir)
	if err != nil {
		return false, err
	}
	found := false
	for p := range links {
		if samePath(p, dir) {
			delete(links, p)
			found = true
		}
	}
	if !found {
		return false, nil
	}
	return true, save(dataDir, links)
}

func save(dataDir string, links map[string]string) error {
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return err
	}
	keys := make([]string, 0, len(links))
	for k := range links {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString("{\n")
	for i, k := range keys {
		kb, _ := json.Marshal(k)
		vb, _ := json.Marshal(links[k])
		fmt.Fprintf(&b, "  %s: %s", kb, vb)
		if i < len(keys)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	return WriteFileAtomic(filepath.Join(dataDir, FileName), []byte(b.String()), 0o600)
}

// WriteFileAtomic writes a file through a temp file in the same folder and
// a rename, so that readers see the old file or the new one, never half.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		os.Remove(tmp)
		return err
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Chmod(tmp, perm); err != nil {
		os.Remove(tmp)
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return err
	}
	return nil
}
