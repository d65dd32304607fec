package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"desk/internal/jsonshape"
)

// TestEveryJSONOutputHasOneShape runs every command that prints JSON on an
// empty desk, on a full one, and on the full one restored from its backup
// into a fresh folder (with and without a server on it), and checks that
// each output names the same keys on all of them: a field that can be
// empty is there, as [] or null, never left out. show --json names the
// keys GET /api/issues/{id} does, agents included, whether or not a server
// answers it.
func TestEveryJSONOutputHasOneShape(t *testing.T) {
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "xdg-open"), []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	path := "PATH=" + bin + string(os.PathListSeparator) + os.Getenv("PATH")

	empty := &shapeEnv{env: newEnv(t), name: "empty", set: jsonshape.Set{}}
	empty.extra = []string{path}
	empty.walk(false)

	full := &shapeEnv{env: newEnv(t), name: "full", set: jsonshape.Set{}}
	full.extra = []string{path, "DESK_AUTHOR=claude"}
	full.walk(true)

	zip := filepath.Join(full.dir, "desk.zip")
	full.json("backup", "backup", "--out", zip)
	restored := &shapeEnv{env: newEnv(t), name: "restored", set: jsonshape.Set{}}
	restored.extra = []string{path}
	restored.json("restore", "restore", zip)
	restored.reads()
	restored.ok("serve", "--detach", "--port", "0")
	t.Cleanup(func() { restored.run("stop") })
	restored.reads() // the same outputs, through the server

	for _, w := range []*shapeEnv{empty, full, restored} {
		for _, p := range w.problems {
			t.Errorf("%s desk: %s", w.name, p)
		}
	}
	for _, pair := range [][2]*shapeEnv{{empty, full}, {full, restored}, {empty, restored}} {
		for _, p := range jsonshape.Compare(pair[0].set, pair[1].set, pair[0].name, pair[1].name) {
			t.Error(p)
		}
	}
	for _, w := range []*shapeEnv{empty, full, restored} {
		if keys := w.set.Keys("show", ""); keys != nil && !strings.Contains(" "+strings.Join(keys, " ")+" ", " agents ") {
			t.Errorf("%s desk: show --json has no agents: %v", w.name, keys)
		}
	}
}

// shapeEnv is a sandbox whose JSON outputs are gathered by command.
type shapeEnv struct {
	*env
	name     string
	set      jsonshape.Set
	problems []string
}

// json runs desk with --json (before the arguments after --, which are a
// launched program's) and files the output's shape as answer.
func (w *shapeEnv) json(answer string, args ...string) map[string]any {
	w.t.Helper()
	at := slices.Index(args, "--")
	if at < 0 {
		at = len(args)
	}
	out := w.ok(slices.Concat(args[:at], []string{"--json"}, args[at:])...)
	var v any
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		w.t.Fatalf("desk %s --json: not JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
	w.problems = append(w.problems, w.set.Add(answer, v)...)
	m, _ := v.(map[string]any)
	return m
}

// export files the shape of desk export, which always prints JSON.
func (w *shapeEnv) export() {
	w.t.Helper()
	var v any
	if err := json.Unmarshal([]byte(w.ok("export", "--project", "mygame")), &v); err != nil {
		w.t.Fatalf("export: %v", err)
	}
	w.problems = append(w.problems, w.set.Add("export", v)...)
}

// walk runs every command that prints JSON, on a desk that holds as little
// as each output allows, or with full set, as much as the commands can
// give it.
func (w *shapeEnv) walk(full bool) {
	w.t.Helper()
	w.json("projects", "projects")
	w.write("shot.png", pngBytes)
	w.write("handoff.md", []byte("## State\n\nok\n"))
	player := w.write("player", []byte("#!/bin/sh\nexit 0\n"))
	os.Chmod(player, 0o755)
	if err := os.MkdirAll(filepath.Join(w.dir, "repo"), 0o700); err != nil {
		w.t.Fatal(err)
	}
	w.json("link", "link")
	if !full {
		w.json("new-project", "new-project", "--slug", "mygame", "--prefix", "MG")
		w.json("project-set", "project-set", "--name", "My Game")
		w.json("link add", "link", "--project", "mygame", "--path", "repo")
		w.json("add", "add", "--title", "x")
		w.json("edit", "edit", "MG-1", "--priority", "p1")
		w.json("status", "status", "MG-1", "open")
		w.json("comment", "comment", "MG-1", "--text", "y")
		w.json("attach", "attach", "MG-1", "shot.png")
		w.json("plan", "plan", "MG-1", "--step", "one")
		w.json("step", "step", "MG-1", "1", "done")
		w.json("add", "add", "--title", "z")
		w.json("parent", "parent", "MG-2", "MG-1")
		w.json("merge", "merge", "MG-1", "MG-2")
		w.json("unmerge", "unmerge", "MG-2")
		w.json("handoff set", "handoff", "set", "--file", "handoff.md")
		w.json("handoff", "handoff", "section", "--section", "Traps", "--text", "none")
		w.json("build set", "build", "set", "--path", player)
		w.json("build action", "build", "open")
		w.json("build action", "build", "run")
		w.json("status", "status", "MG-1", "to_check", "--author", "owner")
		w.json("build action", "build", "open", "--issue", "MG-1")
		w.json("build clear", "build", "clear")
		w.json("send", "send", "--command", "/goto 1")
		w.write("items.json", []byte(`[{"title": "imported"}]`))
		w.json("import-json", "import-json", "items.json")
		w.walkClaims(false)
		w.walkPairs(false)
		w.walkSessions(false)
		w.reads()
		return
	}
	w.json("new-project", "new-project", "--slug", "mygame", "--name", "MyGame", "--prefix", "MG")
	w.json("new-project", "new-project", "--slug", "tools", "--name", "Tools", "--prefix", "TL")
	w.json("project-set", "project-set", "--project", "mygame", "--name", "My Game", "--default-seed", "7", "--notify", "verdicts,reports", "--lead", "claude")
	w.json("link add", "link", "--project", "mygame", "--path", "repo")
	w.json("add", "add", "--project", "mygame", "--title", "Lava tips are round", "--kind", "check", "--priority", "p1", "--area", "terrain",
		"--body", "The tips are **square**.", "--command", "/goto 1 2 3", "--label", "the rift", "--command", "/goto 4 5 6",
		"--seed", "1234", "--ref", "commit 5ea28d6", "--tags", "lava,terrain", "--attach", "shot.png", "--size", "S", "--milestone", "World 1")
	w.json("add", "add", "--project", "mygame", "--title", "Crane floats", "--area", "harbor", "--source", "game")
	w.json("add", "add", "--project", "mygame", "--title", "Lava tips square again")
	w.json("add", "add", "--project", "mygame", "--title", "Merged and back")
	w.json("edit", "edit", "MG-2", "--priority", "p0", "--tags", "crane", "--author", "owner")
	w.json("plan", "plan", "MG-1", "--step", "Round the tips", "--step", "Clamp", "--verification", "a shot of the rift")
	w.json("step", "step", "MG-1", "1", "done", "--commit", "abc", "--note", "rounded")
	w.json("step", "step", "MG-1", "2", "dropped")
	w.json("build set", "build", "set", "--project", "mygame", "--path", player, "--commit", "5ea28d6", "--label", "1.2.3")
	w.json("status", "status", "MG-1", "to_check")
	w.json("comment", "comment", "MG-1", "--text", "still square", "--author", "owner")
	w.json("comment", "comment", "MG-1", "--text", "looked", "--attach", "shot.png")
	w.json("attach", "attach", "MG-2", "shot.png", "--author", "owner")
	w.json("parent", "parent", "MG-2", "MG-1")
	w.json("merge", "merge", "MG-1", "MG-3")
	w.json("merge", "merge", "MG-1", "MG-4")
	w.json("unmerge", "unmerge", "MG-4")
	w.json("handoff set", "handoff", "set", "--project", "mygame", "--file", "handoff.md", "--note", "first")
	w.json("handoff", "handoff", "section", "--project", "mygame", "--section", "Traps", "--text", "none")
	w.json("build action", "build", "open", "--project", "mygame")
	w.json("build action", "build", "run", "--project", "mygame")
	w.json("build action", "build", "run", "--issue", "MG-1")
	w.json("send", "send", "--issue", "MG-1", "--at", "2")
	w.json("send", "send", "--project", "mygame", "--command", "/time set day")
	w.json("build set", "build", "set", "--project", "tools", "--path", "v2")
	w.json("build clear", "build", "clear", "--project", "tools", "--off")
	w.write("items.json", []byte(`{"projects": [{"slug": "tools", "name": "Tools", "prefix": "TL"}, {"slug": "extra", "name": "Extra", "prefix": "EX"}],
		"issues": [{"title": "imported", "project": "extra", "comments": [{"author": "owner", "text": "hi"}], "attachment_paths": ["shot.png"]}]}`))
	w.json("import-json", "import-json", "items.json")
	w.walkClaims(true)
	w.walkPairs(true)
	w.walkSessions(true)
	w.reads()
}

// reads runs every command that only reads, on a desk whose first project
// is mygame.
func (w *shapeEnv) reads() {
	w.t.Helper()
	w.json("projects", "projects")
	w.json("link", "link")
	w.json("list", "list", "--project", "mygame")
	w.json("list", "list", "--project", "mygame", "--status", "closed,passed,reported,to_check,failed,open,auto_check")
	w.json("list summary", "list", "--project", "mygame", "--summary", "--sort", "backlog")
	w.json("list q", "list", "--project", "mygame", "--q", "lava")
	w.json("list q", "list", "--project", "mygame", "--q", "nothing-like-this")
	w.json("show", "show", "MG-1")
	w.json("show", "show", "MG-2")
	w.json("suggest-groups", "suggest-groups", "--project", "mygame")
	w.json("handoff", "handoff", "show", "--project", "mygame")
	w.json("handoff history", "handoff", "history", "--project", "mygame")
	w.json("handoff diff", "handoff", "diff", "--project", "mygame")
	w.json("build show", "build", "show", "--project", "mygame")
	w.export()
	w.readAreas()
}
