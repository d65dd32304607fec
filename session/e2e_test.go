package session_test

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"desk/agent/intake"
)

// The command line works with no server: run, type, read the screen,
// stop; the holder is its own process, detached.
func TestBashSessionFromTheCommandLineWithoutAServer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id := strings.TrimSpace(w.must("run", "bash", "--cwd", w.data, "--name", "shell"))
	if !strings.HasPrefix(id, "s-") {
		t.Fatalf("desk run printed %q, want a session id", id)
	}
	waitCLI(t, w, id, "@", 5*time.Second)
	w.must("type", id, "echo from-cli-$((40+2))", "--enter")
	waitCLI(t, w, id, "from-cli-42", 5*time.Second)

	var scr struct {
		Cols, Rows int
		Cursor     struct{ Row, Col int }
		Lines      []string
	}
	json.Unmarshal([]byte(w.must("screen", "--json", id)), &scr)
	if scr.Cols != 80 || scr.Rows != 24 || len(scr.Lines) != 24 {
		t.Errorf("screen --json = %+v", scr)
	}
	if ansi := w.must("screen", "--ansi", id); !strings.Contains(ansi, "from-cli-42") || !strings.Contains(ansi, "\x1b[") {
		t.Errorf("screen --ansi = %q", ansi)
	}
	// The holder is detached: its own session and process group.
	pid := holderPID(t, w.data, id)
	sid, _ := unix.Getsid(pid)
	pgid, _ := syscall.Getpgid(pid)
	if sid != pid || pgid != pid {
		t.Errorf("holder %d: session %d, group %d; want its own", pid, sid, pgid)
	}
	fi, err := os.Stat(filepath.Join(w.data, "sessions"))
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("sessions folder mode %v (%v), want 0700", fi.Mode().Perm(), err)
	}
	if fi, err := os.Stat(filepath.Join(w.data, "sessions", id+".sock")); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket mode %v (%v), want 0600", fi.Mode().Perm(), err)
	}
	out := w.must("stop-session", id)
	if !strings.Contains(out, "stopped") {
		t.Errorf("stop-session said %q", out)
	}
	list := w.must("sessions", "--all", "--json")
	if !strings.Contains(list, `"state":"exited"`) || !strings.Contains(list, `"exit_reason":"stopped"`) {
		t.Errorf("after the stop: %s", list)
	}
	if out := w.must("sessions"); strings.Contains(out, id) {
		t.Errorf("desk sessions still lists the stopped session:\n%s", out)
	}
	// The last screen stays readable.
	if out := w.must("screen", id); !strings.Contains(out, "from-cli-42") {
		t.Errorf("the last screen of the exited session:\n%s", out)
	}
	// Bad input: input to an exited session is a conflict.
	if _, errs, code := w.desk("type", id, "x"); code != 5 || !strings.Contains(errs, "exited") {
		t.Errorf("typing into an exited session: exit %d, %s", code, errs)
	}
}

func waitCLI(t testing.TB, w *world, id, text string, d time.Duration) string {
	t.Helper()
	deadline := time.Now().Add(d)
	var last string
	for time.Now().Before(deadline) {
		last, _, _ = w.desk("screen", id)
		if strings.Contains(last, text) {
			return last
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("session %s never showed %q:\n%s", id, text, last)
	return ""
}

// A bash session survives the server stopping and being killed with -9:
// after each restart the server re-attaches, and a new viewer finds the
// same screen, byte for byte.
func TestBashSessionSurvivesServerRestartsByteForByte(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv := w.serve()
	s := srv.launch(`{"kind": "bash", "cwd": "` + w.data + `"}`)
	srv.waitScreen(s.ID, "@", 5*time.Second)
	var ok map[string]bool
	srv.api(200, "POST", "/api/sessions/"+s.ID+"/input", `{"text": "printf '\\033[1;31mred\\033[0m and plain %s\\n' survives-$((1+1))"}`, &ok)
	srv.api(200, "POST", "/api/sessions/"+s.ID+"/input", `{"keys": ["enter"]}`, &ok)
	srv.waitScreen(s.ID, "red and plain survives-2", 5*time.Second)
	time.Sleep(200 * time.Millisecond) // the prompt after it
	first := srv.attach(s.ID, "")
	before := first.firstSnapshot()
	if !bytes.Contains(before, []byte("\x1b[1;31mred")) && !bytes.Contains(before, []byte("\x1b[31;1mred")) && !bytes.Contains(before, []byte("red")) {
		t.Fatalf("the snapshot has no colours:\n%q", before)
	}

	srv.stop()
	if got := w.must("screen", s.ID); !strings.Contains(got, "survives-2") {
		t.Fatalf("with the server stopped the session is gone:\n%s", got)
	}
	srv = w.serve()
	if r := srv.session(s.ID); r.State != "running" || r.PID != s.PID {
		t.Fatalf("after a restart the record is %+v, want running with pid %d", r, s.PID)
	}
	again := srv.attach(s.ID, "").firstSnapshot()
	if !bytes.Equal(before, again) {
		t.Fatalf("after a restart the snapshot differs:\nbefore %q\nafter  %q", before, again)
	}

	srv.kill()
	srv = w.serve()
	third := srv.attach(s.ID, "")
	if got := third.firstSnapshot(); !bytes.Equal(before, got) {
		t.Fatalf("after kill -9 the snapshot differs:\nbefore %q\nafter  %q", before, got)
	}
	// And the session still works through the new server.
	third.send("echo after-$((2+3))\r")
	third.waitFor("after-5", 5*time.Second)
}

// A holder killed with -9 is reported exited, with no exit code and the
// reason "holder lost", within 2 s, and the viewer hears the end.
func TestKilledHolderIsReportedLostWithinTwoSeconds(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv := w.serve()
	s := srv.launch(`{"kind": "bash", "cwd": "` + w.data + `"}`)
	srv.waitScreen(s.ID, "@", 5*time.Second)
	hp := holderPID(t, w.data, s.ID)
	syscall.Kill(hp, syscall.SIGKILL)
	killed := time.Now()
	defer syscall.Kill(s.PID, syscall.SIGKILL) // the orphaned bash
	for {
		r := srv.session(s.ID)
		if r.State == "exited" {
			lag := time.Since(killed)
			t.Logf("reported %s after the kill", lag)
			if lag > 2*time.Second {
				t.Errorf("the lost holder was reported after %s, want under 2 s", lag)
			}
			if r.ExitCode != nil || r.ExitReason == nil || *r.ExitReason != "holder lost" {
				t.Errorf("record after the kill: code %v reason %v", r.ExitCode, r.ExitReason)
			}
			return
		}
		if time.Since(killed) > 5*time.Second {
			t.Fatalf("the record still says %s 5 s after its holder was killed", r.State)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A record whose holder died while no server ran becomes exited when the
// server starts, within 2 s.
func TestServerStartEndsRecordsWhoseHolderIsGone(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	id := strings.TrimSpace(w.must("run", "bash", "--cwd", w.data))
	hp := holderPID(t, w.data, id)
	var list struct{ Sessions []struct{ PID int } }
	json.Unmarshal([]byte(w.must("sessions", "--json")), &list)
	syscall.Kill(hp, syscall.SIGKILL)
	defer syscall.Kill(list.Sessions[0].PID, syscall.SIGKILL) // the orphaned bash
	start := time.Now()
	srv := w.serve()
	for srv.session(id).State != "exited" {
		if time.Since(start) > 2*time.Second {
			t.Fatalf("the record still runs 2 s after the server started")
		}
		time.Sleep(20 * time.Millisecond)
	}
	r := srv.session(id)
	if r.ExitReason == nil || *r.ExitReason != "holder lost" || r.ExitCode != nil {
		t.Errorf("record: %+v", r)
	}
}

// A program that exits on its own leaves its code in the record, and the
// viewer gets the exit message.
func TestExitCodeReachesTheRecordAndTheViewer(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv := w.serve()
	s := srv.launch(`{"kind": "custom", "cwd": "` + w.data + `", "command": ["sh", "-c", "read x; exit 7"]}`)
	tm := srv.attach(s.ID, "")
	tm.firstSnapshot()
	tm.send("go\r")
	select {
	case <-tm.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the WebSocket did not close after the program ended")
	}
	if tm.exit == nil || tm.exit["code"] != float64(7) || tm.exit["reason"] != "exited" {
		t.Errorf("exit message: %v", tm.exit)
	}
	deadline := time.Now().Add(3 * time.Second)
	for {
		r := srv.session(s.ID)
		if r.State == "exited" {
			if r.ExitCode == nil || *r.ExitCode != 7 || *r.ExitReason != "exited" {
				t.Errorf("record: code %v reason %v", r.ExitCode, r.ExitReason)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the record did not say exited")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Two viewers at once see the same screen; the size follows the one that
// typed last.
func TestTwoViewersSeeTheSameScreenAndTheSizeFollowsTheTypist(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv := w.serve()
	s := srv.launch(`{"kind": "bash", "cwd": "` + w.data + `"}`)
	a := srv.attach(s.ID, "cols=100&rows=30")
	a.firstSnapshot()
	b := srv.attach(s.ID, "cols=60&rows=20")
	b.firstSnapshot()
	b.send("stty size\r")
	b.waitFor("20 60", 5*time.Second)
	a.waitFor("20 60", 5*time.Second)
	a.send("stty size\r")
	a.waitFor("30 100", 5*time.Second)
	b.waitFor("30 100", 5*time.Second)
	// The shell's next prompt may still be on its way when "30 100" is
	// seen: the screens are compared once the output has settled.
	for name, v := range map[string]*terminal{"a": a, "b": b} {
		deadline := time.Now().Add(5 * time.Second)
		for {
			got, want := v.text(), srv.screenText(s.ID)
			if got == want {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("viewer %s:\n%s\nserver:\n%s", name, got, want)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// A resume id the CLI refuses leaves the pane alive with a one-line
// diagnostic and a shell, and the record says why.
func TestRejectedResumeLeavesADiagnosticAndAShell(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	fake := filepath.Join(t.TempDir(), "claude")
	os.WriteFile(fake, []byte("#!/bin/sh\necho \"No conversation found with session ID: $2\"\nexit 1\n"), 0o755)
	w.setenv("DESK_CLAUDE_BIN", fake)
	srv := w.serve()
	s := srv.launch(`{"kind": "claude", "cwd": "` + w.data + `", "resume": "0b4ad3c6-8f15-4c63-9a1e-2d7f1e6a9c01"}`)
	got := srv.waitScreen(s.ID, "this is a shell in its place", 10*time.Second)
	if !strings.Contains(got, "No conversation found") {
		t.Errorf("the CLI's own message is gone:\n%s", got)
	}
	var ok map[string]bool
	srv.api(200, "POST", "/api/sessions/"+s.ID+"/input", `{"text": "echo shell-$((3*3))\r"}`, &ok)
	srv.waitScreen(s.ID, "shell-9", 5*time.Second)
	deadline := time.Now().Add(3 * time.Second)
	for r := srv.session(s.ID); !strings.Contains(r.Note, "refused resume id"); r = srv.session(s.ID) {
		if time.Now().After(deadline) {
			t.Fatalf("record: %+v", r)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if r := srv.session(s.ID); r.State != "running" {
		t.Errorf("the pane died: %+v", r)
	}
}

// A data folder deeper than a socket address holds still works.
func TestDeepDataFolderStillHasSockets(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	deep := filepath.Join(w.data, strings.Repeat("a-long-folder-name/", 8))
	if err := os.MkdirAll(deep, 0o700); err != nil {
		t.Fatal(err)
	}
	w.setenv("DESK_DATA", deep)
	if n := len(filepath.Join(deep, "sessions", "s-xxxxxxxx.sock")); n <= 108 {
		t.Fatalf("the path is only %d bytes", n)
	}
	id := strings.TrimSpace(w.must("run", "bash", "--cwd", w.data))
	waitCLI(t, w, id, "@", 5*time.Second)
	w.must("stop-session", "--kill", id)
}

// hookReport runs desk hook event for claude with a payload, as a hook
// process of a managed launch would, with the given launch stamps.
func (w *world) hookReport(provider string, env ...string) {
	w.t.Helper()
	cmd := exec.Command(deskBin, "hook", "event", "--client", "claude")
	cmd.Env = append(append([]string{}, w.env...), env...)
	cmd.Stdin = strings.NewReader(`{"session_id":"` + provider + `","hook_event_name":"UserPromptSubmit","cwd":"/tmp","prompt":"hi"}`)
	if out, err := cmd.CombinedOutput(); err != nil {
		w.t.Fatalf("desk hook event: %v %s", err, out)
	}
}

// The generation fence: after a resume, a hook of the old run is refused;
// a hook of a managed launch that inherited no generation posts nothing;
// the new run's hooks are taken, and their agent is marked managed.
func TestResumeFencesTheOldGenerationsHooks(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	srv := w.serve()
	s := srv.launch(`{"kind": "bash", "cwd": "` + w.data + `"}`)
	srv.api(200, "DELETE", "/api/sessions/"+s.ID+"?kill=1", "", nil)
	var resumed record
	srv.api(200, "POST", "/api/sessions/"+s.ID+"/resume", "", &resumed)
	if resumed.Generation != 2 || resumed.State != "running" {
		t.Fatalf("after the resume: %+v", resumed)
	}
	agents := func() string {
		_, b := srv.request("GET", "/api/agents", "")
		return string(b)
	}
	old, none, cur := "11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222", "33333333-3333-4333-8333-333333333333"
	w.hookReport(old, "DESK_SESSION_ID="+s.ID, "DESK_SESSION_GENERATION=1")
	w.hookReport(none, "DESK_SESSION_ID="+s.ID)
	w.hookReport(cur, "DESK_SESSION_ID="+s.ID, "DESK_SESSION_GENERATION=2")
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(agents(), cur) {
		if time.Now().After(deadline) {
			t.Fatalf("the current generation's report never arrived: %s", agents())
		}
		time.Sleep(20 * time.Millisecond)
	}
	got := agents()
	if strings.Contains(got, old) {
		t.Errorf("a report of the old generation was taken: %s", got)
	}
	if strings.Contains(got, none) {
		t.Errorf("a report with no generation was taken: %s", got)
	}
	if _, err := os.Stat(filepath.Join(w.data, intake.SpoolName)); err == nil {
		b, _ := os.ReadFile(filepath.Join(w.data, intake.SpoolName))
		if strings.Contains(string(b), none) {
			t.Errorf("the unstamped report was spooled: %s", b)
		}
	}
	if !strings.Contains(got, `"managed":true,"session":"`+s.ID+`"`) {
		t.Errorf("the agent is not marked managed: %s", got)
	}
	if r := srv.session(s.ID); !strings.Contains(string(r.Agent), cur) {
		t.Errorf("the record's agent is %s", r.Agent)
	}
}
