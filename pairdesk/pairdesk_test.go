package pairdesk_test

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"desk"
	"desk/link"
	"desk/pairdesk"
	"desk/sqlite"
)

// pairDeskSchema is Pair Desk's schema 6 as its data model describes it.
const pairDeskSchema = `
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE projects(id INTEGER PRIMARY KEY, slug TEXT NOT NULL UNIQUE, name TEXT NOT NULL, prefix TEXT NOT NULL UNIQUE,
	next_number INTEGER NOT NULL DEFAULT 1, created_at TEXT NOT NULL, default_seed INTEGER, notify TEXT NOT NULL DEFAULT '{}',
	build TEXT NOT NULL DEFAULT '{}');
CREATE TABLE issues(id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL REFERENCES projects(id), number INTEGER NOT NULL,
	title TEXT NOT NULL, body TEXT NOT NULL DEFAULT '', kind TEXT NOT NULL, status TEXT NOT NULL, priority TEXT NOT NULL,
	area TEXT NOT NULL DEFAULT '', tags TEXT NOT NULL DEFAULT '[]', location TEXT NOT NULL DEFAULT '{}', source TEXT NOT NULL,
	external_ref TEXT NOT NULL DEFAULT '', created_at TEXT NOT NULL, updated_at TEXT NOT NULL, closed_at TEXT,
	plan TEXT NOT NULL DEFAULT '{}', parent_id INTEGER, merged_into INTEGER, size TEXT NOT NULL DEFAULT '',
	milestone TEXT NOT NULL DEFAULT '', build TEXT NOT NULL DEFAULT '{}', UNIQUE(project_id, number));
CREATE TABLE comments(id INTEGER PRIMARY KEY, issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
	author TEXT NOT NULL, text TEXT NOT NULL DEFAULT '', verdict TEXT, created_at TEXT NOT NULL, merged_from INTEGER);
CREATE TABLE attachments(id INTEGER PRIMARY KEY, issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
	comment_id INTEGER REFERENCES comments(id) ON DELETE SET NULL, filename TEXT NOT NULL, mime TEXT NOT NULL,
	size INTEGER NOT NULL, stored_path TEXT NOT NULL, created_at TEXT NOT NULL, merged_from INTEGER);
CREATE TABLE activity(id INTEGER PRIMARY KEY, issue_id INTEGER NOT NULL REFERENCES issues(id) ON DELETE CASCADE,
	actor TEXT NOT NULL, action TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '{}', created_at TEXT NOT NULL, merged_from INTEGER);
CREATE TABLE commands(id INTEGER PRIMARY KEY, project_id INTEGER NOT NULL REFERENCES projects(id),
	issue_id INTEGER REFERENCES issues(id) ON DELETE SET NULL, command TEXT NOT NULL, created_by TEXT NOT NULL DEFAULT 'owner',
	created_at TEXT NOT NULL, expires_at TEXT NOT NULL, delivered_at TEXT, client TEXT);
CREATE TABLE handoffs(id INTEGER PRIMARY KEY AUTOINCREMENT, project_id INTEGER NOT NULL REFERENCES projects(id),
	version INTEGER NOT NULL, markdown TEXT NOT NULL, author TEXT NOT NULL, note TEXT NOT NULL DEFAULT '',
	created_at TEXT NOT NULL, UNIQUE(project_id, version));
INSERT INTO meta VALUES ('schema', '6');
PRAGMA journal_mode = WAL;
`

// pairDeskRows is a small Pair Desk: one project whose row ids differ
// from the numbers, a merge, a parent, a verdict, attachments on an issue
// and a comment, a delivered command, two handoff versions and a build.
const pairDeskRows = `
INSERT INTO projects VALUES (7, 'mygame', 'MyGame', 'MG', 13, '2026-01-02T03:04:05.006Z', 1234,
	'{"comments": false}', '{"current": {"number": 3, "label": "nightly 3", "path": "D:/builds/MyGame.exe", "built_at": "2026-03-01T00:00:00.000Z", "set_at": "2026-03-01T00:00:00.000Z", "set_by": "owner"}, "count": 3}');
INSERT INTO issues VALUES (101, 7, 4, 'Lava tips are square', 'The **tips**', 'check', 'failed', 'p1', 'terrain', '["lava"]',
	'{"command": "/goto 1 2 3", "commands": [{"command": "/goto 1 2 3", "label": "harbor"}], "seed": 99, "biome": "ember"}',
	'agent', 'TODO: lava', '2026-02-01T10:00:00.000Z', '2026-02-03T10:00:00.000Z', NULL,
	'{"steps": [{"text": "Round", "state": "done", "commit": "abc"}, {"text": "Clamp", "state": "todo"}], "verification": "shot 12"}',
	NULL, NULL, 'M', 'World 1', '{"number": 3, "label": "nightly 3", "path": "D:/builds/MyGame.exe", "built_at": "2026-03-01T00:00:00.000Z"}');
INSERT INTO issues VALUES (102, 7, 9, 'Lava tips look square', '', 'bug', 'closed', 'p2', '', '[]', '{}', 'owner', '',
	'2026-02-02T10:00:00.000Z', '2026-02-04T10:00:00.000Z', '2026-02-04T10:00:00.000Z', '{}', NULL, 101, '', '', '{}');
INSERT INTO issues VALUES (103, 7, 12, 'World 1 polish', '', 'task', 'open', 'p3', '', '[]', '{}', 'owner', '',
	'2026-02-05T10:00:00.000Z', '2026-02-05T10:00:00.000Z', NULL, '{}', NULL, NULL, '', '', '{}');
UPDATE issues SET parent_id = 103 WHERE id = 101;
INSERT INTO comments VALUES (501, 101, 'claude', 'Fixed in abc', NULL, '2026-02-02T11:00:00.000Z', NULL);
INSERT INTO comments VALUES (502, 101, 'owner', 'still square', 'failed', '2026-02-03T10:00:00.000Z', NULL);
INSERT INTO comments VALUES (503, 101, 'owner', 'same here', NULL, '2026-02-03T12:00:00.000Z', 102);
INSERT INTO attachments VALUES (801, 101, NULL, 'shot.png', 'image/png', 12, 'attachments/mygame/2026-02/aa.png', '2026-02-01T10:00:00.000Z', NULL);
INSERT INTO attachments VALUES (802, 101, 502, 'east.png', 'image/png', 12, 'attachments/mygame/2026-02/bb.png', '2026-02-03T10:00:00.000Z', NULL);
INSERT INTO commands VALUES (901, 7, 101, '/goto 1 2 3 seed 99', 'owner', '2026-02-03T09:00:00.000Z', '2026-02-03T09:10:00.000Z', '2026-02-03T09:00:02.000Z', 'mygame-client');
INSERT INTO activity VALUES (601, 101, 'claude', 'created', '{"status": "to_check"}', '2026-02-01T10:00:00.000Z', NULL);
INSERT INTO activity VALUES (602, 101, 'owner', 'attached', '{"filename": "shot.png", "attachment": 801}', '2026-02-01T10:00:00.000Z', NULL);
INSERT INTO activity VALUES (603, 101, 'owner', 'command_sent', '{"command": "/goto 1 2 3 seed 99", "command_id": 901}', '2026-02-03T09:00:00.000Z', NULL);
INSERT INTO activity VALUES (604, 102, 'owner', 'merged_into', '{"into": "MG-4", "prev_status": "reported", "children": []}', '2026-02-04T10:00:00.000Z', NULL);
INSERT INTO activity VALUES (605, 101, 'owner', 'merged', '{"from": "MG-9"}', '2026-02-04T10:00:00.000Z', NULL);
INSERT INTO handoffs VALUES (1, 7, 1, '## State\n\nfirst', 'claude', '', '2026-02-01T00:00:00.000Z');
INSERT INTO handoffs VALUES (2, 7, 2, '## State\n\nsecond', 'codex', 'updated State', '2026-02-02T00:00:00.000Z');
`

// makePairDesk writes a Pair Desk data folder.
func makePairDesk(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, pairdesk.DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(pairDeskSchema + pairDeskRows); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"aa.png": "\x89PNG\r\n\x1a\nAAAA", "bb.png": "\x89PNG\r\n\x1a\nBBBB"} {
		p := filepath.Join(dir, "attachments", "mygame", "2026-02", name)
		os.MkdirAll(filepath.Dir(p), 0o700)
		os.WriteFile(p, []byte(data), 0o600)
	}
	link.Write(dir, filepath.Join(dir, "repo"), "mygame")
	return dir
}

// checksums hashes every file of a folder.
func checksums(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && filepath.Ext(p) != ".sqlite-shm" {
			b, _ := os.ReadFile(p)
			s := sha256.Sum256(b)
			out[p] = hex.EncodeToString(s[:])
		}
		return nil
	})
	return out
}

func TestImportBringsEverythingWithIdsTimesAndAuthors(t *testing.T) {
	ctx := context.Background()
	src := makePairDesk(t)
	before := checksums(t, src)
	data := t.TempDir()
	db, err := sqlite.Open(ctx, data, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := pairdesk.Import(ctx, db, data, src)
	if err != nil {
		t.Fatal(err)
	}
	if res.Projects != 1 || res.Issues != 3 || res.Comments != 3 || res.Attachments != 2 || res.Activity != 5 ||
		res.Commands != 1 || res.Handoffs != 2 || res.Links != 1 {
		t.Fatalf("counts %+v", res)
	}
	p, err := db.Project(ctx, "mygame")
	if err != nil {
		t.Fatal(err)
	}
	if p.Prefix != "MG" || p.IssueCount != 12 || p.DefaultSeed == nil || *p.DefaultSeed != 1234 || p.Notify.Comments || !p.Notify.Verdicts ||
		p.Build == nil || p.Build.Number != 3 || !p.BuildsEnabled || p.CreatedAt != "2026-01-02T03:04:05.006Z" {
		t.Fatalf("project %+v", p.Project)
	}
	d, err := db.Issue(ctx, "MG-4")
	if err != nil {
		t.Fatal(err)
	}
	if d.Title != "Lava tips are square" || d.Status != "failed" || d.CreatedAt != "2026-02-01T10:00:00.000Z" || d.Size != "M" ||
		d.Location.Extra["biome"] != "ember" || d.Location.Commands[0].Label != "harbor" || d.Progress != (desk.Progress{Done: 1, Total: 2}) ||
		d.Build == nil || d.Build.Label != "nightly 3" || d.Parent == nil || *d.Parent != "MG-12" || d.ExternalRef != "TODO: lava" {
		t.Fatalf("MG-4 %+v", d.Issue)
	}
	if len(d.Comments) != 3 || d.Comments[1].Verdict == nil || *d.Comments[1].Verdict != "failed" || d.Comments[0].Author != "claude" ||
		d.Comments[2].MergedFrom == nil || *d.Comments[2].MergedFrom != "MG-9" || d.LastVerdict == nil {
		t.Fatalf("comments %+v", d.Comments)
	}
	if len(d.Attachments) != 2 || d.Comments[1].Attachments[0].Filename != "east.png" {
		t.Fatalf("attachments %+v", d.Attachments)
	}
	_, f, err := db.OpenAttachment(ctx, d.Attachments[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := f.Read(buf)
	f.Close()
	if string(buf[:n]) != "\x89PNG\r\n\x1a\nAAAA" {
		t.Fatalf("attachment bytes %q", buf[:n])
	}
	var attached map[string]any
	for _, a := range d.Activity {
		if a.Action == "attached" {
			if err := json.Unmarshal(a.Detail, &attached); err != nil {
				t.Fatal(err)
			}
		}
	}
	if int64(attached["attachment"].(float64)) != d.Attachments[0].ID {
		t.Fatalf("the attached entry names attachment %v, the desk has %d", attached["attachment"], d.Attachments[0].ID)
	}
	if len(d.Commands) != 1 || d.Commands[0].State != "delivered" || *d.Commands[0].Client != "mygame-client" {
		t.Fatalf("commands %+v", d.Commands)
	}
	m, err := db.Issue(ctx, "MG-9")
	if err != nil || m.ID != "MG-4" || m.RedirectedFrom != "MG-9" {
		t.Fatalf("a merged Pair Desk issue redirects: %v %v", m, err)
	}
	h, _ := db.HandoffHistory(ctx, "mygame")
	if len(h) != 2 || h[0].Author != "codex" || h[1].CreatedAt != "2026-02-01T00:00:00.000Z" {
		t.Fatalf("handoffs %+v", h)
	}
	// The next issue takes the next number Pair Desk would have given.
	is, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("new")}, desk.CreateOptions{})
	if err != nil || is.ID != "MG-13" {
		t.Fatalf("next issue %v %v", is, err)
	}
	links, _ := link.Read(data)
	if links[filepath.Join(src, "repo")] != "mygame" {
		t.Fatalf("links %v", links)
	}

	// A second run adds nothing; the source never changes.
	again, err := pairdesk.Import(ctx, db, data, src)
	if err != nil {
		t.Fatal(err)
	}
	if again.Issues != 0 || again.Comments != 0 || again.Links != 0 || len(again.Skipped) != 1 {
		t.Fatalf("second import %+v", again)
	}
	after := checksums(t, src)
	keys := func(m map[string]string) []string {
		var k []string
		for p := range m {
			k = append(k, p)
		}
		sort.Strings(k)
		return k
	}
	if len(keys(before)) != len(keys(after)) {
		t.Fatalf("the source's files changed: %v -> %v", keys(before), keys(after))
	}
	for p, sum := range before {
		if after[p] != sum {
			t.Fatalf("the import changed %s", p)
		}
	}
}

func TestImportRefusesAFolderWithoutPairDesk(t *testing.T) {
	ctx := context.Background()
	data := t.TempDir()
	db, _ := sqlite.Open(ctx, data, sqlite.Options{})
	defer db.Close()
	if _, err := pairdesk.Import(ctx, db, data, t.TempDir()); desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("err %v", err)
	}
	junk := t.TempDir()
	os.WriteFile(filepath.Join(junk, pairdesk.DBName), []byte("not sqlite"), 0o600)
	if _, err := pairdesk.Import(ctx, db, data, junk); err == nil {
		t.Fatal("a junk desk.sqlite was imported")
	}
	ps, _ := db.Projects(ctx)
	if len(ps) != 0 {
		t.Fatal("a failed import left projects")
	}
}

func ptr[T any](v T) *T { return &v }
