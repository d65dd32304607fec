package web_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	deskhttp "desk/http"
	"desk/internal/reap"
	"desk/internal/testdesk"
	"desk/pair"
	"desk/session"
	"desk/sqlite"
)

// When the pair's agents run in managed sessions, the Pair view shows
// their terminals beside the conversation, read from the session's screen
// and kept fresh while the view is open.
func TestThePairViewShowsTheMembersTerminals(t *testing.T) {
	bin := buildCLI(t)
	dir := t.TempDir()
	reap.Under(t, dir)
	var m *session.Manager
	d := testdesk.StartWith(t, dir, func(db *sqlite.DB) deskhttp.Options {
		m = &session.Manager{Store: db, DataDir: dir, DeskBin: bin,
			Environ: []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "LANG=C.UTF-8"}}
		return deskhttp.Options{Terminals: &deskhttp.Terminals{Manager: m}}
	})
	s := seedSample(t, d.DB)
	ctx := context.Background()
	svc := &pair.Service{Store: d.DB, PatchRoot: pair.PatchRootIn(dir)}
	folder := filepath.Join(dir, "work")
	os.MkdirAll(folder, 0o700)
	p, err := svc.New(ctx, pair.NewInput{Project: "mygame", Folder: folder, Task: "fix the lava tips", Members: []string{"claude", "codex"}})
	if err != nil {
		t.Fatal(err)
	}
	// The stand-ins for the agents: shells that print and then count.
	sessions := map[string]string{}
	for _, role := range []string{"claude", "codex"} {
		sess, err := m.Launch(ctx, session.Request{Kind: "custom", Cwd: folder, Cols: 80, Rows: 12,
			Command: []string{"/bin/bash", "-c", `echo "agent $DESK_PAIR_ROLE ready"; for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20; do sleep 0.5; echo "tick $i"; done; sleep 30`},
			Env:     map[string]string{pair.EnvPair: p.ID, pair.EnvRole: role}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Stop(context.Background(), sess.ID, true) })
		if _, err := svc.Seat(ctx, p.ID, role, sess.ID); err != nil {
			t.Fatal(err)
		}
		sessions[role] = sess.ID
	}

	page := openPage(t, d, "/#/mygame/~pair")
	page.waitRow(s.Check)
	page.waitFor("the pair view", `!!document.querySelector('.pair-view[data-pair="`+p.ID+`"]')`)
	for role, id := range sessions {
		sel := `.pair-terminal[data-role="` + role + `"] .pair-screen[data-session="` + id + `"]`
		page.waitFor(role+"'s terminal", `document.querySelector('`+sel+`')?.textContent.includes('agent `+role+` ready')`)
		// Live: the screen moves on while the view stays open.
		page.waitFor(role+"'s later screen", `document.querySelector('`+sel+`')?.textContent.includes('tick 4')`)
	}
	if got := eval[string](page, `document.querySelector('.pair-members').innerText`); !strings.Contains(got, "starting") {
		t.Errorf("a seated member that has not called yet reads %q", got)
	}
	if !eval[bool](page, `!!document.querySelector('.pair-body.with-terminals .pair-conversation')`) {
		t.Error("the terminals are not beside the conversation")
	}
	page.checkConsole()
}
