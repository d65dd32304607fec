package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"desk"
)

// normalize drops what differs between two desks holding the same project:
// the export's time, row ids, and where attachment files live.
func normalize(t *testing.T, data []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(x any)
	walk = func(x any) {
		switch x := x.(type) {
		case map[string]any:
			for _, k := range []string{"exported_at", "id", "comment_id", "url", "file", "attachment", "command_id"} {
				delete(x, k)
			}
			for _, v := range x {
				walk(v)
			}
		case []any:
			for _, v := range x {
				walk(v)
			}
		}
	}
	walk(v)
	return v
}

func TestExportImportedIntoAnEmptyDeskGivesTheSameProjectBack(t *testing.T) {
	e := projectEnv(t)
	e.write("shot.png", pngBytes)
	e.ok("add", "--title", "Lava tips are round", "--kind", "check", "--command", "/goto 1 2 3", "--label", "harbor", "--attach", "shot.png", "--tags", "lava")
	e.ok("add", "--title", "Lava tips look round", "--body", "dup", "--author", "owner")
	e.ok("add", "--title", "World 1", "--kind", "task", "--milestone", "World 1", "--size", "L")
	e.ok("comment", "MG-1", "--author", "owner", "--text", "still square", "--verdict", "failed", "--attach", "shot.png")
	e.ok("plan", "MG-1", "--step", "Round", "--step", "Clamp", "--verification", "shot")
	e.ok("step", "MG-1", "1", "done", "--commit", "abc")
	e.ok("parent", "MG-1", "MG-3")
	e.ok("merge", "MG-1", "MG-2")
	e.ok("send", "MG-1")
	e.ok("build", "set", "--path", "nightly-12", "--label", "n12")
	e.ok("handoff", "section", "--section", "state", "--text", "lava in progress")
	e.ok("handoff", "section", "--section", "traps", "--text", "none")
	e.ok("project-set", "--default-seed", "77", "--notify", "verdicts")
	e.ok("export", "--project", "mygame", "--out", "mygame.json")
	first, err := os.ReadFile(filepath.Join(e.dir, "mygame.json"))
	if err != nil {
		t.Fatal(err)
	}

	other := newEnv(t)
	other.dir = e.dir
	out := other.ok("import-json", "mygame.json")
	if !strings.Contains(out, "Imported 3 issue(s)") {
		t.Fatalf("import: %s", out)
	}
	second := []byte(other.ok("export", "--project", "mygame"))
	if a, b := normalize(t, first), normalize(t, second); !reflect.DeepEqual(a, b) {
		ab, _ := json.MarshalIndent(a, "", " ")
		bb, _ := json.MarshalIndent(b, "", " ")
		t.Fatalf("the project came back different:\n--- exported\n%s\n--- after import\n%s", ab, bb)
	}
	// Attachment bytes came along, on this machine.
	var d desk.IssueDetail
	other.okJSON(&d, "show", "MG-2")
	if d.ID != "MG-1" || len(d.Attachments) != 2 {
		t.Fatalf("imported MG-2 redirects to %s with %d attachments", d.ID, len(d.Attachments))
	}
	// Unmerge works on the imported merge.
	other.ok("unmerge", "MG-2")
	// Importing the export again adds nothing.
	out = other.ok("import-json", "mygame.json")
	if !strings.Contains(out, "Imported 0 issue(s)") {
		t.Fatalf("second import: %s", out)
	}
}

func TestImportJSONListsSkipKnownRefsAndReadAttachmentPaths(t *testing.T) {
	e := projectEnv(t)
	os.MkdirAll(filepath.Join(e.dir, "seed", "shots"), 0o700)
	e.write("seed/shots/a.png", pngBytes)
	e.write("seed/checks.json", []byte(`[
		{"title": "Lava tips", "kind": "check", "external_ref": "TODO: lava", "commands": ["/goto 1 2 3"],
		 "size": "S", "milestone": "World 1", "attachment_paths": ["shots/a.png"],
		 "comments": [{"author": "owner", "text": "please check", "verdict": "failed"}]},
		{"title": "Parked idea", "kind": "idea", "status": "parked", "external_ref": "TODO: idea"}
	]`))
	var res struct {
		Created, Skipped, Comments, Attachments int
		Issues                                  []string
	}
	e.okJSON(&res, "import-json", "seed/checks.json")
	if res.Created != 2 || res.Comments != 1 || res.Attachments != 1 {
		t.Fatalf("first import %+v", res)
	}
	var d desk.IssueDetail
	e.okJSON(&d, "show", res.Issues[0])
	if d.Status != desk.StatusFailed || d.Size != "S" || len(d.Attachments) != 1 {
		t.Fatalf("imported check %+v", d.Issue)
	}
	e.okJSON(&res, "import-json", "seed/checks.json")
	if res.Created != 0 || res.Skipped != 2 {
		t.Fatalf("second import %+v", res)
	}

	// The object form creates its projects.
	e.write("more.json", []byte(`{"projects": [{"slug": "other", "name": "Other", "prefix": "OT"}],
		"issues": [{"title": "In other", "project": "other"}, {"title": "Also other"}]}`))
	e.okJSON(&res, "import-json", "more.json")
	if res.Created != 2 || res.Issues[0] != "OT-1" || res.Issues[1] != "OT-2" {
		t.Fatalf("object form %+v", res)
	}

	// Bad items change nothing, even when earlier items are fine.
	before := state(t, e.data)
	e.write("bad1.json", []byte(`[{"title": "fine", "project": "mygame"}, {"title": "bad", "project": "mygame", "priority": "urgent"}]`))
	e.write("bad2.json", []byte(`[{"title": "fine", "project": "mygame"}, {"title": "x", "project": "mygame", "attachment_paths": ["missing.png"]}]`))
	e.write("bad3.json", []byte(`[{"title": "fine", "project": "nope"}]`))
	e.write("bad4.json", []byte(`{"issues": [{"title": "x", "project": "mygame", "comments": [{"author": "claude", "verdict": "passed"}]}]}`))
	e.write("bad5.json", []byte(`[{"title": "x"`))
	e.fails(3, "priority", "import-json", "bad1.json")
	e.fails(3, "missing.png: no such file", "import-json", "bad2.json")
	e.fails(4, "no project", "import-json", "bad3.json")
	e.fails(6, "only the owner", "import-json", "bad4.json")
	e.fails(3, "not valid JSON", "import-json", "bad5.json")
	e.fails(3, "no such file", "import-json", "absent.json")
	if state(t, e.data) != before {
		t.Fatal("a refused import changed the desk")
	}
}

func TestImportPairDeskCommand(t *testing.T) {
	e := newEnv(t)
	e.fails(4, "not a Pair Desk data folder", "import-pair-desk", e.dir)
	if _, err := os.Stat(e.data); !os.IsNotExist(err) {
		t.Fatal("a refused import created the data folder")
	}
}
