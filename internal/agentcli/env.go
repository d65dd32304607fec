package agentcli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"desk/internal/reap"
)

// MCPServer is a stdio MCP server entry, as every CLI's config knows it.
type MCPServer struct {
	// Command is the executable, e.g. the desk binary built by the test.
	Command string
	// Args are its arguments, e.g. []string{"mcp"}.
	Args []string
	// Env is set for the server process. Codex starts MCP servers without
	// the user's environment, so anything the server needs goes here.
	Env map[string]string
}

// Hook is one hook handler, in the schema Claude Code and Codex share.
type Hook struct {
	// Matcher selects tools for tool events; empty matches everything.
	Matcher string
	// Type is "command" (the default) or "http" (Claude Code only).
	Type string
	// Command is the shell command of a command hook.
	Command string
	// URL and Headers describe an http hook.
	URL     string
	Headers map[string]string
	// Timeout in seconds; zero leaves the CLI's default.
	Timeout int
}

// handler is the inner {"type":…} object of a hook entry.
func (h Hook) handler() map[string]any {
	m := map[string]any{}
	switch h.Type {
	case "", "command":
		m["type"] = "command"
		m["command"] = h.Command
	default:
		m["type"] = h.Type
		if h.URL != "" {
			m["url"] = h.URL
		}
		if len(h.Headers) > 0 {
			m["headers"] = h.Headers
		}
		if h.Command != "" {
			m["command"] = h.Command
		}
	}
	if h.Timeout > 0 {
		m["timeout"] = h.Timeout
	}
	return m
}

// entry is the {"matcher":…, "hooks":[…]} object an event lists.
func (h Hook) entry() map[string]any {
	return map[string]any{"matcher": h.Matcher, "hooks": []map[string]any{h.handler()}}
}

// Sandbox is the isolated world one CLI run lives in: a fresh HOME with its
// own XDG folders, and a project folder to run in. Nothing of the real user's
// configuration or credentials reaches the CLI.
type Sandbox struct {
	// Root holds everything below; it is a test temp dir.
	Root string
	// Home is HOME for the CLI and for every process it starts.
	Home string
	// Dir is the project folder the CLI runs in.
	Dir string
	// Env holds extra environment variables, applied last, so a test can
	// add DESK_DATA or override anything the harness sets.
	Env map[string]string
	// Timeout bounds each run; zero means DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout bounds a CLI run when Sandbox.Timeout is zero. A turn
// against the mock takes a few seconds; the margin is for loaded machines.
const DefaultTimeout = 90 * time.Second

func newSandbox(t testing.TB) Sandbox {
	t.Helper()
	// Claude Code keys its per-project state by the resolved path, so the
	// sandbox must not hide behind a symlink.
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatalf("agentcli: %v", err)
	}
	// Whatever the CLIs start and leave running (Codex's app-server
	// daemon) goes with the test.
	reap.Under(t, root)
	s := Sandbox{Root: root, Home: filepath.Join(root, "home"), Dir: filepath.Join(root, "project"), Env: map[string]string{}}
	for _, d := range []string{s.Home, s.Dir, s.XDG("XDG_CONFIG_HOME"), s.XDG("XDG_DATA_HOME"), s.XDG("XDG_CACHE_HOME"), s.XDG("XDG_STATE_HOME")} {
		mustMkdir(t, d)
	}
	return s
}

// XDG returns the folder the sandbox sets for an XDG base-directory
// variable ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME" or
// "XDG_STATE_HOME"), or "" for any other name.
func (s Sandbox) XDG(name string) string {
	switch name {
	case "XDG_CONFIG_HOME":
		return filepath.Join(s.Home, ".config")
	case "XDG_DATA_HOME":
		return filepath.Join(s.Home, ".local", "share")
	case "XDG_CACHE_HOME":
		return filepath.Join(s.Home, ".cache")
	case "XDG_STATE_HOME":
		return filepath.Join(s.Home, ".local", "state")
	}
	return ""
}

// environ builds the environment from scratch, taking only PATH from the
// host, so that neither credentials nor the markers of an enclosing agent
// session (CLAUDECODE and friends) leak in.
func (s Sandbox) environ(cliVars map[string]string) []string {
	env := map[string]string{
		"PATH":            os.Getenv("PATH"),
		"HOME":            s.Home,
		"USER":            "desk-test",
		"LOGNAME":         "desk-test",
		"SHELL":           "/bin/bash",
		"LANG":            "C.UTF-8",
		"TERM":            "xterm-256color",
		"TZ":              "UTC",
		"XDG_CONFIG_HOME": s.XDG("XDG_CONFIG_HOME"),
		"XDG_DATA_HOME":   s.XDG("XDG_DATA_HOME"),
		"XDG_CACHE_HOME":  s.XDG("XDG_CACHE_HOME"),
		"XDG_STATE_HOME":  s.XDG("XDG_STATE_HOME"),
	}
	maps.Copy(env, cliVars)
	maps.Copy(env, s.Env)
	out := make([]string, 0, len(env))
	for _, k := range slices.Sorted(maps.Keys(env)) {
		out = append(out, k+"="+env[k])
	}
	return out
}

func (s Sandbox) timeout() time.Duration {
	if s.Timeout > 0 {
		return s.Timeout
	}
	return DefaultTimeout
}

func mustMkdir(t testing.TB, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("agentcli: %v", err)
	}
}

// writeJSONFile writes v as indented JSON, failing the test on error.
func writeJSONFile(t testing.TB, path string, v any) {
	t.Helper()
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatalf("agentcli: encode %s: %v", path, err)
	}
	mustMkdir(t, filepath.Dir(path))
	if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
		t.Fatalf("agentcli: %v", err)
	}
}
