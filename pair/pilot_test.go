package pair_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
	"desk/pair"
)

// terms stands in for desk's managed terminals in these unit tests only:
// a screen per session (the real screens of testdata), what was typed and
// pressed, and which processes run.
type terms struct {
	mu      sync.Mutex
	screens map[string]string
	dead    map[string]bool
	typed   map[string][]string
	keys    map[string][]string
	resumed []string
}

func newTerms() *terms {
	return &terms{screens: map[string]string{}, dead: map[string]bool{}, typed: map[string][]string{}, keys: map[string][]string{}}
}

func (f *terms) Screen(_ context.Context, s string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	scr, ok := f.screens[s]
	if !ok {
		return "", fmt.Errorf("no session %s", s)
	}
	return scr, nil
}

func (f *terms) Type(_ context.Context, s, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.typed[s] = append(f.typed[s], text)
	return nil
}

func (f *terms) Keys(_ context.Context, s string, keys ...string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.keys[s] = append(f.keys[s], keys...)
	return nil
}

func (f *terms) Launch(context.Context, pair.Launch) (string, error) {
	return "", fmt.Errorf("not in these tests")
}

func (f *terms) Resume(_ context.Context, s, resumeID string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.resumed = append(f.resumed, s+"/"+resumeID)
	next := s + "-r"
	f.screens[next] = f.screens[s]
	return next, nil
}

func (f *terms) Alive(_ context.Context, s string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.dead[s], nil
}

func (f *terms) set(s, screen string) {
	f.mu.Lock()
	f.screens[s] = screen
	f.mu.Unlock()
}

// managed gives the pair's members sessions, as desk pair up will.
func (e *env) managed(f *terms, sessions map[string]string) {
	e.t.Helper()
	e.svc.Terminals = f
	err := e.db.Update(ctx, e.p.ID, func(tx pair.Tx) error {
		p := tx.Pair()
		for i := range p.Members {
			if s, ok := sessions[p.Members[i].Role]; ok {
				p.Members[i].Session, p.Members[i].ResumeID = s, "resume-"+s
			}
		}
		return tx.SavePair(p)
	})
	if err != nil {
		e.t.Fatal(err)
	}
}

func (e *env) kinds(round int) map[string]int {
	e.t.Helper()
	out := map[string]int{}
	tr := must(e.svc.PairTranscript(ctx, e.p.ID, pair.TranscriptFilter{Round: round, Limit: 2000}))
	for _, ev := range tr.Entries {
		out[ev.Kind]++
	}
	return out
}

func TestDeliverTypesAPointerWhenTheComposerShows(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	f := newTerms()
	f.set("s-codex", screen(t, "codex-idle.txt"))
	f.set("s-open", screen(t, "claude-busy.txt"))
	e.managed(f, map[string]string{"codex": "s-codex", "opencode": "s-open"})
	got := must(e.svc.Deliver(ctx, e.w, "please review patch 1", nil))
	if len(got.Delivery) != 1 || !got.Delivery[0].Typed {
		t.Fatalf("delivery to an idle composer: %+v", got.Delivery)
	}
	if typed := f.typed["s-codex"]; len(typed) != 1 || !strings.Contains(typed[0], fmt.Sprintf("letter #%d from opencode", got.Letters[0])) ||
		!slices.Equal(f.keys["s-codex"], []string{pair.KeyEnter}) {
		t.Errorf("typed %q and pressed %v", f.typed["s-codex"], f.keys["s-codex"])
	}
	// A busy peer gets the letter, and the pointer waits.
	back := must(e.svc.Deliver(ctx, e.c, "done", nil))
	if back.Delivery[0].Typed || !back.Delivery[0].Deferred || len(f.typed["s-open"]) != 0 {
		t.Fatalf("delivery to a busy terminal: %+v, typed %q", back.Delivery, f.typed["s-open"])
	}
	if mail := must(e.svc.Read(ctx, e.w, pair.ReadInput{})); len(mail.Letters) != 1 {
		t.Errorf("the mailbox lost the letter: %+v", mail)
	}
	// Once the writer's composer shows, the supervisor types it.
	f.set("s-open", screen(t, "claude-idle.txt"))
	pl := &pair.Pilot{Service: e.svc}
	acts := must(pl.Pass(ctx, e.p.ID))
	if len(acts) != 1 || acts[0].Kind != pair.EventDelivered || len(f.typed["s-open"]) != 1 {
		t.Errorf("the supervisor's pass: %+v, typed %q", acts, f.typed["s-open"])
	}
	if again := must(pl.Pass(ctx, e.p.ID)); len(again) != 0 {
		t.Errorf("a second pass did more: %+v", again)
	}
	// Without managed sessions the mailbox works alone.
	e.svc.Terminals = nil
	alone := must(e.svc.Deliver(ctx, e.w, "by hand", nil))
	if alone.Delivery[0].Typed || !strings.Contains(alone.Delivery[0].Why, "mailbox") {
		t.Errorf("delivery with no terminals: %+v", alone.Delivery)
	}
}

func TestUnblockAnswersOnlyAllowlistedPrompts(t *testing.T) {
	e := newEnv(t, pair.NewInput{})
	f := newTerms()
	f.set("s-codex", screen(t, "codex-bash-a.txt")) // git status
	e.managed(f, map[string]string{"codex": "s-codex"})
	ok := must(e.svc.Unblock(ctx, e.w, ""))
	if ok.Decision == nil || !ok.Decision.Approve || !slices.Equal(f.keys["s-codex"], []string{pair.KeyY}) {
		t.Fatalf("git status: %+v, keys %v", ok, f.keys["s-codex"])
	}
	f.set("s-codex", screen(t, "codex-bash-b.txt")) // npm install
	no := must(e.svc.Unblock(ctx, e.w, "codex"))
	if no.Decision.Approve || len(f.keys["s-codex"]) != 1 || !strings.Contains(no.Note, "left open") {
		t.Fatalf("npm install: %+v, keys %v", no, f.keys["s-codex"])
	}
	tr := must(e.svc.PairTranscript(ctx, e.p.ID, pair.TranscriptFilter{Kinds: []string{pair.EventApproved, pair.EventDenied}}))
	if len(tr.Entries) != 2 || !strings.Contains(tr.Entries[0].Text, `"git status"`) || !strings.Contains(tr.Entries[1].Text, `"npm install left-pad"`) {
		t.Errorf("the transcript does not carry the exact prompt lines: %+v", tr.Entries)
	}
	f.set("s-codex", screen(t, "codex-idle.txt"))
	if none := must(e.svc.Unblock(ctx, e.w, "")); none.Prompt != nil || !strings.Contains(none.Note, "no permission prompt") {
		t.Errorf("nothing to unblock: %+v", none)
	}
	e.refusedAndUnchanged(pair.RuleNoTerminal, desk.Conflict, func() error { return second(e.svc.Unblock(ctx, e.c, "")) })
}

func TestObserveLeavesPromptsAndRestartsToTheOwner(t *testing.T) {
	e := newEnv(t, pair.NewInput{Autonomy: "observe"})
	f := newTerms()
	f.set("s-codex", screen(t, "codex-bash-a.txt"))
	f.set("s-open", screen(t, "claude-idle.txt"))
	f.dead["s-open"] = true
	e.managed(f, map[string]string{"codex": "s-codex", "opencode": "s-open"})
	refused(t, second(e.svc.Unblock(ctx, e.w, "")), pair.RuleObserve, desk.Conflict)
	acts := must((&pair.Pilot{Service: e.svc}).Pass(ctx, e.p.ID))
	if len(acts) != 0 || len(f.keys["s-codex"]) != 0 || len(f.resumed) != 0 {
		t.Errorf("the supervisor acted in observe: %+v, keys %v, resumed %v", acts, f.keys, f.resumed)
	}
}

// The supervisor keeps a pair going, and never does what is the agents'
// or the owner's: no phase, no authority, no patch, no file of the folder.
func TestTheSupervisorKeepsThePairGoingAndNeverActsForIt(t *testing.T) {
	e := newEnv(t, pair.NewInput{Autonomy: "semi"})
	s := e.svc
	must(s.Claim(ctx, e.w, "I write"))
	must(s.Advance(ctx, e.w, "code", ""))
	pt := must(s.Propose(ctx, e.c, []pair.ProposedFile{{Path: "src/retry.go", Content: fixedSource}}, "guard zero")).Patch
	must(s.Send(ctx, e.w, "read this when you can", nil))
	f := newTerms()
	f.set("s-codex", screen(t, "claude-bash-a.txt")) // git status, waiting for a yes
	f.set("s-open", screen(t, "codex-idle.txt"))
	f.dead["s-open"] = true // the writer's process died
	e.managed(f, map[string]string{"codex": "s-codex", "opencode": "s-open"})

	before := must(s.PairState(ctx, e.p.ID))
	folderBefore := tree(t, e.folder)
	now := time.Now()
	s.Now = func() time.Time { return now }
	e.db.Now = func() time.Time { return now.Add(time.Hour) } // an hour on: everyone silent, the patch waiting
	pl := &pair.Pilot{Service: s}

	acts := must(pl.Pass(ctx, e.p.ID))
	got := map[string]int{}
	for _, a := range acts {
		got[a.Kind]++
	}
	if got[pair.EventRestart] != 1 || got[pair.EventApproved] != 1 || got[pair.EventPatchWaiting] != 1 {
		t.Fatalf("the first pass: %+v", acts)
	}
	if len(f.resumed) != 1 || f.resumed[0] != "s-open/resume-s-open" {
		t.Errorf("the restart: %v", f.resumed)
	}
	if !slices.Equal(f.keys["s-codex"], []string{pair.KeyEnter}) {
		t.Errorf("the allowlisted prompt was answered with %v", f.keys["s-codex"])
	}
	// The restarted writer's session is read on the next pass: the critic,
	// silent with unread mail, is nudged once.
	f.set("s-codex", screen(t, "claude-idle.txt"))
	acts = must(pl.Pass(ctx, e.p.ID))
	got = map[string]int{}
	for _, a := range acts {
		got[a.Kind]++
	}
	// Both are silent with a letter each: the critic's, and the writer's
	// news of the sealed patch.
	if got[pair.EventNudge] != 2 || len(f.typed["s-codex"]) != 1 || !strings.Contains(f.typed["s-codex"][0], "1 unread letter") || len(f.typed["s-open-r"]) != 1 {
		t.Errorf("the second pass: %+v, typed %q", acts, f.typed)
	}
	if again := must(pl.Pass(ctx, e.p.ID)); len(again) != 0 {
		t.Errorf("a third pass repeated itself: %+v", again)
	}
	// A refused prompt is logged once and left open.
	f.set("s-codex", screen(t, "claude-bash-d.txt"))
	first := must(pl.Pass(ctx, e.p.ID))
	second := must(pl.Pass(ctx, e.p.ID))
	if len(first) != 1 || first[0].Kind != pair.EventDenied || len(second) != 0 || len(f.keys["s-codex"]) != 2 {
		t.Errorf("a never-list prompt: %+v then %+v, keys %v", first, second, f.keys["s-codex"])
	}

	after := must(s.PairState(ctx, e.p.ID))
	if after.Phase != before.Phase || after.Writer != before.Writer || after.Round != before.Round || len(after.Tasks) != len(before.Tasks) {
		t.Errorf("the supervisor moved the pair: %s/%s/%d, was %s/%s/%d", after.Phase, after.Writer, after.Round, before.Phase, before.Writer, before.Round)
	}
	for _, p := range after.Patches {
		if p.N == pt.N && p.State != pair.PatchSealed {
			t.Errorf("the supervisor moved patch #%d to %s", p.N, p.State)
		}
	}
	if got := tree(t, e.folder); got != folderBefore {
		t.Errorf("the supervisor touched the folder:\nbefore %s\nafter  %s", folderBefore, got)
	}
	k := e.kinds(0)
	for _, kind := range []string{pair.EventClaim, pair.EventRelease, pair.EventAdvance, pair.EventVeto} {
		tr := must(s.PairTranscript(ctx, e.p.ID, pair.TranscriptFilter{Kinds: []string{kind}}))
		for _, ev := range tr.Entries {
			if ev.Role == pair.RolePilot {
				t.Errorf("the supervisor wrote a %s: %+v", kind, ev)
			}
		}
	}
	if k[pair.EventRestart] != 1 || k[pair.EventNudge] != 2 || k[pair.EventApproved] != 1 || k[pair.EventDenied] != 1 {
		t.Errorf("the supervisor's entries: %v", k)
	}
}

func TestTheSupervisorReportsAndParks(t *testing.T) {
	e := newEnv(t, pair.NewInput{Autonomy: "semi"})
	s := e.svc
	pl := &pair.Pilot{Service: s}
	must(s.Claim(ctx, e.w, "I write"))
	must(s.AddEvidence(ctx, e.w, "tests", "ok", true))
	acts := must(pl.Pass(ctx, e.p.ID))
	if len(acts) != 1 || acts[0].Kind != pair.EventReport || !strings.Contains(acts[0].Text, "desk pair ok") {
		t.Fatalf("a semi round waiting for its owner: %+v", acts)
	}
	if again := must(pl.Pass(ctx, e.p.ID)); len(again) != 0 {
		t.Errorf("the report was repeated: %+v", again)
	}
	must(s.OK(ctx, e.p.ID))
	must(s.Advance(ctx, e.w, "done", ""))
	acts = must(pl.Pass(ctx, e.p.ID))
	if len(acts) != 2 || acts[0].Kind != pair.EventRoundReport || acts[1].Kind != pair.EventParked {
		t.Fatalf("a done round: %+v", acts)
	}
	// The report sums the round up for an owner who was not watching.
	if r := acts[0].Text; !strings.Contains(r, "round 1 of pair "+e.p.ID+" closed") || !strings.Contains(r, "writer opencode") || !strings.Contains(r, "evidence: tests passed") {
		t.Errorf("the round's report: %q", r)
	}
	if again := must(pl.Pass(ctx, e.p.ID)); len(again) != 0 {
		t.Errorf("the report or the parking was repeated: %+v", again)
	}
	must(s.Stop(ctx, e.p.ID, ""))
	if stopped := must(pl.Pass(ctx, e.p.ID)); len(stopped) != 0 {
		t.Errorf("a stopped pair: %+v", stopped)
	}
}

// tree lists a folder's files with their sizes and times.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var b strings.Builder
	filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if fi.Name() == ".git" {
			return filepath.SkipDir
		}
		fmt.Fprintf(&b, "%s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
	return b.String()
}
