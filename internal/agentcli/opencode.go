package agentcli

import (
	"context"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
)

// Opencode is opencode in a sandbox, talking to a mock model through its
// Anthropic provider.
//
// Config is the harness's own config file, passed through OPENCODE_CONFIG
// and written before every run; opencode merges it over the user's global
// config in XDG_CONFIG_HOME/opencode, which is left to the test (and to
// desk's installer).
type Opencode struct {
	Sandbox
	// Bin is the opencode executable.
	Bin string
	// ModelURL is the mock model's root URL; the provider uses ModelURL/v1.
	ModelURL string
	// Config is the harness's opencode.json.
	Config map[string]any

	t testing.TB
}

// OpencodeModel is the model the harness selects. It must be in the model
// catalogue opencode ships, since the harness turns the catalogue download
// off.
const OpencodeModel = "anthropic/claude-sonnet-4-5"

// NewOpencode sets up opencode in a fresh sandbox against the mock model at
// modelURL (mockmodel.Server.URL). It skips the test, or fails it under CI,
// when opencode is not installed.
func NewOpencode(t testing.TB, modelURL string) *Opencode {
	t.Helper()
	o := &Opencode{Sandbox: newSandbox(t), Bin: OpencodePath(t), ModelURL: modelURL, t: t}
	o.Config = map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"model":      OpencodeModel,
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{
			"anthropic": map[string]any{"options": map[string]any{"baseURL": modelURL + "/v1", "apiKey": "mock-key"}},
		},
		"mcp": map[string]any{},
	}
	return o
}

// AddMCPServer adds a local MCP server; opencode offers its tools as
// <name>_<tool>.
func (o *Opencode) AddMCPServer(name string, s MCPServer) {
	mcp, _ := o.Config["mcp"].(map[string]any)
	if mcp == nil {
		mcp = map[string]any{}
		o.Config["mcp"] = mcp
	}
	entry := map[string]any{"type": "local", "command": append([]string{s.Command}, s.Args...), "enabled": true}
	if len(s.Env) > 0 {
		entry["environment"] = s.Env
	}
	mcp[name] = entry
}

// ConfigPath is where the harness's config is written.
func (o *Opencode) ConfigPath() string { return filepath.Join(o.Root, "opencode-harness.json") }

// Environ is the environment every opencode run gets.
func (o *Opencode) Environ() []string {
	return o.environ(map[string]string{
		"OPENCODE_CONFIG":               o.ConfigPath(),
		"OPENCODE_DISABLE_AUTOUPDATE":   "1",
		"OPENCODE_DISABLE_MODELS_FETCH": "1",
		"OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
		"ANTHROPIC_API_KEY":             "mock-key",
	})
}

// Command writes Config and returns a bare opencode process in the
// sandbox with exactly these arguments.
func (o *Opencode) Command(ctx context.Context, args ...string) *exec.Cmd {
	o.t.Helper()
	writeJSONFile(o.t, o.ConfigPath(), o.Config)
	return command(ctx, o.Bin, args, o.Dir, o.Environ())
}

// Run runs opencode with exactly these arguments and waits for it.
func (o *Opencode) Run(args ...string) *Result {
	o.t.Helper()
	ctx, cancel := context.WithTimeout(o.t.Context(), o.timeout())
	defer cancel()
	return run(ctx, o.Command(ctx, args...))
}

// Prompt runs one headless turn, `opencode run <args> <prompt>`, and waits
// for it.
func (o *Opencode) Prompt(prompt string, args ...string) *Result {
	o.t.Helper()
	return o.Run(slices.Concat([]string{"run"}, args, []string{prompt})...)
}

// Interactive starts the interactive UI in a PTY with these arguments.
func (o *Opencode) Interactive(args ...string) *Term {
	o.t.Helper()
	return StartTerm(o.t, o.Command(context.Background(), args...))
}
