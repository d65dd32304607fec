package hook_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"desk/code"
	"desk/code/folderstore"
)

// The session-start summary of an agent working in a work folder names the
// open changes of other folders that touch the same files; in a folder
// whose open change overlaps nothing, it says nothing of them.
func TestSessionStartNamesOverlaps(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	svc := code.NewService(f.db.Code(), folderstore.New(filepath.Join(f.data, "code")))
	repo, err := svc.CreateRepo(ctx, "acme/game", "mygame")
	if err != nil {
		t.Fatal(err)
	}
	r := svc.Repository(repo)
	base, _ := r.Commit(ctx, []code.FileData{{Path: "src/a.ts", Data: []byte("a\n")}, {Path: "src/b.ts", Data: []byte("b\n")}}, code.Meta{Author: "owner", Message: "base"})
	r.Land(ctx, base.ID, "owner")
	mine, _ := r.Commit(ctx, []code.FileData{{Path: "src/a.ts", Data: []byte("mine\n")}, {Path: "src/b.ts", Data: []byte("b\n")}}, code.Meta{Parents: []code.ID{base.ID}, Author: "agent-one", Message: "mine"})
	theirs, _ := r.Commit(ctx, []code.FileData{{Path: "src/a.ts", Data: []byte("theirs\n")}, {Path: "src/b.ts", Data: []byte("b\n")}}, code.Meta{Parents: []code.ID{base.ID}, Author: "agent-two", Message: "theirs", Intents: []string{"MG-4"}})
	if _, err := r.IndexOpen(ctx, mine.ID, "ws-one"); err != nil {
		t.Fatal(err)
	}
	if _, err := r.IndexOpen(ctx, theirs.ID, "ws-two"); err != nil {
		t.Fatal(err)
	}
	work := func(ws string) {
		os.MkdirAll(filepath.Join(f.repo, code.WorkDir), 0o755)
		b, _ := json.Marshal(code.WorkFile{Repo: "acme/game", Workspace: ws})
		os.WriteFile(filepath.Join(f.repo, code.WorkDir, "work.json"), b, 0o600)
	}
	work("ws-one")
	var a claudeAnswer
	if err := json.Unmarshal([]byte(f.start("claude", "s1")), &a); err != nil {
		t.Fatal(err)
	}
	want := "warning: the open change " + theirs.ID.Short() + " of agent-two for MG-4 also changes src/a.ts"
	if !strings.Contains(a.HookSpecificOutput.AdditionalContext, want) {
		t.Fatalf("the session-start context lacks the overlap:\n%s", a.HookSpecificOutput.AdditionalContext)
	}
	if !strings.Contains(a.HookSpecificOutput.AdditionalContext, "MyGame") {
		t.Fatalf("the overlap replaced the project's summary:\n%s", a.HookSpecificOutput.AdditionalContext)
	}
	// The other folder's agent hears of this one's open change.
	work("ws-two")
	if err := json.Unmarshal([]byte(f.start("claude", "s3")), &a); err != nil {
		t.Fatal(err)
	}
	if want := "warning: the open change " + mine.ID.Short() + " of agent-one also changes src/a.ts"; !strings.Contains(a.HookSpecificOutput.AdditionalContext, want) {
		t.Fatalf("the other folder's session-start context lacks the overlap:\n%s", a.HookSpecificOutput.AdditionalContext)
	}
	work("ws-three")
	out := f.start("claude", "s2")
	if strings.Contains(out, "open change") {
		t.Fatalf("a folder with no open change was warned: %s", out)
	}
}
