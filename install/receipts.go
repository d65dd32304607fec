package install

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
)

// receipts is desk's record of what it installed, kept in its app folder.
// The configuration files themselves stay the authority (desk finds its
// entries by their markers); the record adds what markers cannot say: which
// folders, files and empty containers desk created, so that uninstall can
// remove those too and leave the configuration exactly as it found it.
type receipts struct {
	Tools map[string]*receipt `json:"tools"`
	// Dirs are the folders desk created to hold this record.
	Dirs []string `json:"dirs,omitempty"`
	// Leftover are folders desk created for a tool it has since removed
	// that still held something another tool uses (shared skills); they
	// go once they are empty.
	Leftover []string `json:"leftover,omitempty"`
}

// receipt is what desk installed for one tool.
type receipt struct {
	Desk        string `json:"desk"`
	Data        string `json:"data"`
	InstalledAt string `json:"installed_at"`
	// CreatedFiles are configuration files that did not exist before desk
	// wrote to them; uninstall removes them once only desk's part is left.
	CreatedFiles []string `json:"created_files,omitempty"`
	// CreatedDirs are folders desk had to create; uninstall removes the
	// empty ones.
	CreatedDirs []string `json:"created_dirs,omitempty"`
	// CreatedKeys maps a JSON file to the objects and arrays desk added to
	// hold its entries; uninstall removes them when they are empty again.
	CreatedKeys map[string][][]string `json:"created_keys,omitempty"`
	// ClaudeSettings is the state of Claude Code's settings.json before
	// desk first ran the claude plugin commands.
	ClaudeSettings *claudeSettingsState `json:"claude_settings,omitempty"`
}

func (r *receipt) createdFile(path string) bool { return slices.Contains(r.CreatedFiles, path) }

func (r *receipt) addFile(path string) {
	if !r.createdFile(path) {
		r.CreatedFiles = append(r.CreatedFiles, path)
	}
}

func (r *receipt) addDirs(dirs ...string) {
	for _, d := range dirs {
		if !slices.Contains(r.CreatedDirs, d) {
			r.CreatedDirs = append(r.CreatedDirs, d)
		}
	}
}

func (r *receipt) addKeys(path string, keys [][]string) {
	if len(keys) == 0 {
		return
	}
	if r.CreatedKeys == nil {
		r.CreatedKeys = map[string][][]string{}
	}
	for _, k := range keys {
		if !slices.ContainsFunc(r.CreatedKeys[path], func(x []string) bool { return slices.Equal(x, k) }) {
			r.CreatedKeys[path] = append(r.CreatedKeys[path], k)
		}
	}
}

func receiptsPath(e *Env) string { return filepath.Join(e.appDir(), "installed.json") }

// loadReceipts reads the record; a missing one is empty, a damaged one is
// an error that names the file (desk will not guess what it installed).
func loadReceipts(e *Env) (*receipts, error) {
	r := &receipts{Tools: map[string]*receipt{}}
	b, exists, err := readMaybe(receiptsPath(e))
	if err != nil || !exists {
		return r, err
	}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("%s: %v; move it away and run desk again", receiptsPath(e), err)
	}
	if r.Tools == nil {
		r.Tools = map[string]*receipt{}
	}
	return r, nil
}

// installed lists the tools with a receipt, sorted.
func (r *receipts) installed() []string {
	var names []string
	for n := range r.Tools {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// save writes the record through the safe writer; an empty record removes
// the file.
func (r *receipts) save(e *Env, w *writer) error {
	path := receiptsPath(e)
	w.createdDirs = nil
	if _, ok, _ := readMaybe(path); !ok {
		// The folders this save creates must be in the record it writes.
		for d := filepath.Dir(path); ; d = filepath.Dir(d) {
			if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
				break
			}
			if !slices.Contains(r.Dirs, d) {
				r.Dirs = append(r.Dirs, d)
			}
		}
	}
	_, err := w.commit(path, 0o600, false, func(old []byte, exists bool) ([]byte, bool, error) {
		if len(r.Tools) == 0 && len(r.Leftover) == 0 {
			return nil, false, nil
		}
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return nil, false, err
		}
		return append(b, '\n'), true, nil
	})
	if err == nil && len(r.Tools) == 0 && len(r.Leftover) == 0 {
		removeEmptyDirs(append(append(r.Leftover, r.Dirs...), filepath.Dir(path)))
	}
	return err
}
