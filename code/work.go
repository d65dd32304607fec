package code

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// WorkDir is the folder of a work folder that holds its state: work.json,
// the object cache and the scan index. Nothing in it is ever sent.
const WorkDir = ".desk-work"

// WorkFile is a work folder's work.json: where its code comes from and
// what it stands on.
type WorkFile struct {
	Server      string `json:"server"`           // the desk server's URL
	Repo        string `json:"repo"`             // owner/name
	Workspace   string `json:"workspace"`        // the folder's id, sent with each change
	TokenEnv    string `json:"token_env"`        // the variable that holds the token
	TokenSecret string `json:"token_secret"`     // its name in the secret store, if any
	Base        *ID    `json:"base"`             // the change the folder was checked out or synced at
	Last        *ID    `json:"last"`             // the newest change made in the folder
	Author      string `json:"author,omitempty"` // the name the token stood for at the last change (whoami), kept to save a request
}

// FindWork returns the work.json of the work folder that holds dir (dir
// or a folder above it) and that folder; nil when dir is in none.
func FindWork(dir string) (*WorkFile, string, error) {
	for d := filepath.Clean(dir); ; {
		b, err := os.ReadFile(filepath.Join(d, WorkDir, "work.json"))
		if err == nil {
			var w WorkFile
			if err := json.Unmarshal(b, &w); err != nil {
				return nil, d, err
			}
			return &w, d, nil
		}
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrPermission) {
			return nil, d, err
		}
		up := filepath.Dir(d)
		if up == d {
			return nil, "", nil
		}
		d = up
	}
}
