package install

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestSharedSkillsStayWhileAnotherToolUsesThem(t *testing.T) {
	h := newHarness(t, false)
	h.mustRun("install", "codex", "opencode", "--yes")
	skill := h.path(".agents", "skills", "desk", "SKILL.md")
	h.mustRun("uninstall", "codex", "--yes")
	if _, err := os.Stat(skill); err != nil {
		t.Fatalf("the skill went while opencode still uses it: %v", err)
	}
	if u := readSkillOwners(filepath.Join(filepath.Dir(skill), skillMarker)).UsedBy; strings.Join(u, ",") != "opencode" {
		t.Fatalf("the skill records %v as its users", u)
	}
	h.mustRun("uninstall", "opencode", "--yes")
	if _, err := os.Stat(h.path(".agents")); !os.IsNotExist(err) {
		t.Fatalf("the skills outlived their last user: %v", err)
	}
}

func TestASkillSomeoneElseWroteIsRefused(t *testing.T) {
	h := newHarness(t, false)
	h.write(".agents/skills/desk-serve/SKILL.md", "---\nname: desk-serve\n---\nmine\n")
	code, _, errs := h.run("install", "codex", "--yes")
	if code != ExitFailed || !strings.Contains(errs, "desk did not write it") {
		t.Fatalf("exit %d, %s", code, errs)
	}
	if got := h.read(".agents/skills/desk-serve/SKILL.md"); got != "---\nname: desk-serve\n---\nmine\n" {
		t.Fatalf("the user's skill changed: %s", got)
	}
}

func TestLinkWritesTheRepoMarker(t *testing.T) {
	h := newHarness(t, false)
	repo := h.path("game")
	os.MkdirAll(filepath.Join(repo, ".git"), 0o755)
	os.MkdirAll(filepath.Join(repo, "src"), 0o755)
	h.env.Dir = filepath.Join(repo, "src")
	out := h.mustRun("install", "qwen", "--yes", "--link", "mygame")
	if got := h.read("game/.desk.json"); got != "{\"project\":\"mygame\"}\n" {
		t.Fatalf(".desk.json holds %q", got)
	}
	if !strings.Contains(out, "serve --open") {
		t.Errorf("install does not say how to start the desk:\n%s", out)
	}
	if code, _, errs := h.run("install", "qwen", "--yes", "--link", "other"); code != ExitFailed || !strings.Contains(errs, "already links this repo to mygame") {
		t.Fatalf("relinking to another project: exit %d, %s", code, errs)
	}
	if code, _, errs := h.run("install", "--link", "Not A Slug"); code != ExitUsage || !strings.Contains(errs, "slug") {
		t.Fatalf("a bad slug: exit %d, %s", code, errs)
	}
}

func TestInstallAsksAndDoesNothingWithoutAYes(t *testing.T) {
	h := newHarness(t, false)
	h.env.Stdin = strings.NewReader("n\n")
	before := snapshot(t, h.home, false)
	_, out, _ := h.run("install", "kimi")
	if !strings.Contains(out, "Connect desk to Kimi CLI? [y/N]") || !strings.Contains(out, "Skipped Kimi CLI.") {
		t.Fatalf("install did not ask:\n%s", out)
	}
	if d := diffSnapshots(before, snapshot(t, h.home, false)); d != "" {
		t.Fatalf("a no still wrote:\n%s", d)
	}
	h.env.Stdin = strings.NewReader("y\n")
	h.mustRun("install", "kimi")
	if !strings.Contains(h.read(".kimi/mcp.json"), `"DESK_CLIENT": "kimi"`) {
		t.Fatal("a yes did not install")
	}
}

func TestUnknownToolAndToolNotOnPathAreUsageErrors(t *testing.T) {
	h := newHarness(t, false)
	if code, _, errs := h.run("install", "cursor"); code != ExitUsage || !strings.Contains(errs, `unknown tool "cursor"`) {
		t.Fatalf("exit %d, %s", code, errs)
	}
	if code, _, errs := h.run("install", "claude", "--yes"); code != ExitUsage || !strings.Contains(errs, "not on your PATH") {
		t.Fatalf("exit %d, %s", code, errs)
	}
}

func TestAgentsMDNamesTheDeskCommand(t *testing.T) {
	h := newHarness(t, false)
	_, out, _ := h.run("agents-md")
	if !strings.HasPrefix(out, "## desk") || !strings.Contains(out, shellQuote(fakeDesk)+" serve --open") {
		t.Fatalf("agents-md printed:\n%s", out)
	}
}

func TestDoctorReportsRegistrationAndHookActivity(t *testing.T) {
	h := newHarness(t, false)
	h.mustRun("install", "codex", "grok", "--yes")
	seen := time.Now().Add(-3 * time.Minute)
	h.env.LastSeen = func(client string) (time.Time, bool) { return seen, client == "codex" }
	code, out, _ := h.run("doctor")
	if code != ExitOK {
		t.Fatalf("doctor exit %d:\n%s", code, out)
	}
	for _, want := range []string{"codex", "registered; hooks last fired 3m ago", "grok", "hooks never fired", "gemini", "not connected (desk install gemini)"} {
		if !strings.Contains(out, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, out)
		}
	}
	// Someone removes desk's block from the Codex config by hand.
	os.WriteFile(h.path(".codex", "config.toml"), nil, 0o644)
	code, out, _ = h.run("doctor")
	if code != ExitFailed || !strings.Contains(out, "needs attention: desk install codex would take 1 steps") {
		t.Fatalf("doctor missed the broken Codex config (exit %d):\n%s", code, out)
	}
}
