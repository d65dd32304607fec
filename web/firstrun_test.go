package web_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"desk/internal/deskbin"
	"desk/internal/testdesk"
	"desk/link"
)

// TestFirstRunPanelCreatesTheProjectAndGivesTheCommands opens an empty desk
// whose data folder needs quoting in a shell: the page shows the first-run
// panel instead of a quick add with no project; the prefix follows the
// name; the project is created; and the commands the page then shows, run
// as they are, link a repository to it and run desk install on this desk.
func TestFirstRunPanelCreatesTheProjectAndGivesTheCommands(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "my desk")
	d := testdesk.StartIn(t, dir)
	p := openPage(t, d, "/")
	p.waitFor("the first-run panel", `!!document.querySelector('.first-run input[name="name"]')`)
	shown := func(css string) bool {
		return eval[bool](p, `(() => { const el = document.querySelector(`+jsString(css)+`); return !!el && el.getClientRects().length > 0; })()`)
	}
	for _, css := range []string{"#quick-add", ".filters", "#search", "#new-issue-button", ".project-button"} {
		if shown(css) {
			t.Errorf("the empty desk shows %s, which needs a project", css)
		}
	}
	if got := eval[string](p, `document.activeElement?.name || ''`); got != "name" {
		t.Errorf("the focus is on %q, want the project's name", got)
	}
	quoted := "desk --data '" + dir + "'"
	p.waitFor("this desk's folder in the commands", `[...document.querySelectorAll('.first-run-command code')].every((c) => c.textContent.startsWith(`+jsString(quoted)+`))`)

	// A bad slug is refused on the page, and nothing is created.
	p.typeInto(`.first-run input[name="name"]`, "Star Forge")
	p.waitFor("the suggested slug and prefix", `document.querySelector('.first-run input[name="slug"]').value === 'star-forge' && document.querySelector('.first-run input[name="prefix"]').value === 'ST'`)
	p.waitFor("the slug in the link command", `document.querySelector('.first-run-command code').textContent.endsWith('link --project star-forge')`)
	eval[bool](p, `(() => { const s = document.querySelector('.first-run input[name="slug"]'); s.value = 'Star Forge'; s.dispatchEvent(new Event('input')); return true; })()`)
	p.click(`.first-run button[type="submit"]`)
	p.waitFor("the slug refused", `document.querySelector('.first-run .form-error').textContent.includes('lower-case')`)
	if ps, err := d.DB.Projects(context.Background()); err != nil || len(ps) != 0 {
		t.Fatalf("a refused slug created %d projects (%v)", len(ps), err)
	}
	eval[bool](p, `(() => { const s = document.querySelector('.first-run input[name="slug"]'); s.value = 'star-forge'; s.dispatchEvent(new Event('input')); return true; })()`)
	p.click(`.first-run button[type="submit"]`)
	p.waitFor("the project created", `document.querySelector('.first-run-done')?.textContent.includes('ST-1, ST-2')`)
	pr, err := d.DB.Project(context.Background(), "star-forge")
	if err != nil || pr.Name != "Star Forge" || pr.Prefix != "ST" {
		t.Fatalf("stored project %+v (%v)", pr, err)
	}

	// The commands are the ones to run, as they are.
	commands := eval[[]string](p, `[...document.querySelectorAll('.first-run-command code')].map((c) => c.textContent)`)
	want := []string{quoted + " link --project star-forge", quoted + " install"}
	if strings.Join(commands, "\n") != strings.Join(want, "\n") {
		t.Fatalf("commands:\n%s\nwant:\n%s", strings.Join(commands, "\n"), strings.Join(want, "\n"))
	}
	bin := t.TempDir()
	if err := deskbin.Build(filepath.Join(bin, "desk")); err != nil {
		t.Fatal(err)
	}
	repo, home := t.TempDir(), t.TempDir()
	run := func(command string) string {
		t.Helper()
		cmd := exec.Command("sh", "-c", command)
		cmd.Dir = repo
		cmd.Env = []string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + home}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s: %v\n%s", command, err, out)
		}
		return string(out)
	}
	run(commands[0])
	if links, err := link.Read(dir); err != nil || links[repo] != "star-forge" {
		t.Fatalf("after %s the links are %v (%v)", commands[0], links, err)
	}
	if out := run(commands[1] + " --dry-run"); !strings.Contains(out, "desk") {
		t.Errorf("%s --dry-run said %q", commands[1], out)
	}
	if _, err := os.Stat(filepath.Join(home, ".claude.json")); err == nil {
		t.Error("a dry run of desk install wrote into HOME")
	}

	// Then the project opens, with the quick add it now has.
	p.click(".first-run-open button")
	p.waitFor("the project's list", `location.hash === '#/star-forge' && !document.querySelector('.first-run')`)
	p.waitFor("the quick add", `document.getElementById('quick-add').getClientRects().length > 0`)
	if !shown(".project-button") || shown(".first-run") {
		t.Error("the project's page still looks like the first run")
	}
}
