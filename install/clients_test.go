package install

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Claude Code's own settings after `claude` has run once, with the user's
// unrelated permissions and hooks.
const userClaudeSettings = `{
  "permissions": {
    "allow": [
      "Bash(go test:*)"
    ]
  },
  "hooks": {
    "Stop": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "notify-send done"
          }
        ]
      }
    ]
  }
}
`

func TestClaudeCodeGetsDeskAsAPluginAndLosesItOnUninstall(t *testing.T) {
	h := newHarness(t, true)
	h.write(".claude/settings.json", userClaudeSettings)
	before := snapshot(t, h.path(".claude"), true)

	out := h.mustRun("install", "claude", "--yes")
	if !strings.Contains(out, "run    claude plugin marketplace add") || !strings.Contains(out, "run    claude plugin install desk@desk") {
		t.Fatalf("the plan does not show the claude plugin commands:\n%s", out)
	}
	var plugins []struct {
		ID         string         `json:"id"`
		Enabled    bool           `json:"enabled"`
		MCPServers map[string]any `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(h.cli("claude", "plugin", "list", "--json")), &plugins); err != nil {
		t.Fatal(err)
	}
	if len(plugins) != 1 || plugins[0].ID != "desk@desk" || !plugins[0].Enabled || plugins[0].MCPServers["desk"] == nil {
		t.Fatalf("claude plugin list: %+v", plugins)
	}
	mcp := h.cli("claude", "mcp", "list")
	if !regexp.MustCompile(`plugin:desk:desk: .*` + regexp.QuoteMeta(fakeDesk) + ` mcp.*Connected`).MatchString(mcp) {
		t.Fatalf("claude mcp list does not show desk's server connected:\n%s", mcp)
	}
	hooks := h.read(filepath.Join(".local", "share", "desk", "claude-plugin", "desk", "hooks", "hooks.json"))
	for _, want := range []string{"hook session-start --client claude", "hook user-prompt-submit --client claude", `"PermissionRequest"`, `"SubagentStop"`} {
		if !strings.Contains(hooks, want) {
			t.Errorf("the plugin's hooks lack %s:\n%s", want, hooks)
		}
	}

	if _, out, _ := h.run("install", "claude", "--yes"); !strings.Contains(out, "Nothing to change.") {
		t.Fatalf("a second install changed something:\n%s", out)
	}

	h.mustRun("uninstall", "claude", "--yes")
	if list := h.cli("claude", "plugin", "list", "--json"); strings.Contains(list, "desk@desk") {
		t.Fatalf("the plugin is still installed: %s", list)
	}
	if mp := h.cli("claude", "plugin", "marketplace", "list", "--json"); strings.Contains(mp, `"desk"`) {
		t.Fatalf("the marketplace is still known: %s", mp)
	}
	if _, err := os.Stat(h.path(".local", "share", "desk")); !os.IsNotExist(err) {
		t.Fatalf("desk's app folder is still there: %v", err)
	}
	after := snapshot(t, h.path(".claude"), true)
	if got, want := after["settings.json"], before["settings.json"]; got != want {
		t.Fatalf("settings.json is not as it was:\n--- before\n%s\n--- after\n%s", want, got)
	}
}

func TestClaudeCodePluginUpdatesWhenTheDeskPathChanges(t *testing.T) {
	h := newHarness(t, true)
	h.mustRun("install", "claude", "--yes")
	moved := filepath.Join(t.TempDir(), "desk")
	b, err := os.ReadFile(fakeDesk)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(moved, b, 0o755); err != nil {
		t.Fatal(err)
	}
	h.env.Desk = moved
	out := h.mustRun("update", "--yes")
	if !strings.Contains(out, "claude plugin update desk@desk") {
		t.Fatalf("update did not update the plugin:\n%s", out)
	}
	if list := h.cli("claude", "plugin", "list", "--json"); !strings.Contains(list, moved) {
		t.Fatalf("the installed plugin still runs the old desk: %s", list)
	}
	if _, out, _ := h.run("update", "--yes"); !strings.Contains(out, "Nothing to change.") {
		t.Fatalf("a second update changed something:\n%s", out)
	}
	h.mustRun("uninstall", "--yes")
}

// A Codex config full of the user's own servers, profiles and comments.
const userCodexConfig = `# my Codex settings
model = "o3"
approval_policy = "on-request" # ask first

[mcp_servers.github]
command = "github-mcp"
args = ["stdio"]

# profiles
[profiles.fast]
model = "o4-mini"
`

func TestCodexGetsDeskInConfigTOMLAndLosesItOnUninstall(t *testing.T) {
	h := newHarness(t, true)
	h.write(".codex/config.toml", userCodexConfig)

	h.mustRun("install", "codex", "--yes")
	list := h.cli("codex", "mcp", "list")
	if !regexp.MustCompile(`(?m)^desk\s+` + regexp.QuoteMeta(fakeDesk) + `\s+mcp\s+DESK_CLIENT=\*+, DESK_DATA=\*+.*enabled`).MatchString(list) {
		t.Fatalf("codex mcp list does not show desk's server:\n%s", list)
	}
	if !strings.Contains(list, "github") {
		t.Fatalf("the user's server is gone:\n%s", list)
	}
	cfg := h.read(".codex/config.toml")
	if !strings.HasPrefix(cfg, userCodexConfig) {
		t.Fatalf("the user's part of config.toml changed:\n%s", cfg)
	}
	doc, err := decodeTOML([]byte(cfg))
	if err != nil {
		t.Fatal(err)
	}
	for _, ev := range hookEvents["codex"] {
		if _, ok := tableAt(doc, "hooks", ev); !ok {
			t.Errorf("no hook for %s", ev)
		}
	}
	if _, ok := tableAt(doc, "profiles", "fast", "model"); !ok {
		t.Error("the user's profile is gone")
	}
	for _, s := range skills {
		if _, err := os.Stat(h.path(".agents", "skills", s.name, "SKILL.md")); err != nil {
			t.Errorf("skill %s: %v", s.name, err)
		}
	}
	if _, out, _ := h.run("install", "codex", "--yes"); !strings.Contains(out, "Nothing to change.") {
		t.Fatalf("a second install changed something:\n%s", out)
	}

	h.mustRun("uninstall", "codex", "--yes")
	if got := h.read(".codex/config.toml"); got != userCodexConfig {
		t.Fatalf("config.toml is not as it was:\n%s", got)
	}
	if len(backups(t, h.path(".codex"))) != 2 {
		t.Errorf("want one backup per run that changed config.toml, have %v", backups(t, h.path(".codex")))
	}
	if _, err := os.Stat(h.path(".agents")); !os.IsNotExist(err) {
		t.Errorf("the skills desk created are still there: %v", err)
	}
	if list := h.cli("codex", "mcp", "list"); strings.Contains(list, "desk") {
		t.Fatalf("codex still lists desk:\n%s", list)
	}
}

// An opencode.jsonc with comments, a trailing comma and the user's servers.
const userOpencodeConfig = `{
  // my opencode setup
  "$schema": "https://opencode.ai/config.json",
  "mcp": {
    /* the filesystem server */
    "files": {
      "type": "local",
      "command": ["/bin/true"],
      "enabled": false,
    },
  },
  "theme": "system",
}
`

func TestOpencodeGetsDeskInItsConfigAndAPluginAndLosesThemOnUninstall(t *testing.T) {
	h := newHarness(t, true)
	h.write(".config/opencode/opencode.jsonc", userOpencodeConfig)

	h.mustRun("install", "opencode", "--yes")
	cfg := h.read(".config/opencode/opencode.jsonc")
	for _, kept := range []string{"// my opencode setup", "/* the filesystem server */", `"theme": "system",`} {
		if !strings.Contains(cfg, kept) {
			t.Errorf("lost %q from opencode.jsonc:\n%s", kept, cfg)
		}
	}
	list := h.cli("opencode", "mcp", "list")
	if !regexp.MustCompile(`✓ desk\s+connected`).MatchString(list) {
		t.Fatalf("opencode mcp list does not show desk connected:\n%s", list)
	}
	plugin := h.read(".config/opencode/plugins/desk.js")
	if !strings.Contains(plugin, `"hook", "session-start", "--client", "opencode"`) || !strings.Contains(plugin, fakeDesk) {
		t.Fatalf("the plugin does not run desk's session-start hook:\n%s", plugin)
	}
	if _, out, _ := h.run("install", "opencode", "--yes"); !strings.Contains(out, "Nothing to change.") {
		t.Fatalf("a second install changed something:\n%s", out)
	}

	h.mustRun("uninstall", "opencode", "--yes")
	if got := h.read(".config/opencode/opencode.jsonc"); got != userOpencodeConfig {
		t.Fatalf("opencode.jsonc is not as it was:\n%s", got)
	}
	if _, err := os.Stat(h.path(".config/opencode/plugins")); !os.IsNotExist(err) {
		t.Fatalf("the plugin folder desk created is still there: %v", err)
	}
}
