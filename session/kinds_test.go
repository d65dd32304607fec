package session_test

import (
	"bufio"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk/internal/agentcli"
)

// fakeCLI writes a stand-in for an agent CLI that prints its arguments
// and the variables a launch sets, then waits.
func fakeCLI(t *testing.T, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	script := `#!/bin/sh
echo "args: $*"
echo "launch: $DESK_SESSION_ID gen $DESK_SESSION_GENERATION data $DESK_DATA"
echo "profile: $CLAUDE_CONFIG_DIR$CODEX_HOME$PI_CODING_AGENT_DIR"
echo "opencode: $OPENCODE_CONFIG_CONTENT"
echo "term: $TERM $COLORTERM"
exec sleep 3600
`
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// Each kind launches with its own flags and variables: hooks for this
// launch, the permission bypass, the resume id, the profile folder, and
// desk's own variables.
func TestKindsLaunchWithTheirFlags(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	for _, k := range []string{"claude", "codex", "opencode", "qwen", "kimi", "pi"} {
		w.setenv(agentBin(k), fakeCLI(t, k))
	}
	srv := w.serve()
	const uuid = "0b4ad3c6-8f15-4c63-9a1e-2d7f1e6a9c01"
	cases := []struct {
		body string
		want []string
	}{
		{`{"kind":"claude","cwd":"` + w.data + `","bypass":true,"resume":"` + uuid + `","profile":"work","args":["--model","x"]}`,
			[]string{"args: --settings " + filepath.Join(w.data, "hooks", "claude-settings.json") + " --dangerously-skip-permissions --resume " + uuid + " --model x",
				"profile: " + filepath.Join(w.data, "profiles", "work"), "gen 1 data " + w.data, "term: xterm-256color truecolor"}},
		{`{"kind":"codex","cwd":"` + w.data + `","bypass":true,"resume":"` + uuid + `","profile":"p2"}`,
			[]string{"args: resume " + uuid + " --dangerously-bypass-approvals-and-sandbox", "profile: " + filepath.Join(w.data, "profiles", "p2")}},
		{`{"kind":"opencode","cwd":"` + w.data + `","bypass":true,"resume":"ses_abc123XYZ"}`,
			[]string{"args: --session ses_abc123XYZ", `opencode: {"permission":{"*":"allow"}}`}},
		{`{"kind":"opencode","cwd":"` + w.data + `"}`, []string{`opencode: {"permission":{"*":"ask"}}`}},
		{`{"kind":"qwen","cwd":"` + w.data + `","bypass":true}`, []string{"args: --yolo"}},
		{`{"kind":"kimi","cwd":"` + w.data + `","bypass":true,"resume":"session_1a2b"}`, []string{"args: --yolo --session session_1a2b"}},
		{`{"kind":"pi","cwd":"` + w.data + `","resume":"` + uuid + `","profile":"pi"}`,
			[]string{"args: --session-id " + uuid, "profile: " + filepath.Join(w.data, "profiles", "pi")}},
	}
	for _, c := range cases {
		s := srv.launch(strings.Replace(c.body, `{"kind"`, `{"cols":250,"rows":30,"kind"`, 1))
		got := srv.waitScreen(s.ID, "term:", 10*time.Second)
		if !strings.Contains(got, "launch: "+s.ID) {
			t.Errorf("%s: no DESK_SESSION_ID:\n%s", c.body, got)
		}
		for _, want := range c.want {
			if !strings.Contains(strings.Join(strings.Fields(got), " "), strings.Join(strings.Fields(want), " ")) {
				t.Errorf("%s: the screen lacks %q:\n%s", c.body, want, got)
			}
		}
		srv.api(200, "DELETE", "/api/sessions/"+s.ID+"?kill=1", "", nil)
	}
	settings, err := os.ReadFile(filepath.Join(w.data, "hooks", "claude-settings.json"))
	if err != nil || !strings.Contains(string(settings), "hook event --client claude") || !strings.Contains(string(settings), "PermissionRequest") {
		t.Errorf("desk's Claude settings file: %v\n%s", err, settings)
	}
	if fi, err := os.Stat(filepath.Join(w.data, "profiles", "work")); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("the profile folder: %v %v", fi, err)
	}
}

// desk attach in a real terminal: the snapshot first, typing goes
// through, Ctrl-] detaches and the session keeps running.
func TestAttachInATerminalDetachesWithCtrlBracket(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id := strings.TrimSpace(w.must("run", "bash", "--cwd", w.data))
	w.must("type", id, "echo before-$((2*4))", "--enter")
	waitCLI(t, w, id, "before-8", 5*time.Second)
	cmd := exec.Command(deskBin, "attach", id)
	cmd.Env = w.env
	term := agentcli.StartTermSize(t, cmd, 30, 100)
	term.WaitFor("Ctrl-] detaches", 10*time.Second)
	term.WaitFor("before-8", 10*time.Second)
	term.Type("echo during-$((3*3))\r")
	term.WaitFor("during-9", 10*time.Second)
	term.Press("\x1d")
	term.WaitFor("it keeps running", 10*time.Second)
	if code, err := term.WaitExit(10 * time.Second); code != 0 || err != nil {
		t.Errorf("desk attach exited %d, %v", code, err)
	}
	waitCLI(t, w, id, "during-9", 5*time.Second)
	// The attached terminal's size became the session's.
	w.must("type", id, "stty size", "--enter")
	waitCLI(t, w, id, "30 100", 5*time.Second)
}

// Session changes ride the live streams as change entries of type
// "session".
func TestSessionChangesRideTheEventStream(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv := w.serve()
	req, _ := http.NewRequest("GET", srv.base+"/api/events", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	got := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if l := sc.Text(); strings.Contains(l, `"type":"session"`) {
				got <- l
				return
			}
		}
	}()
	time.Sleep(100 * time.Millisecond)
	s := srv.launch(`{"kind": "bash", "cwd": "` + w.data + `"}`)
	select {
	case l := <-got:
		if !strings.Contains(l, `"actor":"`+s.ID+`"`) {
			t.Errorf("the change entry does not name the session: %s", l)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no session change on the event stream")
	}
	srv.api(200, "DELETE", "/api/sessions/"+s.ID+"?kill=1", "", nil)
}
