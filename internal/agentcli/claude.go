package agentcli

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// Claude is Claude Code in a sandbox, talking to a mock model.
//
// Settings and MCPServers are the harness's own files, passed with
// --settings and --mcp-config on every run made through Flags, so they can
// be changed at any time. The user-level state in ConfigDir belongs to Claude
// Code (and to whatever a test installs there, such as `claude mcp add`).
type Claude struct {
	Sandbox
	// Bin is the claude executable.
	Bin string
	// ConfigDir is CLAUDE_CONFIG_DIR; it holds .claude.json and settings.json.
	ConfigDir string
	// ModelURL is ANTHROPIC_BASE_URL, the mock model's root URL.
	ModelURL string
	// APIKey is ANTHROPIC_API_KEY; .claude.json approves it up front.
	APIKey string
	// Settings is passed with --settings; AddHook fills Settings["hooks"].
	Settings map[string]any
	// MCPServers are passed with --mcp-config and --strict-mcp-config, and
	// all their tools are allowed unless AskForMCP is set (see Flags).
	MCPServers map[string]MCPServer
	// Allow lists more --allowedTools rules, e.g. "Bash(echo:*)".
	Allow []string
	// AskForMCP leaves the MCP servers' tools out of --allowedTools, so that
	// an interactive session asks for permission ("Do you want to
	// proceed?") and a headless one denies the call.
	AskForMCP bool

	t testing.TB
}

// NewClaude sets up Claude Code in a fresh sandbox against the mock model at
// modelURL (mockmodel.Server.URL). It skips the test, or fails it under CI,
// when Claude Code is not installed.
func NewClaude(t testing.TB, modelURL string) *Claude {
	t.Helper()
	c := &Claude{
		Sandbox:    newSandbox(t),
		Bin:        ClaudePath(t),
		ModelURL:   modelURL,
		APIKey:     "sk-ant-mock-0123456789-desk-agent-harness",
		Settings:   map[string]any{},
		MCPServers: map[string]MCPServer{},
		t:          t,
	}
	c.ConfigDir = filepath.Join(c.Home, ".claude")
	c.writeState()
	return c
}

// writeState writes the .claude.json that lets an interactive session start
// straight at the prompt: onboarding done (otherwise it checks connectivity
// to the real API and stops), the API key approved (it asks about a custom
// key by its last 20 characters) and the project folder trusted.
func (c *Claude) writeState() {
	key := c.APIKey
	if len(key) > 20 {
		key = key[len(key)-20:]
	}
	state := map[string]any{
		"hasCompletedOnboarding": true,
		"autoUpdates":            false,
		"theme":                  "dark",
		"customApiKeyResponses":  map[string]any{"approved": []string{key}, "rejected": []string{}},
		"projects": map[string]any{
			c.Dir: map[string]any{
				"hasTrustDialogAccepted":        true,
				"hasCompletedProjectOnboarding": true,
				"enabledMcpjsonServers":         []string{},
				"allowedTools":                  []string{},
			},
		},
	}
	writeJSONFile(c.t, c.statePath(), state)
}

func (c *Claude) statePath() string { return filepath.Join(c.ConfigDir, ".claude.json") }

// UpdateState edits Claude Code's .claude.json in place, for example to
// approve servers of a project .mcp.json in
// state["projects"][c.Dir]["enabledMcpjsonServers"].
func (c *Claude) UpdateState(edit func(state map[string]any)) {
	c.t.Helper()
	b, err := os.ReadFile(c.statePath())
	if err != nil {
		c.t.Fatalf("agentcli: %v", err)
	}
	state := map[string]any{}
	if err := json.Unmarshal(b, &state); err != nil {
		c.t.Fatalf("agentcli: %s: %v", c.statePath(), err)
	}
	edit(state)
	writeJSONFile(c.t, c.statePath(), state)
}

// AddMCPServer adds a stdio MCP server; its tools are offered to the model
// as mcp__<name>__<tool> and allowed without a permission prompt.
func (c *Claude) AddMCPServer(name string, s MCPServer) { c.MCPServers[name] = s }

// AddHook adds a hook for an event ("SessionStart", "PreToolUse", ...) to
// Settings. Note that Claude Code 2.1.197 sends SessionStart only to command
// hooks, not to http hooks.
func (c *Claude) AddHook(event string, h Hook) {
	hooks, _ := c.Settings["hooks"].(map[string]any)
	if hooks == nil {
		hooks = map[string]any{}
		c.Settings["hooks"] = hooks
	}
	list, _ := hooks[event].([]any)
	hooks[event] = append(list, h.entry())
}

// Environ is the environment every claude run gets.
func (c *Claude) Environ() []string {
	return c.environ(map[string]string{
		"CLAUDE_CONFIG_DIR":                        c.ConfigDir,
		"ANTHROPIC_BASE_URL":                       c.ModelURL,
		"ANTHROPIC_API_KEY":                        c.APIKey,
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
		"DISABLE_AUTOUPDATER":                      "1",
	})
}

// Flags writes the harness's settings and MCP config and returns the flags
// that load them: --settings, --mcp-config with --strict-mcp-config (only
// the harness's servers), and --allowedTools for Allow plus every tool of
// every added server.
func (c *Claude) Flags() []string {
	c.t.Helper()
	var flags []string
	if len(c.Settings) > 0 {
		path := filepath.Join(c.Root, "claude-settings.json")
		writeJSONFile(c.t, path, c.Settings)
		flags = append(flags, "--settings", path)
	}
	allow := slices.Clone(c.Allow)
	if len(c.MCPServers) > 0 {
		servers := map[string]any{}
		for _, name := range slices.Sorted(maps.Keys(c.MCPServers)) {
			s := c.MCPServers[name]
			servers[name] = map[string]any{"type": "stdio", "command": s.Command, "args": nonNil(s.Args), "env": nonNilMap(s.Env)}
			if !c.AskForMCP {
				allow = append(allow, "mcp__"+name)
			}
		}
		path := filepath.Join(c.Root, "claude-mcp.json")
		writeJSONFile(c.t, path, map[string]any{"mcpServers": servers})
		flags = append(flags, "--mcp-config", path, "--strict-mcp-config")
	}
	if len(allow) > 0 {
		flags = append(flags, "--allowedTools", strings.Join(allow, ","))
	}
	return flags
}

// Command is a bare claude process in the sandbox: environment and folder
// set, no flags added. Use it for `claude mcp list` and the like.
func (c *Claude) Command(ctx context.Context, args ...string) *exec.Cmd {
	return command(ctx, c.Bin, args, c.Dir, c.Environ())
}

// Run runs claude with exactly these arguments and waits for it.
func (c *Claude) Run(args ...string) *Result {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), c.timeout())
	defer cancel()
	return run(ctx, c.Command(ctx, args...))
}

// Prompt runs one headless turn, `claude -p <prompt>` with Flags and then
// args, and waits for it.
func (c *Claude) Prompt(prompt string, args ...string) *Result {
	c.t.Helper()
	return c.Run(slices.Concat([]string{"-p", prompt}, c.Flags(), args)...)
}

// Interactive starts the interactive UI in a PTY, with Flags and then args.
func (c *Claude) Interactive(args ...string) *Term {
	c.t.Helper()
	return StartTerm(c.t, c.Command(context.Background(), slices.Concat(c.Flags(), args)...))
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func nonNilMap(m map[string]string) map[string]string {
	if m == nil {
		return map[string]string{}
	}
	return m
}
