// Package pairterm gives the pairing rules their members' terminals: it
// implements pair.Terminals over desk's managed sessions (package
// session), so that a pointer to a letter is typed into a peer's agent,
// its permission prompt is read and answered, and an agent whose process
// died is started again with its resume id.
//
// A pair's agent is started with the pair's place in its environment
// (DESK_PAIR, DESK_PAIR_ROLE) and with desk's MCP server handed to that
// launch alone, in the form its CLI takes (a flag for Claude Code and
// Codex, a config file for opencode); the user's own settings are never
// written.
package pairterm

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"desk"
	"desk/pair"
	"desk/session"
)

// Terminals is pair.Terminals over a session manager.
type Terminals struct {
	M *session.Manager
	// Pairs finds the pair and role a session runs in, so that a restart
	// hands the agent the same place again; nil restarts it without.
	Pairs *pair.Service
	// DeskBin is the desk binary the agents' MCP server runs; empty means
	// this program.
	DeskBin string
}

var _ pair.Terminals = (*Terminals)(nil)

// Bracketed paste: a shell or an agent's composer takes what is between
// the marks as typed text, newlines and all, and never as keys.
const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
)

// Screen returns what session shows now, one line per row, the blank
// rows at the bottom left out.
func (t *Terminals) Screen(ctx context.Context, id string) (string, error) {
	txt, err := t.M.Screen(ctx, id)
	if err != nil {
		return "", err
	}
	lines := make([]string, len(txt.Lines))
	for i, l := range txt.Lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n"), nil
}

// Type sends text as one bracketed paste. Control characters other than
// newline and tab are refused: what is typed must stay text.
func (t *Terminals) Type(ctx context.Context, id, text string) error {
	if strings.ContainsFunc(text, func(r rune) bool { return r < 0x20 && r != '\n' && r != '\t' || r == 0x7f }) {
		return desk.Errorf(desk.Invalid, "text to type holds control characters").WithHint("type plain text; press keys with Keys")
	}
	if err := t.M.Input(ctx, id, []byte(pasteStart+text+pasteEnd)); err != nil {
		return err
	}
	// An Enter that follows a paste at once is taken into the paste by
	// Claude Code's composer (the line stays unsent); a pause lets the
	// paste settle so that the next key is a key.
	select {
	case <-time.After(session.InputSettle):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Keys presses keys (pair.KeyEnter, pair.KeyY, or any name desk keys
// takes).
func (t *Terminals) Keys(ctx context.Context, id string, keys ...string) error {
	return t.M.Keys(ctx, id, keys)
}

// Alive reports whether a session's program runs.
func (t *Terminals) Alive(ctx context.Context, id string) (bool, error) {
	s, err := t.M.Get(ctx, id)
	if err != nil {
		return false, err
	}
	return s.State == desk.SessionRunning, nil
}

// Launch starts an agent in a managed session with the launch's
// environment, and desk's MCP server handed to it with the same pair and
// role, so that its pair tools know who calls.
func (t *Terminals) Launch(ctx context.Context, l pair.Launch) (string, error) {
	env, err := envMap(l.Env)
	if err != nil {
		return "", err
	}
	args, err := t.mcpFor(l.Kind, env)
	if err != nil {
		return "", err
	}
	name := l.Kind
	if r := env[pair.EnvRole]; r != "" {
		name = r + " in pair " + env[pair.EnvPair]
	}
	// The launch's own arguments (a first prompt) go first: Claude Code's
	// --mcp-config and --allowedTools take every word after them.
	s, err := t.M.Launch(ctx, session.Request{Kind: l.Kind, Cwd: l.Dir, Name: name, Args: slices.Concat(l.Args, args), Env: env})
	if err != nil {
		return "", err
	}
	return s.ID, nil
}

// Resume starts an exited session again in its record, with resumeID
// when given (else the one its hooks captured) and, when the session is a
// pair member's, with DESK_PAIR and DESK_PAIR_ROLE again. The MCP server's
// entry is among the session's arguments, which the record keeps.
func (t *Terminals) Resume(ctx context.Context, id, resumeID string) (string, error) {
	s, err := t.M.Get(ctx, id)
	if err != nil {
		return "", err
	}
	if resumeID != "" && resumeID != s.ResumeID {
		if _, err := t.M.SetResumeID(ctx, s, resumeID); err != nil {
			return "", err
		}
	}
	var env map[string]string
	if t.Pairs != nil {
		p, role, ok, err := t.Pairs.SessionOf(ctx, id)
		if err != nil {
			return "", err
		}
		if ok {
			env = map[string]string{pair.EnvPair: p, pair.EnvRole: role}
			// The flags of the MCP entry are in the record's arguments;
			// what goes by the environment (opencode's config file) is
			// handed over again.
			if slices.Contains(Kinds, s.Kind) {
				if _, err := t.mcpFor(s.Kind, env); err != nil {
					return "", err
				}
			}
		}
	}
	s, err = t.M.ResumeWith(ctx, id, env)
	if err != nil {
		return "", err
	}
	return s.ID, nil
}

// envMap reads KEY=VALUE pairs.
func envMap(env []string) (map[string]string, error) {
	out := map[string]string{}
	for _, kv := range env {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return nil, desk.Errorf(desk.Invalid, "environment entry %q is not KEY=VALUE", kv)
		}
		out[k] = v
	}
	return out, nil
}

func (t *Terminals) deskBin() (string, error) {
	if t.DeskBin != "" {
		return t.DeskBin, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the desk binary: %w", err)
	}
	return exe, nil
}

// MCPServerName is the name desk's MCP server has in a pair member's CLI:
// its tools are mcp__desk__pair_read and so on.
const MCPServerName = "desk"

// mcpFor returns the arguments (and, for opencode, the variable) that
// hand desk's MCP server to one launch of kind. The server's entry carries
// the data folder and the pair's place itself: Codex starts MCP servers
// without the agent's environment.
func (t *Terminals) mcpFor(kind string, env map[string]string) ([]string, error) {
	if env[pair.EnvPair] == "" {
		return nil, nil // not a pair's member: nothing to hand over
	}
	bin, err := t.deskBin()
	if err != nil {
		return nil, err
	}
	args := []string{"--data", t.M.DataDir, "mcp"}
	serverEnv := map[string]string{"DESK_DATA": t.M.DataDir, pair.EnvPair: env[pair.EnvPair], pair.EnvRole: env[pair.EnvRole]}
	switch kind {
	case "claude":
		cfg, err := json.Marshal(map[string]any{"mcpServers": map[string]any{MCPServerName: map[string]any{
			"type": "stdio", "command": bin, "args": args, "env": serverEnv}}})
		if err != nil {
			return nil, err
		}
		// The pair's own tools are allowed up front: an agent asked before
		// every pair_read would stall the pair on its own mailbox.
		return []string{"--mcp-config", string(cfg), "--allowedTools", "mcp__" + MCPServerName}, nil
	case "codex":
		keys := slices.Sorted(maps.Keys(serverEnv))
		var kv []string
		for _, k := range keys {
			kv = append(kv, k+"="+tomlString(serverEnv[k]))
		}
		var targs []string
		for _, a := range args {
			targs = append(targs, tomlString(a))
		}
		p := "mcp_servers." + MCPServerName + "."
		return []string{
			"-c", p + "command=" + tomlString(bin),
			"-c", p + "args=[" + strings.Join(targs, ",") + "]",
			"-c", p + "env={" + strings.Join(kv, ",") + "}",
		}, nil
	case "opencode":
		// opencode reads one more config file from OPENCODE_CONFIG and
		// merges it with the user's (and with the permission desk's
		// launcher puts in OPENCODE_CONFIG_CONTENT).
		dir := filepath.Join(pair.PatchRootIn(t.M.DataDir), env[pair.EnvPair])
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		cfg, err := json.Marshal(map[string]any{"mcp": map[string]any{MCPServerName: map[string]any{
			"type": "local", "command": append([]string{bin}, args...), "environment": serverEnv, "enabled": true}}})
		if err != nil {
			return nil, err
		}
		path := filepath.Join(dir, env[pair.EnvRole]+"-opencode.json")
		if err := os.WriteFile(path, cfg, 0o600); err != nil {
			return nil, err
		}
		env["OPENCODE_CONFIG"] = path
		return nil, nil
	}
	return nil, desk.Errorf(desk.Invalid, "desk cannot hand its MCP server to a %s launch", kind).
		WithHint("pair claude, codex or opencode; start any other agent by hand with the DESK_PAIR and DESK_PAIR_ROLE desk pair new prints")
}

// tomlString quotes s as a TOML basic string (JSON's escapes are TOML's).
func tomlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// Kinds are the agent CLIs desk can hand its MCP server to per launch, so
// that desk pair up can start them.
var Kinds = []string{"claude", "codex", "opencode"}
