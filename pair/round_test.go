package pair_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"desk"
	"desk/pair"
)

const fixedSource = `package src

// Backoff returns the wait before retry n, with jitter kept below the step.
func Backoff(n int) int {
	if n <= 0 {
		return 0
	}
	return n * 100
}
`

func TestAWholeFixRound(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	s, w, c := e.svc, e.w, e.c

	claim := must(s.Claim(ctx, w, "I'll fix Backoff in src/retry.go"))
	if claim.Writer != "opencode" {
		t.Fatalf("the claim gave authority to %q", claim.Writer)
	}
	de := refused(t, second(s.Claim(ctx, c, "me too")), pair.RuleSingleWriter, desk.Conflict)
	if !strings.Contains(de.Message, "opencode") {
		t.Errorf("a second claim's refusal does not name the holder: %q", de.Message)
	}

	must(s.Note(ctx, w, "plan", "1. guard n <= 0\n2. test it"))
	t1 := must(s.ChangeTask(ctx, c, pair.TaskInput{Action: "add", Text: "test Backoff(0)"}))
	if t1.Task.N != 1 || len(t1.Open) != 1 {
		t.Fatalf("the critic's task: %+v", t1)
	}
	must(s.Advance(ctx, w, "plan", ""))
	must(s.Advance(ctx, w, "code", "the plan is agreed"))

	// The critic proposes, the writer verifies and applies.
	prop := must(s.Propose(ctx, c, []pair.ProposedFile{{Path: "src/retry.go", Content: fixedSource}}, "guard a zero retry"))
	pt := prop.Patch
	if pt.State != pair.PatchSealed || len(pt.Seal) != 64 || pt.Files[0] != "src/retry.go" || pt.Role != "codex" {
		t.Fatalf("the proposal: %+v", pt)
	}
	fi, err := os.Stat(pt.Path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the patch file %s: mode %v, %v; want 0600", pt.Path, fi.Mode().Perm(), err)
	}
	if !strings.HasPrefix(pt.Path, s.PatchDir(e.p.ID)+string(filepath.Separator)) {
		t.Errorf("the patch file %s is not in the patch folder %s", pt.Path, s.PatchDir(e.p.ID))
	}
	if e.readFile("src/retry.go") != retrySource {
		t.Fatal("proposing changed the folder's file")
	}
	// The writer hears of it in its mailbox.
	mail := must(s.Read(ctx, w, pair.ReadInput{}))
	if len(mail.Letters) != 1 || !strings.Contains(mail.Letters[0].Body, "pair_patch_verify") {
		t.Fatalf("the writer's mail after the proposal: %+v", mail)
	}
	must(s.Read(ctx, w, pair.ReadInput{AckToken: mail.AckToken}))

	refused(t, second(s.Verify(ctx, c, pair.PatchRef{N: pt.N})), pair.RuleRole, desk.Forbidden)
	ver := must(s.Verify(ctx, w, pair.PatchRef{N: pt.N}))
	if ver.Patch.State != pair.PatchVerified || !strings.Contains(ver.Apply, "git -C") {
		t.Fatalf("the verification: %+v", ver)
	}
	gitApply(t, e.folder, pt.Path)
	if e.readFile("src/retry.go") != fixedSource {
		t.Fatalf("git apply of the sealed patch gave:\n%s", e.readFile("src/retry.go"))
	}
	must(s.Applied(ctx, w, pair.PatchRef{N: pt.N}, true, "applied with git apply"))

	must(s.Advance(ctx, w, "review", ""))
	// The critic's veto sends it back; only the writer moves forward.
	must(s.Advance(ctx, c, "code", "Backoff(-1) is not tested"))
	refused(t, second(s.Advance(ctx, c, "review", "")), pair.RuleRole, desk.Forbidden)
	must(s.Advance(ctx, w, "test", "negative n tested too"))

	// Closing waits on evidence and on the open task.
	gate := refused(t, second(s.Advance(ctx, w, "done", "")), pair.RuleNoEvidence, desk.Conflict)
	if !strings.Contains(gate.Message, "open_task") {
		t.Errorf("the gate's refusal does not count the open task: %q", gate.Message)
	}
	must(s.AddEvidence(ctx, c, "tests", "go test ./... ok", true))
	refused(t, second(s.Advance(ctx, w, "done", "")), pair.RuleOpenTask, desk.Conflict)
	refused(t, second(s.ChangeTask(ctx, c, pair.TaskInput{Action: "done", N: 1})), pair.RuleRole, desk.Forbidden)
	must(s.ChangeTask(ctx, w, pair.TaskInput{Action: "done", N: 1}))
	must(s.AddEvidence(ctx, w, "commit", "abc123 guard a zero retry", true))
	done := must(s.Advance(ctx, w, "done", "tests pass"))
	if !done.Closed || done.Phase != pair.PhaseDone || !strings.Contains(done.Report, "Patches applied: 1") {
		t.Fatalf("closing the round: %+v", done)
	}

	st := must(s.State(ctx, c))
	if st.Phase != pair.PhaseDone || st.Writer != "opencode" || st.YouAre != "critic" || len(st.Blocking) != 0 {
		t.Errorf("the state after the round: %+v", st)
	}
	tr := must(s.Transcript(ctx, c, 0, ""))
	kinds := map[string]int{}
	for _, ev := range tr.Entries {
		kinds[ev.Kind]++
	}
	for _, k := range []string{pair.EventCreated, pair.EventClaim, pair.EventNote, pair.EventTask, pair.EventPatch, pair.EventAdvance,
		pair.EventVeto, pair.EventEvidence, pair.EventRoundClosed, pair.EventRefusal} {
		if kinds[k] == 0 {
			t.Errorf("the transcript has no %s entry: %v", k, kinds)
		}
	}
	// The next round starts from done, from either side.
	next := must(s.Advance(ctx, c, "scoping", "a second bug"))
	if next.Round != 2 || next.Phase != pair.PhaseScoping {
		t.Errorf("opening the next round: %+v", next)
	}
	refused(t, second(s.Advance(ctx, w, "done", "")), pair.RuleNoEvidence, desk.Conflict)
}

func TestAWholeAuditRound(t *testing.T) {
	e := newEnv(t, pair.NewInput{Mode: pair.ModeAudit, Task: "audit the retry loop for races"})
	s, w, c := e.svc, e.w, e.c
	must(s.Claim(ctx, w, "I lead the audit"))
	must(s.Advance(ctx, w, "review", "reading the code"))
	e.refusedAndUnchanged(pair.RuleAuditMode, desk.Conflict, func() error { return second(s.Reserve(ctx, c, "a fix")) })
	e.refusedAndUnchanged(pair.RuleAuditMode, desk.Conflict, func() error {
		return second(s.Propose(ctx, c, []pair.ProposedFile{{Path: "src/retry.go", Content: fixedSource}}, "a fix"))
	})
	must(s.Note(ctx, c, "finding", "Backoff(0) returns 0: no wait between a failure and the retry"))
	must(s.Note(ctx, w, "verdict", "confirmed: the finding holds"))
	must(s.Send(ctx, c, "finding recorded, please confirm", nil))
	got := must(s.Read(ctx, w, pair.ReadInput{}))
	if len(got.Letters) != 1 || got.Letters[0].From != "codex" {
		t.Fatalf("the writer's mail: %+v", got)
	}
	must(s.AddEvidence(ctx, w, "tests", "go test -race ./... ok", true))
	done := must(s.Advance(ctx, w, "done", "audit complete"))
	if !done.Closed {
		t.Fatalf("the audit round did not close: %+v", done)
	}
	if e.readFile("src/retry.go") != retrySource {
		t.Error("an audit round changed the folder")
	}
	idx := must(s.NoteIndex(ctx, c))
	if len(idx) != 2 {
		t.Errorf("the note index after the audit: %+v", idx)
	}
}

// second returns the error of a two-valued call.
func second[T any](_ T, err error) error { return err }

func gitApply(t *testing.T, dir, patch string) {
	t.Helper()
	for _, args := range [][]string{{"apply", "--check", patch}, {"apply", patch}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}
