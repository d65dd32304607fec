package notify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"desk"
)

// The live channel: Claude Code can load an MCP server as a channel, and
// then every notifications/claude/channel message the server sends reaches
// the session at once, even while it waits for the user. desk's MCP server
// pushes the owner's activity that way when the session was started with
// the channel loaded. While it does, it keeps a heartbeat file in the data
// folder, and the prompt hook of the same session stays quiet, so that
// nothing is told twice.

// ChannelsDir is the heartbeat folder's name in the data folder.
const ChannelsDir = "channels"

// Heartbeat timing: the server writes every HeartbeatEvery; a prompt hook
// trusts a heartbeat younger than HeartbeatFresh. A server that died
// without cleaning up stops silencing the hooks after HeartbeatFresh.
const (
	HeartbeatEvery = 10 * time.Second
	HeartbeatFresh = 30 * time.Second
)

// ChannelVar overrides channel detection: on, or off.
const ChannelVar = "DESK_CHANNEL"

// Heartbeat is the content of one heartbeat file.
type Heartbeat struct {
	Project   string `json:"project"`
	Session   string `json:"session,omitempty"` // the client's session id, when it passes one
	ClientPID int    `json:"client_pid"`
	ServerPID int    `json:"server_pid"`
	At        string `json:"heartbeat"`
}

// HeartbeatPath is the heartbeat file of the client process pid.
func HeartbeatPath(dir string, pid int) string {
	return filepath.Join(dir, ChannelsDir, strconv.Itoa(pid)+".json")
}

// WriteHeartbeat writes or refreshes hb's file in data folder dir.
func WriteHeartbeat(dir string, hb Heartbeat) error {
	if err := os.MkdirAll(filepath.Join(dir, ChannelsDir), 0o700); err != nil {
		return err
	}
	b, err := json.Marshal(hb)
	if err != nil {
		return err
	}
	return replaceFile(HeartbeatPath(dir, hb.ClientPID), b)
}

// RemoveHeartbeat removes the heartbeat file of client pid.
func RemoveHeartbeat(dir string, pid int) error {
	err := os.Remove(HeartbeatPath(dir, pid))
	if isNotExist(err) {
		return nil
	}
	return err
}

// PruneHeartbeats removes the heartbeat files that have not been refreshed
// for an hour: those of servers that were killed before they could clean
// up. It returns how many it removed.
func PruneHeartbeats(dir string, now time.Time) int {
	entries, err := os.ReadDir(filepath.Join(dir, ChannelsDir))
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		path := filepath.Join(dir, ChannelsDir, e.Name())
		var hb Heartbeat
		b, err := os.ReadFile(path)
		if err == nil && json.Unmarshal(b, &hb) == nil {
			if at, err := desk.ParseTime(hb.At); err == nil && now.Sub(at) < time.Hour {
				continue
			}
		} else if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) < time.Hour {
			continue // being written, or not ours to judge yet
		}
		if os.Remove(path) == nil {
			n++
		}
	}
	return n
}

// ChannelLive reports whether a live channel serves the session that runs
// this process: a fresh heartbeat for project that names the session id,
// or the pid of one of this process's ancestors. It costs one directory
// read when no channel runs anywhere, which is the common case.
func ChannelLive(dir, project, session string, now time.Time) bool {
	entries, err := os.ReadDir(filepath.Join(dir, ChannelsDir))
	if err != nil || len(entries) == 0 {
		return false
	}
	var ancestors map[int]bool
	for _, e := range entries {
		name := e.Name()
		pid, err := strconv.Atoi(strings.TrimSuffix(name, ".json"))
		if err != nil || !strings.HasSuffix(name, ".json") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, ChannelsDir, name))
		if err != nil {
			continue
		}
		var hb Heartbeat
		if json.Unmarshal(b, &hb) != nil || hb.Project != project {
			continue
		}
		at, err := desk.ParseTime(hb.At)
		if err != nil || now.Sub(at) > HeartbeatFresh {
			continue
		}
		if session != "" && hb.Session == session {
			return true
		}
		if ancestors == nil {
			ancestors = map[int]bool{}
			for _, p := range Ancestors(os.Getppid(), 8) {
				ancestors[p.PID] = true
			}
		}
		if ancestors[pid] {
			return true
		}
	}
	return false
}

// Process is one process of a chain of ancestors.
type Process struct {
	PID  int
	Args []string
}

// The flags with which Claude Code loads channels, and the names under
// which desk is loaded: as the desk plugin, or as an MCP server named desk.
var channelFlags = []string{"--channels", "--dangerously-load-development-channels"}

// DetectChannel decides whether this MCP server was loaded as a channel,
// and returns the pid of the client process that loaded it. DESK_CHANNEL
// (on or off, and their synonyms) overrides; otherwise the command lines
// of up to eight ancestors are searched for a channel flag naming desk.
func DetectChannel(getenv func(string) string) (on bool, clientPID int) {
	mode := strings.ToLower(strings.TrimSpace(getenv(ChannelVar)))
	switch mode {
	case "off", "0", "false", "no", "hooks":
		return false, 0
	}
	for _, p := range Ancestors(os.Getppid(), 8) {
		if NamesDeskChannel(p.Args) {
			return true, p.PID
		}
	}
	switch mode {
	case "on", "1", "true", "yes", "channel":
		return true, os.Getppid()
	}
	return false, 0
}

// NamesDeskChannel reports whether a command line loads desk as a channel:
// --channels or --dangerously-load-development-channels followed (after a
// space or '=') by a list that names plugin:desk@<marketplace> or
// server:desk.
func NamesDeskChannel(args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		var values []string
		for _, f := range channelFlags {
			switch {
			case a == f:
				for j := i + 1; j < len(args) && !strings.HasPrefix(args[j], "-"); j++ {
					values = append(values, args[j])
				}
			case strings.HasPrefix(a, f+"="):
				values = append(values, strings.TrimPrefix(a, f+"="))
			}
		}
		for _, v := range values {
			for _, entry := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == ' ' }) {
				if channelEntryIsDesk(entry) {
					return true
				}
			}
		}
	}
	return false
}

func channelEntryIsDesk(entry string) bool {
	kind, name, ok := strings.Cut(strings.TrimSpace(entry), ":")
	if !ok {
		return false
	}
	name, _, _ = strings.Cut(name, "@")
	return (kind == "plugin" || kind == "server") && name == "desk"
}
