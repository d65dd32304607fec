package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"desk/pair"
)

const retryGo = `package retry

// Backoff returns the wait before retry n.
func Backoff(n int) int {
	return n * 100
}
`

const retryFixed = `package retry

// Backoff returns the wait before retry n; no retry, no wait.
func Backoff(n int) int {
	if n <= 0 {
		return 0
	}
	return n * 100
}
`

// newPair makes a git repository of the fixture's repo folder and a pair
// on it, as desk pair new does.
func (f *fixture) newPair(mode string, members ...string) *pair.Pair {
	f.t.Helper()
	if err := os.WriteFile(filepath.Join(f.repo, "retry.go"), []byte(retryGo), 0o644); err != nil {
		f.t.Fatal(err)
	}
	for _, args := range [][]string{{"init", "-q", "-b", "work"}, {"add", "."}, {"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = f.repo
		if out, err := cmd.CombinedOutput(); err != nil {
			f.t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	svc := &pair.Service{Store: f.db, PatchRoot: pair.PatchRootIn(f.data)}
	p, err := svc.New(context.Background(), pair.NewInput{Project: "mygame", Folder: f.repo, Task: "fix the retry backoff", Members: members, Mode: mode})
	if err != nil {
		f.t.Fatal(err)
	}
	return p
}

// member starts `desk mcp` as a pair member, with the variables desk pair
// up gives each agent.
func (f *fixture) member(p *pair.Pair, role string) *sdk.ClientSession {
	f.t.Helper()
	return f.client(role, "DESK_PAIR="+p.ID, "DESK_PAIR_ROLE="+role)
}

// rule returns the rule a refusal's text names in brackets.
func rule(text string) string {
	_, rest, ok := strings.Cut(text, " [")
	if !ok {
		return ""
	}
	r, _, _ := strings.Cut(rest, "]")
	return r
}

func TestPairToolsAreListed(t *testing.T) {
	f := newFixture(t)
	cs := f.client("codex")
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]bool{}
	for _, tl := range res.Tools {
		have[tl.Name] = true
	}
	for _, name := range []string{"pair_state", "pair_claim", "pair_release", "pair_advance", "pair_ping", "pair_digest", "pair_send", "pair_deliver",
		"pair_read", "pair_note", "pair_note_index", "pair_note_read", "pair_task", "pair_patch_reserve", "pair_patch_seal", "pair_patch_verify",
		"pair_propose", "pair_patch_applied", "pair_patch_release", "pair_evidence", "pair_unblock", "pair_transcript",
		"claim_issue", "release_issue", "list_claims"} {
		if !have[name] {
			t.Errorf("desk mcp does not offer %s", name)
		}
	}
}

func TestPairToolsOutsideAPairSayNotInAPair(t *testing.T) {
	f := newFixture(t)
	p := f.newPair("fix", "opencode", "codex")
	for _, env := range [][]string{nil, {"DESK_PAIR=" + p.ID}, {"DESK_PAIR_ROLE=codex"}} {
		cs := f.client("codex", env...)
		text := refused(t, cs, "pair_state", nil, "not in a pair")
		if rule(text) != pair.RuleNotInPair {
			t.Errorf("with %v: %q names rule %q", env, text, rule(text))
		}
	}
	stranger := f.member(p, "gemini")
	if text := refused(t, stranger, "pair_send", map[string]any{"body": "hi"}, "not a member"); rule(text) != pair.RuleNotMember {
		t.Errorf("a role that is no member: %q", text)
	}
}

// Two agents, one desk mcp each with the roles desk pair up gives them,
// play a whole round in fix mode.
func TestTwoMembersPlayAFixRoundOverStdio(t *testing.T) {
	f := newFixture(t)
	p := f.newPair("fix", "opencode", "codex")
	w, c := f.member(p, "opencode"), f.member(p, "codex")

	ok(t, w, "pair_claim", map[string]any{"rationale": "I'll fix Backoff"}, nil)
	text := refused(t, c, "pair_claim", map[string]any{"rationale": "me"}, "opencode holds write authority")
	if rule(text) != pair.RuleSingleWriter {
		t.Errorf("a second claim: %q", text)
	}
	ok(t, w, "pair_note", map[string]any{"kind": "plan", "text": "guard n <= 0, then test it"}, nil)
	var task struct{ Task struct{ N int } }
	ok(t, c, "pair_task", map[string]any{"action": "add", "text": "test Backoff(0)"}, &task)
	ok(t, w, "pair_advance", map[string]any{"to": "code"}, nil)

	// The critic waits for mail in its own process while the writer works.
	woke := make(chan string, 1)
	go func() {
		text, _ := call(t, c, "pair_read", map[string]any{"wait_seconds": 30})
		woke <- text
	}()
	time.Sleep(200 * time.Millisecond)
	ok(t, w, "pair_send", map[string]any{"body": "plan noted; propose the guard as a patch"}, nil)
	var mail pair.ReadAnswer
	select {
	case text := <-woke:
		if err := json.Unmarshal([]byte(text), &mail); err != nil || len(mail.Letters) != 1 || !mail.MustAck {
			t.Fatalf("the critic's blocked read: %s", text)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the critic's pair_read did not wake on the writer's letter")
	}
	ok(t, c, "pair_read", map[string]any{"ack_token": mail.AckToken}, nil)

	var prop pair.PatchAnswer
	ok(t, c, "pair_propose", map[string]any{"files": []map[string]string{{"path": "retry.go", "content": retryFixed}}, "summary": "guard a zero retry"}, &prop)
	if prop.Patch == nil || prop.Patch.State != pair.PatchSealed {
		t.Fatalf("the proposal: %+v", prop)
	}
	if fi, err := os.Stat(prop.Patch.Path); err != nil || fi.Mode().Perm() != 0o600 || !strings.HasPrefix(prop.Patch.Path, f.data) {
		t.Fatalf("the patch file %s: %v", prop.Patch.Path, err)
	}
	refused(t, c, "pair_patch_verify", map[string]any{"patch": prop.Patch.N}, "[role]")
	var ver pair.PatchAnswer
	ok(t, w, "pair_patch_verify", map[string]any{"path": prop.Patch.Path}, &ver)
	apply := exec.Command("git", "apply", prop.Patch.Path)
	apply.Dir = f.repo
	if out, err := apply.CombinedOutput(); err != nil {
		t.Fatalf("git apply: %v\n%s", err, out)
	}
	ok(t, w, "pair_patch_applied", map[string]any{"patch": prop.Patch.N, "note": "git apply"}, nil)
	if b, _ := os.ReadFile(filepath.Join(f.repo, "retry.go")); string(b) != retryFixed {
		t.Fatalf("the folder after the apply:\n%s", b)
	}
	ok(t, w, "pair_advance", map[string]any{"to": "review"}, nil)
	refused(t, c, "pair_advance", map[string]any{"to": "test"}, "[role]")
	ok(t, c, "pair_evidence", map[string]any{"kind": "tests", "text": "go test ./... ok"}, nil)
	refused(t, w, "pair_advance", map[string]any{"to": "done"}, "[open_task]")
	ok(t, w, "pair_task", map[string]any{"action": "done", "task": task.Task.N}, nil)
	var done pair.AdvanceAnswer
	ok(t, w, "pair_advance", map[string]any{"to": "done", "reason": "tested"}, &done)
	if !done.Closed || done.Phase != "done" {
		t.Fatalf("closing the round: %+v", done)
	}
	var ping pair.PingAnswer
	ok(t, c, "pair_ping", nil, &ping)
	if ping.Role != "codex" || ping.Writer != "opencode" {
		t.Errorf("ping: %+v", ping)
	}
	var tr pair.TranscriptAnswer
	ok(t, c, "pair_transcript", map[string]any{"limit": 500}, &tr)
	seen := map[string]bool{}
	for _, e := range tr.Entries {
		seen[e.Kind] = true
		if e.Kind == pair.EventRefusal && e.Rule == "" {
			t.Errorf("a refusal without its rule: %+v", e)
		}
	}
	for _, k := range []string{pair.EventClaim, pair.EventNote, pair.EventTask, pair.EventLetter, pair.EventPatch, pair.EventEvidence, pair.EventRoundClosed, pair.EventRefusal} {
		if !seen[k] {
			t.Errorf("the transcript has no %s", k)
		}
	}
}

// The audit round, with the critic started as an instance of its member.
func TestTwoMembersPlayAnAuditRoundOverStdio(t *testing.T) {
	f := newFixture(t)
	p := f.newPair("audit", "opencode", "codex")
	w, c := f.member(p, "opencode"), f.member(p, "codex-critic")
	ok(t, w, "pair_claim", map[string]any{"rationale": "I lead the audit"}, nil)
	var st pair.StateAnswer
	ok(t, c, "pair_state", nil, &st)
	if st.Role != "codex-critic" || st.YouAre != "critic" || st.Mode != "audit" {
		t.Fatalf("the critic's state: %+v", st)
	}
	for _, tool := range []string{"pair_patch_reserve", "pair_propose"} {
		args := map[string]any{}
		if tool == "pair_propose" {
			args["files"] = []map[string]string{{"path": "retry.go", "content": retryFixed}}
		}
		if text := refused(t, c, tool, args, "audit mode"); rule(text) != pair.RuleAuditMode {
			t.Errorf("%s in audit mode: %q", tool, text)
		}
	}
	ok(t, c, "pair_note", map[string]any{"kind": "finding", "text": "Backoff(0) returns 0: no wait before a retry"}, nil)
	ok(t, c, "pair_deliver", map[string]any{"body": "finding 1 is in the notes"}, nil)
	var mail pair.ReadAnswer
	ok(t, w, "pair_read", map[string]any{"wait_seconds": 5}, &mail)
	if len(mail.Letters) != 1 || mail.Letters[0].From != "codex-critic" {
		t.Fatalf("the writer's mail: %+v", mail)
	}
	ok(t, w, "pair_note", map[string]any{"kind": "verdict", "text": "the finding holds"}, nil)
	var idx struct{ Notes []pair.NoteInfo }
	ok(t, c, "pair_note_index", nil, &idx)
	var tail pair.NoteTailAnswer
	ok(t, c, "pair_note_read", map[string]any{"kind": "verdict"}, &tail)
	if len(idx.Notes) != 2 || !strings.Contains(tail.Text, "the finding holds") {
		t.Errorf("notes: %+v, tail %+v", idx, tail)
	}
	ok(t, w, "pair_advance", map[string]any{"to": "review"}, nil)
	ok(t, c, "pair_advance", map[string]any{"to": "code", "reason": "a second look at the loop"}, nil)
	ok(t, w, "pair_evidence", map[string]any{"kind": "tests", "text": "go test -race ./... ok"}, nil)
	var digest pair.DigestAnswer
	ok(t, c, "pair_digest", map[string]any{"tokens": 300}, &digest)
	if !strings.Contains(digest.Text, "codex-critic") {
		t.Errorf("the digest: %s", digest.Text)
	}
	var done pair.AdvanceAnswer
	ok(t, w, "pair_advance", map[string]any{"to": "done"}, &done)
	if !done.Closed {
		t.Fatalf("the audit round did not close: %+v", done)
	}
	if b, _ := os.ReadFile(filepath.Join(f.repo, "retry.go")); string(b) != retryGo {
		t.Error("the audit round changed the folder")
	}
}

// Every refusal of the bad-input list, as an agent sees it: an
// error result naming the rule and what to do, and an entry in the
// transcript.
func TestPairRefusalsOverStdio(t *testing.T) {
	f := newFixture(t)
	p := f.newPair("fix", "opencode", "codex")
	w, c := f.member(p, "opencode"), f.member(p, "codex")
	ok(t, w, "pair_claim", map[string]any{"rationale": "I write"}, nil)
	var res pair.PatchAnswer
	ok(t, c, "pair_patch_reserve", map[string]any{"summary": "the guard"}, &res)
	var prop pair.PatchAnswer
	ok(t, c, "pair_propose", map[string]any{"files": []map[string]string{{"path": "retry.go", "content": retryFixed}}}, &prop)
	diff, err := os.ReadFile(prop.Patch.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(res.Patch.Path, diff, 0o600); err != nil {
		t.Fatal(err)
	}
	ok(t, c, "pair_patch_seal", map[string]any{"path": res.Patch.Path}, nil)
	if err := os.WriteFile(res.Patch.Path, append(diff, []byte("+tampered\n")...), 0o600); err != nil {
		t.Fatal(err)
	}
	ok(t, c, "pair_send", map[string]any{"body": "two patches"}, nil)
	var batch pair.ReadAnswer
	ok(t, w, "pair_read", nil, &batch)
	ok(t, w, "pair_send", map[string]any{"body": "seen"}, nil)
	var criticBatch pair.ReadAnswer
	ok(t, c, "pair_read", nil, &criticBatch)

	for _, tc := range []struct {
		name string
		cs   *sdk.ClientSession
		tool string
		args map[string]any
		rule string
		says string
	}{
		{"the wrong role", w, "pair_patch_reserve", nil, pair.RuleRole, "edits the files directly"},
		{"a stale ack_token", w, "pair_read", map[string]any{"ack_token": "ack_0123456789abcdef01234567"}, pair.RuleStaleAck, "not the one of your last batch"},
		{"a foreign ack_token", w, "pair_read", map[string]any{"ack_token": criticBatch.AckToken}, pair.RuleStaleAck, "belongs to codex"},
		{"a patch path outside the patch folder", w, "pair_patch_verify", map[string]any{"path": filepath.Join(f.repo, "retry.go")}, pair.RuleOutsideFolder, "patch folder"},
		{"a glob in pair_patch_release", c, "pair_patch_release", map[string]any{"path": filepath.Join(filepath.Dir(prop.Patch.Path), "*.diff")}, pair.RuleGlob, "pattern"},
		{"a seal mismatch", w, "pair_patch_verify", map[string]any{"patch": res.Patch.N}, pair.RuleSealMismatch, "halted"},
		{"a letter over the cap", c, "pair_send", map[string]any{"body": strings.Repeat("x", pair.MaxMessage+1)}, pair.RuleTooLarge, "256 KiB"},
		{"an unknown phase", w, "pair_advance", map[string]any{"to": "ship"}, pair.RuleUnknownPhase, "not a phase"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := refused(t, tc.cs, tc.tool, tc.args, tc.says)
			if rule(text) != tc.rule {
				t.Errorf("%q names rule %q, want %s", text, rule(text), tc.rule)
			}
			if !strings.Contains(text, " (") {
				t.Errorf("%q carries no hint", text)
			}
			var tr pair.TranscriptAnswer
			ok(t, tc.cs, "pair_transcript", map[string]any{"limit": 1}, &tr)
			if len(tr.Entries) != 1 || tr.Entries[0].Kind != pair.EventRefusal || tr.Entries[0].Rule != tc.rule {
				t.Errorf("the transcript's last entry: %+v", tr.Entries)
			}
		})
	}
	// The tampered patch cannot be applied, and the writer's batch is still
	// its own to acknowledge.
	refused(t, w, "pair_patch_applied", map[string]any{"patch": res.Patch.N}, "[patch_state]")
	ok(t, w, "pair_read", map[string]any{"ack_token": batch.AckToken}, nil)
}
