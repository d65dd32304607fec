// Package member finds the team server a member's machine works with: the
// CLI, the hooks and the MCP server of a folder linked to a team project
// talk to that server over HTTP, with the token desk login kept, instead
// of opening the local data folder.
//
// A folder is linked to a team project by its marker file naming the
// server beside the project ({"project": "mygame", "server":
// "https://desk.example.com"} in .desk.json); DESK_SERVER names one for
// every folder (CI, a container). The token is DESK_TOKEN, else the one
// desk login SERVER kept for that server.
package member

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"desk"
	"desk/credential"
	"desk/link"
)

// Target is the team server a surface talks to, and as whom.
type Target struct {
	Server  string // its URL, normalized
	Token   string
	Project string // the folder's project, "" when the folder names none
}

// Resolve returns the team server of folder dir, or nil when the folder
// works with the local desk. A folder linked to a server the member never
// logged in to is an error that says to run desk login.
func Resolve(getenv func(string) string, dataDir, dir string) (*Target, error) {
	server := strings.TrimSpace(getenv("DESK_SERVER"))
	project := ""
	found, err := link.Resolve(dataDir, dir)
	switch {
	case err == nil:
		project = found.Project
		if server == "" && found.Marker {
			server = markerServer(found.Path)
		}
	case !errors.Is(err, link.ErrNotLinked):
		if server == "" {
			return nil, nil // an unreadable link is the local path's to report
		}
	}
	if server == "" {
		return nil, nil
	}
	server, err = credential.NormalizeServer(server)
	if err != nil {
		return nil, err
	}
	token := strings.TrimSpace(getenv("DESK_TOKEN"))
	if token == "" {
		store, err := credential.OpenDefault(getenv)
		if err != nil {
			return nil, err
		}
		c, err := store.Get(server)
		if desk.ErrorCode(err) == desk.NotFound {
			return nil, desk.Errorf(desk.Forbidden, "this folder works with the team server %s, and this machine holds no token of it", server).
				WithHint("run desk login " + server + " (or set DESK_TOKEN)")
		}
		if err != nil {
			return nil, err
		}
		token = c.Token
	}
	return &Target{Server: server, Token: token, Project: project}, nil
}

// markerServer reads the "server" of a marker file; "" when it has none.
func markerServer(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var m struct {
		Server string `json:"server"`
	}
	if json.Unmarshal(b, &m) != nil {
		return ""
	}
	return strings.TrimSpace(m.Server)
}

// MarkerName is the marker file LinkFolder writes.
const MarkerName = ".desk.json"

// LinkFolder links folder dir to project on server: its marker file names
// both (other keys of a marker already there stay). It returns the
// marker's path.
func LinkFolder(dir, project, server string) (string, error) {
	server, err := credential.NormalizeServer(server)
	if err != nil {
		return "", err
	}
	path := filepath.Join(dir, MarkerName)
	m := map[string]any{}
	if b, err := os.ReadFile(path); err == nil {
		if err := json.Unmarshal(b, &m); err != nil {
			return "", desk.Errorf(desk.Invalid, "%s is not JSON (%v): fix or remove it first", path, err)
		}
	} else if !errors.Is(err, os.ErrNotExist) {
		return "", err
	}
	m["project"], m["server"] = project, server
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return "", err
	}
	return path, os.WriteFile(path, append(b, '\n'), 0o644)
}
