package install

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// fileTools are the tools desk installs with files alone (no agent CLI
// commands), so their tests need only stand-in executables.
var fileTools = []string{"codex", "opencode", "antigravity", "muse", "gemini", "qwen", "kimi", "grok"}

// userConfigs fills a home with the kind of configuration a user has: their
// own servers, hooks and comments in every file desk edits.
var userConfigs = map[string]string{
	".codex/config.toml":              userCodexConfig,
	".config/opencode/opencode.jsonc": userOpencodeConfig,
	".config/muse/settings.json": `{
  // Muse settings
  "schema_version": 1,
  "mcp_servers": {"notes": {"command": "notes-mcp"}},
  "hooks": {
    "SessionStart": [
      {"hooks": [{"type": "command", "command": "echo hello"}]}
    ]
  }
}
`,
	".qwen/settings.json": `{
    "$version": 3,
    "model": {"name": "qwen3-coder-plus"}, // the default
    "mcpServers": {},
    "hooks": {
        "UserPromptSubmit": [
            {
                "hooks": [
                    {"type": "command", "command": "node check.cjs"}
                ]
            }
        ]
    }
}`,
	".kimi/mcp.json":    `{"mcpServers": {"fs": {"command": "npx", "args": ["fs-mcp"]}}}` + "\n",
	".kimi/config.toml": "default_model = \"kimi-k2\"\n\n[[hooks]]\nevent = \"Stop\"\ncommand = \"say done\"\n",
	".grok/config.toml": "# grok\n[models]\ndefault = \"grok-build\"\n",
}

func TestUnrelatedConfigurationSurvivesInstallAndUninstall(t *testing.T) {
	h := newHarness(t, false)
	for rel, content := range userConfigs {
		h.write(rel, content)
	}
	before := snapshot(t, h.home, true)

	h.mustRun("install", append(fileTools, "--yes")...)
	for rel, content := range userConfigs {
		got := h.read(rel)
		for _, line := range strings.Split(content, "\n") {
			if i := strings.IndexAny(line, "#/"); i >= 0 && !strings.Contains(got, line[i:]) {
				t.Errorf("%s lost the comment %q after install", rel, line[i:])
			}
		}
		if !containsAll(t, rel, content, got) {
			t.Errorf("%s lost some of the user's settings after install:\n%s", rel, got)
		}
	}
	if _, out, _ := h.run("install", append(fileTools, "--yes")...); !strings.Contains(out, "Nothing to change.") {
		t.Fatalf("a second install changed something:\n%s", out)
	}

	h.mustRun("uninstall", "--yes")
	if d := diffSnapshots(before, snapshot(t, h.home, true)); d != "" {
		t.Fatalf("uninstall did not give back the home as it was:\n%s", d)
	}
}

func TestEveryToolInstallsIntoAnEmptyHomeAndUninstallLeavesItEmpty(t *testing.T) {
	h := newHarness(t, false)
	out := h.mustRun("install", "--yes") // every tool found on PATH
	for _, name := range fileTools {
		if !strings.Contains(out, toolNamed(name).title+": done.") {
			t.Errorf("%s was not installed:\n%s", name, out)
		}
	}
	checks := map[string]string{
		".gemini/extensions/desk/gemini-extension.json":    `"DESK_CLIENT": "gemini"`,
		".gemini/extensions/desk/hooks/hooks.json":         "hook session-start --client gemini",
		".gemini/config/plugins/desk/mcp_config.json":      `"DESK_CLIENT": "antigravity"`,
		".gemini/config/plugins/desk/hooks.json":           "hook user-prompt-submit --client antigravity",
		".gemini/config/plugins/desk/skills/desk/SKILL.md": "name: desk",
		".config/muse/settings.json":                       `"schema_version": 1`,
		".qwen/settings.json":                              "hook event --client qwen",
		".kimi/config.toml":                                "hook session-start --client kimi",
		".grok/hooks/desk.json":                            "hook event --client grok",
		".agents/skills/desk-triage/SKILL.md":              shellQuote(fakeDesk) + " list --status failed",
	}
	for rel, want := range checks {
		if got := h.read(rel); !strings.Contains(got, want) {
			t.Errorf("%s lacks %q:\n%s", rel, want, got)
		}
	}
	if owners := readSkillOwners(h.path(".agents/skills/desk", skillMarker)); strings.Join(owners.UsedBy, ",") != "codex,gemini,muse,opencode" {
		t.Errorf("the shared skills record %v as their users", owners.UsedBy)
	}
	h.mustRun("uninstall", "--yes")
	if d := diffSnapshots(map[string]string{".": "/"}, snapshot(t, h.home, true)); d != "" {
		t.Fatalf("uninstall left things behind:\n%s", d)
	}
}

func TestMalformedConfigIsRefusedAndNothingIsWritten(t *testing.T) {
	broken := map[string]struct{ file, content string }{
		"codex":    {".codex/config.toml", "model = \"o3\"\n[mcp_servers.x\ncommand = 1\n"},
		"opencode": {".config/opencode/opencode.json", `{"mcp": {"x": {"type": "local",}}` + "\n"},
		"muse":     {".config/muse/settings.json", "\xef\xbb\xbf{\"hooks\": [1, 2,, 3]}"},
		"qwen":     {".qwen/settings.json", `{"mcpServers": {"a": 1} "b": 2}`},
		"kimi":     {".kimi/mcp.json", `{"mcpServers": `},
		"grok":     {".grok/config.toml", "[models\n"},
	}
	for name, b := range broken {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			h.write(b.file, b.content)
			before := snapshot(t, h.home, false)
			code, out, errs := h.run("install", name, "--yes")
			if code != ExitFailed {
				t.Fatalf("exit %d, want %d\n%s\n%s", code, ExitFailed, out, errs)
			}
			if !strings.Contains(errs, filepath.Base(b.file)) || !strings.Contains(errs, "fix it") {
				t.Errorf("the error does not name the file and what to do: %s", errs)
			}
			if d := diffSnapshots(before, snapshot(t, h.home, false)); d != "" {
				t.Fatalf("something was written:\n%s", d)
			}
			if code, _, _ := h.run("uninstall", name, "--yes"); code != ExitFailed {
				t.Errorf("uninstall of a malformed config exited %d", code)
			}
			if d := diffSnapshots(before, snapshot(t, h.home, false)); d != "" {
				t.Fatalf("uninstall wrote something:\n%s", d)
			}
		})
	}
}

func TestSameNamedEntryDeskDidNotWriteIsRefused(t *testing.T) {
	cases := map[string]struct{ file, content string }{
		"codex":    {".codex/config.toml", "[mcp_servers.desk]\ncommand = \"desk\"\nargs = [\"mcp\"]\n"},
		"opencode": {".config/opencode/opencode.json", `{"mcp": {"desk": {"type": "local", "command": ["desk", "mcp"]}}}`},
		"qwen":     {".qwen/settings.json", `{"mcpServers": {"desk": {"command": "desk"}}}`},
		"gemini":   {".gemini/extensions/desk/gemini-extension.json", `{"name": "desk"}`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, false)
			h.write(c.file, c.content)
			before := snapshot(t, h.home, false)
			code, _, errs := h.run("install", name, "--yes")
			if code != ExitFailed || !strings.Contains(errs, "desk did not") {
				t.Fatalf("exit %d, stderr %q; want a refusal", code, errs)
			}
			if d := diffSnapshots(before, snapshot(t, h.home, false)); d != "" {
				t.Fatalf("something was written:\n%s", d)
			}
		})
	}
}

func TestDryRunWritesNothingAtAll(t *testing.T) {
	h := newHarness(t, false)
	for rel, content := range userConfigs {
		h.write(rel, content)
	}
	repo := h.path("game")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	h.env.Dir = repo
	before := snapshot(t, h.home, false)
	locksBefore, _ := filepath.Glob(filepath.Join(os.TempDir(), "desk-install-*.lock"))

	out := h.mustRun("install", "--dry-run", "--link", "mygame")
	if !strings.Contains(out, "Dry run: nothing was written.") || !strings.Contains(out, "Would create "+filepath.Join(repo, linkFile)) {
		t.Fatalf("the dry run does not say what it would do:\n%s", out)
	}
	for _, name := range fileTools {
		if !strings.Contains(out, toolNamed(name).title) {
			t.Errorf("the dry run does not show %s:\n%s", name, out)
		}
	}
	if d := diffSnapshots(before, snapshot(t, h.home, false)); d != "" {
		t.Fatalf("the dry run wrote:\n%s", d)
	}
	locksAfter, _ := filepath.Glob(filepath.Join(os.TempDir(), "desk-install-*.lock"))
	if len(locksAfter) > len(locksBefore) {
		t.Fatalf("the dry run left lock files: %v", locksAfter)
	}

	h.mustRun("install", "--yes")
	before = snapshot(t, h.home, false)
	h.mustRun("uninstall", "--dry-run")
	if d := diffSnapshots(before, snapshot(t, h.home, false)); d != "" {
		t.Fatalf("the uninstall dry run wrote:\n%s", d)
	}
}

func TestAChangeMadeWhileDeskEditsIsKept(t *testing.T) {
	h := newHarness(t, false)
	h.write(".qwen/settings.json", "{\n  \"theme\": \"dark\"\n}\n")
	path := h.path(".qwen/settings.json")
	changed := false
	// Another program writes the file between desk's read and its rename.
	w := &writer{now: time.Now, beforeCommit: func(p string) {
		if !changed {
			changed = true
			os.WriteFile(p, []byte("{\n  \"theme\": \"light\",\n  \"vim\": true\n}\n"), 0o644)
		}
	}}
	rec := &receipt{}
	spec := jsonSpec{members: []jsonMember{{parent: []string{"mcpServers"}, key: "desk", value: obj{{"command", fakeDesk}, {"env", obj{{"DESK_CLIENT", "qwen"}}}}, ours: isDeskServer}}}
	if _, err := w.commit(path, 0o644, true, jsonEditor(path, spec, rec, false)); err != nil {
		t.Fatal(err)
	}
	got := h.read(".qwen/settings.json")
	for _, want := range []string{`"theme": "light"`, `"vim": true`, `"DESK_CLIENT": "qwen"`} {
		if !strings.Contains(got, want) {
			t.Errorf("lost %s:\n%s", want, got)
		}
	}
	if b := backups(t, filepath.Dir(path)); len(b) != 1 {
		t.Errorf("want one backup, have %v", b)
	}
}

func TestInstallersRacingOnOneFileLoseNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "settings.json")
	os.WriteFile(path, []byte("{}\n"), 0o644)
	const writers = 12
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w := &writer{now: time.Now}
			key := fmt.Sprintf("server%02d", i)
			_, err := w.commit(path, 0o644, true, func(old []byte, exists bool) ([]byte, bool, error) {
				out, _, err := setMember(old, []string{"mcpServers"}, key, obj{{"command", key}})
				return out, true, err
			})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	root, err := parseJSONC([]byte(readFile(t, path)))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(root.member("mcpServers").members); n != writers {
		t.Fatalf("%d of %d entries survived:\n%s", n, writers, readFile(t, path))
	}
	names := map[string]bool{}
	for _, b := range backups(t, dir) {
		if names[b] {
			t.Fatalf("two backups share the name %s", b)
		}
		names[b] = true
	}
	if len(names) != writers {
		t.Fatalf("want %d distinct backups, have %d", writers, len(names))
	}
}

func TestBackupsMadeInTheSameInstantGetDistinctNames(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	os.WriteFile(path, []byte("a = 1\n"), 0o644)
	frozen := func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }
	seen := map[string]bool{}
	for range 3 {
		w := &writer{now: frozen}
		name, err := w.backup(path, []byte("a = 1\n"))
		if err != nil {
			t.Fatal(err)
		}
		if seen[name] {
			t.Fatalf("backup name %s used twice", name)
		}
		seen[name] = true
		if readFile(t, name) != "a = 1\n" {
			t.Fatalf("%s does not hold the original", name)
		}
	}
}

// containsAll reports whether every setting of the document orig is still
// in got (desk may only have added to it).
func containsAll(t *testing.T, name, orig, got string) bool {
	t.Helper()
	decode := func(s string) any {
		if strings.HasSuffix(name, ".toml") {
			v, err := decodeTOML([]byte(s))
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			return plain(v)
		}
		n, err := parseJSONC([]byte(s))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return n.value()
	}
	return contains(decode(orig), decode(got))
}

func contains(orig, got any) bool {
	switch o := orig.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			return false
		}
		for k, v := range o {
			if !contains(v, g[k]) {
				return false
			}
		}
		return true
	case []any:
		g, ok := got.([]any)
		if !ok {
			return false
		}
		for _, v := range o {
			found := false
			for _, w := range g {
				found = found || contains(v, w)
			}
			if !found {
				return false
			}
		}
		return true
	}
	return sameJSON(orig, got)
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
