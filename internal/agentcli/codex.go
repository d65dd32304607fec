package agentcli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"

	"github.com/BurntSushi/toml"
)

// Codex is the Codex CLI in a sandbox, talking to a mock model.
//
// Config is the whole of CODEX_HOME/config.toml. NewCodex, AddMCPServer and
// AddHook write it; after changing Config by hand call WriteConfig. The file
// is not rewritten on every run, so that what a test installs with
// `codex mcp add` (or desk's own installer) stays in place.
type Codex struct {
	Sandbox
	// Bin is the codex executable.
	Bin string
	// CodexHome is CODEX_HOME, holding config.toml, hooks and sessions.
	CodexHome string
	// ModelURL is the mock model's root URL; the provider uses ModelURL/v1.
	ModelURL string
	// Config is config.toml as a TOML document.
	Config map[string]any

	t testing.TB
}

// mockProvider is the model provider id the harness registers. The
// OPENAI_BASE_URL variable is ignored by Codex 0.171.0, and openai_base_url
// tries WebSockets first, so a custom provider with supports_websockets off
// is the direct route to the mock.
const mockProvider = "mock"

// NewCodex sets up Codex in a fresh sandbox against the mock model at
// modelURL (mockmodel.Server.URL). It skips the test, or fails it under CI,
// when Codex is not installed.
func NewCodex(t testing.TB, modelURL string) *Codex {
	t.Helper()
	c := &Codex{Sandbox: newSandbox(t), Bin: CodexPath(t), ModelURL: modelURL, t: t}
	c.CodexHome = filepath.Join(c.Home, ".codex")
	c.Config = map[string]any{
		"model":           "mock-model",
		"model_provider":  mockProvider,
		"approval_policy": "never",
		"sandbox_mode":    "danger-full-access",
		"model_providers": map[string]any{
			mockProvider: map[string]any{
				"name":                mockProvider,
				"base_url":            modelURL + "/v1",
				"wire_api":            "responses",
				"env_key":             "MOCK_API_KEY",
				"supports_websockets": false,
			},
		},
		// A trusted project opens the interactive UI without the trust prompt.
		"projects": map[string]any{c.Dir: map[string]any{"trust_level": "trusted"}},
	}
	c.WriteConfig()
	return c
}

// WriteConfig writes Config to CODEX_HOME/config.toml.
func (c *Codex) WriteConfig() {
	c.t.Helper()
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(c.Config); err != nil {
		c.t.Fatalf("agentcli: encode codex config: %v", err)
	}
	mustMkdir(c.t, c.CodexHome)
	if err := os.WriteFile(filepath.Join(c.CodexHome, "config.toml"), buf.Bytes(), 0o644); err != nil {
		c.t.Fatalf("agentcli: %v", err)
	}
}

// table returns Config[key] as a table, creating it.
func (c *Codex) table(key string) map[string]any {
	m, _ := c.Config[key].(map[string]any)
	if m == nil {
		m = map[string]any{}
		c.Config[key] = m
	}
	return m
}

// AddMCPServer adds [mcp_servers.<name>]; Codex offers its tools in the
// namespace "mcp__<name>". Codex starts MCP servers without the user's
// environment, so pass everything the server needs in s.Env.
func (c *Codex) AddMCPServer(name string, s MCPServer) {
	c.t.Helper()
	entry := map[string]any{"command": s.Command, "args": nonNil(s.Args)}
	if len(s.Env) > 0 {
		entry["env"] = s.Env
	}
	c.table("mcp_servers")[name] = entry
	c.WriteConfig()
}

// AddHook adds a [[hooks.<event>]] entry to config.toml. Codex runs hooks
// only once they are trusted; Prompt passes --dangerously-bypass-hook-trust.
func (c *Codex) AddHook(event string, h Hook) {
	c.t.Helper()
	hooks := c.table("hooks")
	list, _ := hooks[event].([]map[string]any)
	hooks[event] = append(list, h.entry())
	c.WriteConfig()
}

// Environ is the environment every codex run gets.
func (c *Codex) Environ() []string {
	return c.environ(map[string]string{
		"CODEX_HOME":   c.CodexHome,
		"MOCK_API_KEY": "mock-key",
	})
}

// Command is a bare codex process in the sandbox: environment and folder
// set, no flags added. Use it for `codex mcp list` and the like.
func (c *Codex) Command(ctx context.Context, args ...string) *exec.Cmd {
	return command(ctx, c.Bin, args, c.Dir, c.Environ())
}

// Run runs codex with exactly these arguments and waits for it.
func (c *Codex) Run(args ...string) *Result {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), c.timeout())
	defer cancel()
	return run(ctx, c.Command(ctx, args...))
}

// Prompt runs one headless turn, `codex exec --skip-git-repo-check
// --dangerously-bypass-hook-trust <args> <prompt>`, and waits for it.
func (c *Codex) Prompt(prompt string, args ...string) *Result {
	c.t.Helper()
	return c.Run(slices.Concat([]string{"exec", "--skip-git-repo-check", "--dangerously-bypass-hook-trust"}, args, []string{prompt})...)
}

// Interactive starts the interactive UI in a PTY, `codex
// --dangerously-bypass-hook-trust <args>`, so that hooks added with AddHook
// run as they do under Prompt. Use Command to start it without the flag.
func (c *Codex) Interactive(args ...string) *Term {
	c.t.Helper()
	return StartTerm(c.t, c.Command(context.Background(), slices.Concat([]string{"--dangerously-bypass-hook-trust"}, args)...))
}
