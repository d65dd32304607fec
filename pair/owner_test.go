package pair_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"desk"
	"desk/pair"
)

func TestASemiRoundNeedsTheOwnersWord(t *testing.T) {
	e := newEnv(t, pair.NewInput{Autonomy: "semi"})
	s, w := e.svc, e.w
	must(s.Claim(ctx, w, "I write"))
	must(s.AddEvidence(ctx, w, "tests", "go test ./... ok", true))
	e.refusedAndUnchanged(pair.RuleSemiNeedsOK, desk.Conflict, func() error { return second(s.Advance(ctx, w, "done", "")) })
	must(s.OK(ctx, e.p.ID))
	if got := must(s.Advance(ctx, w, "done", "")); !got.Closed {
		t.Fatalf("the round did not close after the owner's word: %+v", got)
	}
	// The word is for one round.
	must(s.Advance(ctx, w, "code", "round two"))
	must(s.AddEvidence(ctx, w, "tests", "ok again", true))
	refused(t, second(s.Advance(ctx, w, "done", "")), pair.RuleSemiNeedsOK, desk.Conflict)
}

func TestFailedEvidenceDoesNotCloseARound(t *testing.T) {
	e := newEnv(t, pair.NewInput{Autonomy: "observe"})
	must(e.svc.Claim(ctx, e.w, "I write"))
	got := must(e.svc.AddEvidence(ctx, e.c, "tests", "go test ./... FAIL", false))
	if len(got.Blocking) == 0 || got.Blocking[0].Rule != pair.RuleNoEvidence {
		t.Fatalf("failed evidence counted: %+v", got.Blocking)
	}
	refused(t, second(e.svc.Advance(ctx, e.w, "done", "")), pair.RuleNoEvidence, desk.Conflict)
}

func TestAutonomyIsChosenOnceFromTheStrongestSource(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) {
		if err := os.MkdirAll(filepath.Join(dir, ".desk-pair"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, pair.AutonomyFile), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	check := func(flag, task, level, source string) {
		t.Helper()
		l, src, err := pair.ResolveAutonomy(flag, task, dir)
		if err != nil || l != level || src != source {
			t.Errorf("ResolveAutonomy(%q, %q) = %s from %s, %v; want %s from %s", flag, task, l, src, err, level, source)
		}
	}
	check("", "fix it", "auto", "default")
	write("observe\n")
	check("", "fix it", "observe", "file")
	check("", "autonomy: semi fix the thing\nautonomy: observe", "semi", "task")
	check("", "Autonomy: SEMI", "semi", "task")
	check("auto", "autonomy: semi fix it", "auto", "flag")
	check("", "autonomy: sometimes fix it", "observe", "file") // a malformed task line falls through
	write("whenever")
	check("", "fix it", "auto", "default")                 // and so does a malformed file
	check("", "fix it\nautonomy: semi", "auto", "default") // only the first line counts
	if _, _, err := pair.ResolveAutonomy("full", "", dir); desk.ErrorRule(err) != pair.RuleUnknownLevel {
		t.Errorf("a malformed flag: %v, want %s", err, pair.RuleUnknownLevel)
	}
}

func TestAPinnedWriterClaimsFirst(t *testing.T) {
	e := newEnv(t, pair.NewInput{Writer: "opencode"})
	de := e.refusedAndUnchanged(pair.RuleSingleWriter, desk.Conflict, func() error { return second(e.svc.Claim(ctx, e.c, "me first")) })
	if !strings.Contains(de.Message, "opencode is pinned") {
		t.Errorf("the refusal does not name the pinned writer: %q", de.Message)
	}
	must(e.svc.Claim(ctx, e.w, "pinned"))
	must(e.svc.Release(ctx, e.w, "the critic knows the module"))
	// The pin decides the first claim only.
	if got := must(e.svc.Claim(ctx, e.c, "my turn")); got.Writer != "codex" {
		t.Errorf("after a release the critic claimed %+v", got)
	}
}

func TestAnInstanceJoinsAndReadsItsMembersMail(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	s := e.svc
	must(s.Send(ctx, e.w, "to codex, before it started", nil))
	critic := pair.Caller{Pair: e.p.ID, Role: "codex-critic"}
	got := must(s.Read(ctx, critic, pair.ReadInput{}))
	if len(got.Letters) != 1 || got.Letters[0].To != "codex" {
		t.Fatalf("the instance's first read: %+v", got)
	}
	st := must(s.State(ctx, critic))
	var joined bool
	for _, m := range st.Members {
		if m.Role == "codex-critic" && m.Live && m.Of == "codex" {
			joined = true
		}
	}
	if !joined {
		t.Fatalf("the instance is not on the roster: %+v", st.Members)
	}
	// Letters now go to the instance, the live member.
	sent := must(s.Send(ctx, e.w, "to the live critic", nil))
	if len(sent.To) != 1 || sent.To[0] != "codex-critic" {
		t.Errorf("a letter to the peer went to %v", sent.To)
	}
	refused(t, second(s.Send(ctx, pair.Caller{Pair: e.p.ID, Role: "gemini-critic"}, "hi", nil)), pair.RuleNotMember, desk.Forbidden)
}

func TestASwapKeepsTheWriterAndItsAuthority(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	s := e.svc
	must(s.Claim(ctx, e.w, "I write"))
	must(s.Ping(ctx, e.c))
	p := must(s.Swap(ctx, e.p.ID, "claude"))
	if p.Writer != "opencode" {
		t.Fatalf("the swap moved authority to %q", p.Writer)
	}
	refused(t, second(s.Ping(ctx, e.c)), pair.RuleNotMember, desk.Forbidden)
	claude := pair.Caller{Pair: e.p.ID, Role: "claude"}
	if got := must(s.State(ctx, claude)); got.YouAre != "critic" || got.Writer != "opencode" {
		t.Errorf("the new critic's state: %+v", got)
	}
	if sent := must(s.Send(ctx, e.w, "welcome", nil)); len(sent.To) != 1 || sent.To[0] != "claude" {
		t.Errorf("the writer's letter went to %v", sent.To)
	}
	refused(t, second(s.Swap(ctx, e.p.ID, "opencode")), pair.RuleRole, desk.Conflict)
}

func TestAStoppedPairRefusesItsMembers(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	must(e.svc.Stop(ctx, e.p.ID, "done for today"))
	refused(t, second(e.svc.Send(ctx, e.c, "hi", nil)), pair.RuleStopped, desk.Conflict)
	refused(t, second(e.svc.State(ctx, e.c)), pair.RuleStopped, desk.Conflict)
	refused(t, second(e.svc.Stop(ctx, e.p.ID, "")), pair.RuleStopped, desk.Conflict)
}

func TestTheBudgetStopsARoundGoingInCircles(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	must(e.svc.SetBudget(ctx, e.p.ID, pair.Budget{Messages: 3}))
	for i := 0; i < 3; i++ {
		must(e.svc.Send(ctx, e.c, "again", nil))
	}
	e.refusedAndUnchanged(pair.RuleBudget, desk.Conflict, func() error { return second(e.svc.Send(ctx, e.c, "once more", nil)) })
	st := must(e.svc.PairState(ctx, e.p.ID))
	if st.Budget.Messages != [2]int{3, 3} {
		t.Errorf("the budget's use: %+v", st.Budget)
	}
	must(e.svc.SetBudget(ctx, e.p.ID, pair.Budget{Messages: 10}))
	must(e.svc.Send(ctx, e.c, "once more", nil))
}

func TestANotesTailIsCutAtAnEntry(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	for i := 0; i < 30; i++ {
		must(e.svc.Note(ctx, e.c, "verdict", fmt.Sprintf("verdict %d\n%s", i, strings.Repeat("line\n", 20))))
	}
	got := must(e.svc.NoteRead(ctx, e.w, "verdict", 0))
	if got.Lines > pair.MaxNoteLines || !got.Cut || got.Total != 30 || got.Entries == 0 || got.Entries == 30 {
		t.Fatalf("the tail: %d entries of %d, %d lines, cut %v", got.Entries, got.Total, got.Lines, got.Cut)
	}
	if !strings.HasPrefix(got.Text, "## codex") || !strings.Contains(got.Text, "verdict 29") || strings.Contains(got.Text, "verdict 0\n") {
		t.Errorf("the tail does not start at an entry or end at the newest one:\n%.300s", got.Text)
	}
	if n := strings.Count(got.Text, "\n") + 1; n != got.Lines {
		t.Errorf("the tail says %d lines and has %d", got.Lines, n)
	}
	// One entry longer than the limit shows its end.
	must(e.svc.Note(ctx, e.c, "finding", strings.Repeat("long\n", 900)+"the end"))
	long := must(e.svc.NoteRead(ctx, e.w, "finding", 50))
	if !long.Clipped || long.Lines != 50 || !strings.HasSuffix(long.Text, "the end") {
		t.Errorf("a long entry's tail: %+v", long.Lines)
	}
	idx := must(e.svc.NoteIndex(ctx, e.w))
	if len(idx) != 2 || idx[0].Kind != "finding" || idx[0].Bytes < idx[1].Bytes {
		t.Errorf("the index, largest first: %+v", idx)
	}
}

func TestTheDigestKeepsToItsBudget(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	must(e.svc.Claim(ctx, e.w, "I write"))
	for i := 0; i < 40; i++ {
		must(e.svc.ChangeTask(ctx, e.c, pair.TaskInput{Action: "add", Text: fmt.Sprintf("check case %d of the retry loop with a long description", i)}))
	}
	must(e.svc.Note(ctx, e.c, "verdict", "not yet: Backoff(0) is untested"))
	full := must(e.svc.Digest(ctx, e.w, 4000))
	if full.Cut || !strings.Contains(full.Text, "You are opencode, the writer") || !strings.Contains(full.Text, "Last verdict") {
		t.Fatalf("the full digest:\n%s", full.Text)
	}
	small := must(e.svc.Digest(ctx, e.w, 100))
	if !small.Cut || len(small.Text) > 100*4+120 || small.Tokens > 130 {
		t.Errorf("a 100-token digest is %d bytes (%d tokens), cut %v", len(small.Text), small.Tokens, small.Cut)
	}
}

func TestTheTranscriptPagesBySince(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	for i := 0; i < 12; i++ {
		must(e.svc.Send(ctx, e.c, fmt.Sprintf("letter %d", i), nil))
	}
	first := must(e.svc.Transcript(ctx, e.w, 5, ""))
	if len(first.Entries) != 5 || first.Entries[4].Text != "letter 11" {
		t.Fatalf("the newest five: %+v", first.Entries)
	}
	all := must(e.svc.Transcript(ctx, e.w, 0, ""))
	mid := all.Entries[6].ID
	after := must(e.svc.Transcript(ctx, e.w, 0, fmt.Sprint(mid)))
	if len(after.Entries) != len(all.Entries)-7 || after.Next != all.Next {
		t.Errorf("entries after #%d: %d (next %d); want %d (next %d)", mid, len(after.Entries), after.Next, len(all.Entries)-7, all.Next)
	}
	refused(t, second(e.svc.Transcript(ctx, e.w, 0, "yesterday-ish")), pair.RuleEmpty, desk.Invalid)
}
