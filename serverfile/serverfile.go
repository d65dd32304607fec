// Package serverfile records a running desk server in its data folder, so
// that other processes find it without being told: hooks and MCP servers
// read server.json for the server's address, and stop and restore read
// server.pid for the server started with serve --detach.
//
// server.json never holds a secret: the page token stays in the server's
// memory and in the page it serves.
package serverfile

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"desk/link"
)

// File names in the data folder.
const (
	InfoName = "server.json" // written by every running server
	PIDName  = "server.pid"  // written for a server started with --detach
	LogName  = "server.log"  // the detached server's output
)

// Info says where a running server listens.
type Info struct {
	PID       int    `json:"pid"`
	URL       string `json:"url"`
	Port      int    `json:"port"`
	StartedAt string `json:"started_at"`
}

// Write records info in dir's server.json, replacing it atomically.
func Write(dir string, info Info) error {
	b, err := json.MarshalIndent(info, "", "  ")
	if err != nil {
		return err
	}
	return link.WriteFileAtomic(filepath.Join(dir, InfoName), append(b, '\n'), 0o600)
}

// Read returns the server recorded in dir, or an error wrapping
// os.ErrNotExist when there is none. A record whose process is gone (a
// server that was killed) counts as none.
func Read(dir string) (*Info, error) {
	b, err := os.ReadFile(filepath.Join(dir, InfoName))
	if err != nil {
		return nil, err
	}
	var info Info
	if err := json.Unmarshal(b, &info); err != nil || info.PID <= 0 {
		return nil, fmt.Errorf("%s: not a server record", filepath.Join(dir, InfoName))
	}
	if !Alive(info.PID) {
		return nil, fmt.Errorf("%s: server %d is gone: %w", filepath.Join(dir, InfoName), info.PID, os.ErrNotExist)
	}
	return &info, nil
}

// Remove deletes dir's server.json if it still records process pid, so
// that a server that stops never removes the record of a newer one.
func Remove(dir string, pid int) {
	b, err := os.ReadFile(filepath.Join(dir, InfoName))
	if err != nil {
		return
	}
	var info Info
	if json.Unmarshal(b, &info) == nil && info.PID == pid {
		os.Remove(filepath.Join(dir, InfoName))
	}
}

// WritePID records the detached server's process id.
func WritePID(dir string, pid int) error {
	return link.WriteFileAtomic(filepath.Join(dir, PIDName), []byte(strconv.Itoa(pid)+"\n"), 0o600)
}

// Detached returns the process id of the server started in dir with
// --detach, and whether it still runs. A pid file whose process is gone
// gives its pid and false.
func Detached(dir string) (pid int, running bool, err error) {
	b, err := os.ReadFile(filepath.Join(dir, PIDName))
	if errors.Is(err, os.ErrNotExist) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	pid, err = strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || pid <= 0 {
		return 0, false, fmt.Errorf("%s does not hold a process id", filepath.Join(dir, PIDName))
	}
	return pid, Alive(pid), nil
}

// RemovePID deletes the pid file if it names pid.
func RemovePID(dir string, pid int) {
	if p, _, err := Detached(dir); err == nil && p == pid {
		os.Remove(filepath.Join(dir, PIDName))
	}
}
