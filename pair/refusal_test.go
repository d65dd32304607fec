package pair_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk"
	"desk/pair"
	"desk/sqlite"
)

// Every refusal of the bad-input list names its rule, says what
// to do, is written to the transcript, and changes nothing else.
func TestEveryRefusalNamesItsRuleAndChangesNothing(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	s, w, c := e.svc, e.w, e.c
	must(s.Claim(ctx, w, "I write"))
	must(s.Advance(ctx, w, "code", ""))
	reserved := must(s.Reserve(ctx, c, "a fix")).Patch
	other := must(s.Propose(ctx, c, []pair.ProposedFile{{Path: "src/retry.go", Content: fixedSource}}, "guard zero")).Patch
	must(s.Send(ctx, c, "look at patch 2", nil))
	batch := must(s.Read(ctx, w, pair.ReadInput{}))
	critic := must(s.Read(ctx, c, pair.ReadInput{})) // nothing for the critic
	if critic.AckToken != "" {
		t.Fatalf("an empty batch got a token: %+v", critic)
	}
	must(s.Send(ctx, w, "noted", nil))
	criticBatch := must(s.Read(ctx, c, pair.ReadInput{}))
	must(s.ChangeTask(ctx, w, pair.TaskInput{Action: "add", Text: "the writer's task"}))

	cases := []struct {
		name, rule, code string
		call             func() error
		says             string
	}{
		{"the writer reserves a patch", pair.RuleRole, desk.Forbidden, func() error { return second(s.Reserve(ctx, w, "")) }, "edits the files directly"},
		{"the writer proposes a patch", pair.RuleRole, desk.Forbidden, func() error {
			return second(s.Propose(ctx, w, []pair.ProposedFile{{Path: "src/retry.go", Content: "x\n"}}, ""))
		}, "critic"},
		{"the critic verifies", pair.RuleRole, desk.Forbidden, func() error { return second(s.Verify(ctx, c, pair.PatchRef{N: other.N})) }, "opencode"},
		{"the critic records an apply", pair.RuleRole, desk.Forbidden, func() error { return second(s.Applied(ctx, c, pair.PatchRef{N: other.N}, true, "")) }, "writer"},
		{"the critic advances", pair.RuleRole, desk.Forbidden, func() error { return second(s.Advance(ctx, c, "review", "")) }, "writer"},
		{"the critic releases authority", pair.RuleRole, desk.Forbidden, func() error { return second(s.Release(ctx, c, "why not")) }, "writer"},
		{"a second claim", pair.RuleSingleWriter, desk.Conflict, func() error { return second(s.Claim(ctx, c, "mine")) }, "opencode holds write authority"},
		{"a claim without a rationale", pair.RuleReason, desk.Invalid, func() error { return second(s.Claim(ctx, c, "  ")) }, "rationale"},
		{"a stale ack_token", pair.RuleStaleAck, desk.Invalid, func() error { return second(s.Read(ctx, w, pair.ReadInput{AckToken: "ack_000000000000000000000000"})) }, "not the one of your last batch"},
		{"a foreign ack_token", pair.RuleStaleAck, desk.Invalid, func() error { return second(s.Read(ctx, w, pair.ReadInput{AckToken: criticBatch.AckToken})) }, "belongs to codex"},
		{"a patch path outside the patch folder", pair.RuleOutsideFolder, desk.Forbidden, func() error {
			return second(s.Verify(ctx, w, pair.PatchRef{Path: filepath.Join(e.folder, "src", "retry.go")}))
		}, "patch folder"},
		{"a patch path climbing out of the folder", pair.RuleOutsideFolder, desk.Forbidden, func() error {
			return second(s.ReleasePatch(ctx, w, s.PatchDir(e.p.ID)+"/../../../etc/passwd"))
		}, "patch folder"},
		{"a glob in pair_patch_release", pair.RuleGlob, desk.Invalid, func() error { return second(s.ReleasePatch(ctx, c, s.PatchDir(e.p.ID)+"/*.diff")) }, "pattern"},
		{"a letter over the cap", pair.RuleTooLarge, desk.Invalid, func() error { return second(s.Send(ctx, c, strings.Repeat("x", pair.MaxMessage+1), nil)) }, "256 KiB"},
		{"an unknown phase", pair.RuleUnknownPhase, desk.Invalid, func() error { return second(s.Advance(ctx, w, "shipping", "")) }, "scoping, plan, code, review, test, pr, done"},
		{"a proposed file outside the folder", pair.RuleOutsideFolder, desk.Forbidden, func() error {
			return second(s.Propose(ctx, c, []pair.ProposedFile{{Path: "../outside.go", Content: "x\n"}}, ""))
		}, "outside the pair's folder"},
		{"sealing a patch twice", pair.RulePatchState, desk.Conflict, func() error { return second(s.Seal(ctx, c, pair.PatchRef{N: other.N})) }, "sealed"},
		{"sealing an empty patch file", pair.RuleNotDiff, desk.Invalid, func() error { return second(s.Seal(ctx, c, pair.PatchRef{N: reserved.N})) }, "no unified diff"},
		{"applying before verifying", pair.RulePatchState, desk.Conflict, func() error { return second(s.Applied(ctx, w, pair.PatchRef{N: other.N}, true, "")) }, "verify it"},
		{"closing a task as the critic", pair.RuleRole, desk.Forbidden, func() error { return second(s.ChangeTask(ctx, c, pair.TaskInput{Action: "done", N: 1})) }, "writer"},
		{"dropping another's task as the critic", pair.RuleRole, desk.Forbidden, func() error {
			return second(s.ChangeTask(ctx, c, pair.TaskInput{Action: "drop", N: 1, Reason: "not needed"}))
		}, "added by opencode"},
		{"dropping a task without a reason", pair.RuleReason, desk.Invalid, func() error { return second(s.ChangeTask(ctx, w, pair.TaskInput{Action: "drop", N: 1})) }, "needs a reason"},
		{"an unknown task", pair.RuleUnknownTask, desk.NotFound, func() error { return second(s.ChangeTask(ctx, w, pair.TaskInput{Action: "done", N: 42})) }, "no task #42"},
		{"an unknown task action", pair.RuleEmpty, desk.Invalid, func() error { return second(s.ChangeTask(ctx, w, pair.TaskInput{Action: "shelve", N: 1})) }, "not a task action"},
		{"moving back without a reason", pair.RuleReason, desk.Invalid, func() error { return second(s.Advance(ctx, c, "plan", "")) }, "needs a reason"},
		{"closing the round with nothing recorded", pair.RuleNoEvidence, desk.Conflict, func() error { return second(s.Advance(ctx, w, "done", "")) }, "no passing evidence"},
		{"a role that is no member", pair.RuleNotMember, desk.Forbidden, func() error {
			return second(s.Send(ctx, pair.Caller{Pair: e.p.ID, Role: "gemini"}, "hello", nil))
		}, "not a member"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			de := e.refusedAndUnchanged(tc.rule, tc.code, tc.call)
			if !strings.Contains(de.Message, tc.says) {
				t.Errorf("the refusal %q does not say %q", de.Message, tc.says)
			}
		})
	}
	// The batch handed to the writer is still its to acknowledge.
	if got := must(s.Read(ctx, w, pair.ReadInput{AckToken: batch.AckToken})); got.Acked == 0 {
		t.Errorf("the writer's own token was refused after the foreign one: %+v", got)
	}
}

func TestRefusalsOutsideAPair(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	for _, c := range []pair.Caller{{}, {Pair: e.p.ID}, {Role: "codex"}} {
		refused(t, second(e.svc.State(ctx, c)), pair.RuleNotInPair, desk.Forbidden)
	}
	if _, err := pair.CallerFromEnv(func(string) string { return "" }); desk.ErrorRule(err) != pair.RuleNotInPair {
		t.Errorf("no variables: %v", err)
	}
	env := map[string]string{pair.EnvPair: e.p.ID, pair.EnvRole: "Codex Critic"}
	if _, err := pair.CallerFromEnv(func(k string) string { return env[k] }); desk.ErrorRule(err) != pair.RuleRole {
		t.Errorf("a malformed role: %v", err)
	}
	if _, err := e.svc.State(ctx, pair.Caller{Pair: "p999", Role: "codex"}); desk.ErrorCode(err) != desk.NotFound {
		t.Errorf("an unknown pair: %v", err)
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	base := pair.NewInput{Project: "mygame", Folder: e.folder, Task: "t", Members: []string{"opencode", "codex"}}
	for _, tc := range []struct {
		name string
		edit func(in *pair.NewInput)
		rule string
	}{
		{"an unknown mode", func(in *pair.NewInput) { in.Mode = "refactor" }, pair.RuleUnknownMode},
		{"an unknown autonomy", func(in *pair.NewInput) { in.Autonomy = "full" }, pair.RuleUnknownLevel},
		{"one member", func(in *pair.NewInput) { in.Members = []string{"codex"} }, pair.RuleRole},
		{"a member twice", func(in *pair.NewInput) { in.Members = []string{"codex", "codex"} }, pair.RuleRole},
		{"a writer who is no member", func(in *pair.NewInput) { in.Writer = "gemini" }, pair.RuleNotMember},
		{"no task", func(in *pair.NewInput) { in.Task = " " }, pair.RuleEmpty},
		{"a relative folder", func(in *pair.NewInput) { in.Folder = "repo" }, pair.RuleOutsideFolder},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := base
			in.Members = append([]string(nil), base.Members...)
			tc.edit(&in)
			refused(t, second(e.svc.New(ctx, in)), tc.rule, desk.Invalid)
		})
	}
	if ps, _ := e.db.Pairs(ctx, pair.PairFilter{}); len(ps) != 1 {
		t.Errorf("refused pairs were made: %d pairs", len(ps))
	}
}

func TestATamperedPatchHaltsTheApply(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	s, w, c := e.svc, e.w, e.c
	must(s.Claim(ctx, w, "I write"))
	res := must(s.Reserve(ctx, c, "guard zero"))
	diff := must(s.Propose(ctx, c, []pair.ProposedFile{{Path: "src/retry.go", Content: fixedSource}}, "")).Patch
	// The critic writes its diff into the reserved file and seals it.
	data, err := os.ReadFile(diff.Path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(res.Patch.Path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	sealed := must(s.Seal(ctx, c, pair.PatchRef{Path: res.Patch.Path})).Patch
	// Someone changes the file after the seal.
	tampered := strings.Replace(string(data), "return 0", "return -1 // sneaked in", 1)
	if err := os.WriteFile(sealed.Path, []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	de := e.refusedAndUnchanged(pair.RuleSealMismatch, desk.Conflict, func() error { return second(s.Verify(ctx, w, pair.PatchRef{N: sealed.N})) })
	if !strings.Contains(de.Message, "halted") {
		t.Errorf("the mismatch does not say the apply is halted: %q", de.Message)
	}
	refused(t, second(s.Applied(ctx, w, pair.PatchRef{N: sealed.N}, true, "")), pair.RulePatchState, desk.Conflict)
	// A change after the verification halts the apply too.
	must(s.Verify(ctx, w, pair.PatchRef{N: diff.N}))
	if err := os.WriteFile(diff.Path, []byte(tampered), 0o600); err != nil {
		t.Fatal(err)
	}
	refused(t, second(s.Applied(ctx, w, pair.PatchRef{N: diff.N}, true, "")), pair.RuleSealMismatch, desk.Conflict)
	st := must(s.State(ctx, w))
	for _, g := range st.Blocking {
		if g.Rule == pair.RuleUnappliedPatch {
			return // the sealed patches keep blocking the round
		}
	}
	t.Errorf("sealed, unapplied patches do not block the round: %+v", st.Blocking)
}

func TestReleaseTakesOneExactPath(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	s, w, c := e.svc, e.w, e.c
	must(s.Claim(ctx, w, "I write"))
	p1 := must(s.Propose(ctx, c, []pair.ProposedFile{{Path: "src/retry.go", Content: fixedSource}}, "")).Patch
	p2 := must(s.Propose(ctx, c, []pair.ProposedFile{{Path: "src/new.go", Content: "package src\n"}}, "a new file")).Patch
	refused(t, second(s.ReleasePatch(ctx, c, filepath.Join(s.PatchDir(e.p.ID), "000?-codex.diff"))), pair.RuleGlob, desk.Invalid)
	refused(t, second(s.ReleasePatch(ctx, c, "0001-codex.diff")), pair.RuleOutsideFolder, desk.Forbidden)
	refused(t, second(s.ReleasePatch(ctx, c, filepath.Join(s.PatchDir(e.p.ID), "0009-codex.diff"))), pair.RuleUnknownPatch, desk.NotFound)
	got := must(s.ReleasePatch(ctx, c, p1.Path))
	if got.Patch.State != pair.PatchReleased {
		t.Fatalf("released: %+v", got.Patch)
	}
	if _, err := os.Stat(p1.Path); !os.IsNotExist(err) {
		t.Errorf("the released patch's file is still there: %v", err)
	}
	if _, err := os.Stat(p2.Path); err != nil {
		t.Errorf("releasing one patch touched another: %v", err)
	}
	// The new file's patch applies as git would.
	must(s.Verify(ctx, w, pair.PatchRef{N: p2.N}))
	gitApply(t, e.folder, p2.Path)
	if e.readFile("src/new.go") != "package src\n" {
		t.Errorf("the new file's patch gave %q", e.readFile("src/new.go"))
	}
}

func TestTheMailboxKeepsABatchUntilItsTokenComesBack(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	s, w, c := e.svc, e.w, e.c
	for i := 0; i < 25; i++ {
		must(s.Send(ctx, c, "letter", nil))
	}
	first := must(s.Read(ctx, w, pair.ReadInput{}))
	if len(first.Letters) != pair.DefaultReadLimit || !first.MustAck || first.LettersBehind != 5 || first.AckToken == "" {
		t.Fatalf("the first batch: %d letters, must_ack %v, behind %d", len(first.Letters), first.MustAck, first.LettersBehind)
	}
	again := must(s.Read(ctx, w, pair.ReadInput{}))
	if again.AckToken != first.AckToken || again.Letters[0].ID != first.Letters[0].ID {
		t.Fatalf("an unacknowledged batch was not handed out again: %+v", again)
	}
	if p := must(s.Ping(ctx, w)); p.Unread != 25 || p.Role != "opencode" {
		t.Errorf("ping before the ack: %+v", p)
	}
	next := must(s.Read(ctx, w, pair.ReadInput{AckToken: first.AckToken}))
	if len(next.Letters) != 5 || next.LettersBehind != 0 || next.Letters[0].ID <= first.Letters[19].ID {
		t.Fatalf("the batch after the ack: %+v", next)
	}
	refused(t, second(s.Read(ctx, w, pair.ReadInput{AckToken: first.AckToken})), pair.RuleStaleAck, desk.Invalid)
	must(s.Read(ctx, w, pair.ReadInput{AckToken: next.AckToken}))
	if p := must(s.Ping(ctx, w)); p.Unread != 0 {
		t.Errorf("ping after both acks: %+v", p)
	}
}

// A pair_read blocked in one process wakes when another process sends: two
// stores on one folder stand for the two MCP servers.
func TestAWaitingReadWakesOnALetterFromAnotherProcess(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	other, err := sqlite.Open(ctx, e.db.Dir(), sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	sender := &pair.Service{Store: other, PatchRoot: e.svc.PatchRoot}
	go func() {
		time.Sleep(300 * time.Millisecond)
		sender.Send(ctx, e.c, "wake up", nil)
	}()
	start := time.Now()
	got := must(e.svc.Read(ctx, e.w, pair.ReadInput{WaitSeconds: 20}))
	if len(got.Letters) != 1 || got.Letters[0].Body != "wake up" {
		t.Fatalf("the waiting read returned %+v", got)
	}
	if waited := time.Since(start); waited > 10*time.Second {
		t.Errorf("the read waited %v for a letter sent after 300 ms", waited)
	}
	// A wait past the cap says so; an empty wait says it waited.
	cctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	if _, err := e.svc.Read(cctx, e.w, pair.ReadInput{AckToken: got.AckToken, WaitSeconds: 120}); err != context.DeadlineExceeded {
		t.Errorf("a read whose context ended: %v", err)
	}
	short := must(e.svc.Read(ctx, e.w, pair.ReadInput{WaitSeconds: 0.2}))
	if len(short.Letters) != 0 || short.Waited == "" {
		t.Errorf("an empty wait: %+v", short)
	}
}

func TestTheWaitCapIsSaid(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	must(e.svc.Send(ctx, e.c, "already here", nil))
	got := must(e.svc.Read(ctx, e.w, pair.ReadInput{WaitSeconds: 300}))
	if !strings.Contains(got.Note, "capped at 60") || len(got.Letters) != 1 {
		t.Errorf("a wait over the cap: %+v", got)
	}
}
