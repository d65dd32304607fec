package desk_test

import (
	"strings"
	"testing"

	"desk"
)

func plan(states ...string) *desk.Plan {
	p := &desk.Plan{}
	for i, s := range states {
		p.Steps = append(p.Steps, desk.Step{Text: string(rune('a' + i)), State: s})
	}
	return p
}

func TestStatusAfterStep(t *testing.T) {
	cases := []struct {
		name, status, from, to string
		plan                   *desk.Plan
		want                   string
	}{
		{"StartMovesToInProgress", desk.StatusOpen, "todo", "doing", plan("doing", "todo"), desk.StatusInProgress},
		{"DoneFromTodoStarts", desk.StatusReported, "todo", "done", plan("done", "todo"), desk.StatusInProgress},
		{"LastDoneMovesToAutoCheck", desk.StatusInProgress, "doing", "done", plan("done", "done"), desk.StatusAutoCheck},
		{"LastDroppedWithOneDone", desk.StatusInProgress, "todo", "dropped", plan("done", "dropped"), desk.StatusAutoCheck},
		{"AllDroppedStays", desk.StatusInProgress, "todo", "dropped", plan("dropped", "dropped"), ""},
		{"ParkedNeverMoves", desk.StatusParked, "todo", "doing", plan("doing"), ""},
		{"PassedNeverMoves", desk.StatusPassed, "done", "done", plan("done"), ""},
		{"InProgressStays", desk.StatusInProgress, "todo", "doing", plan("doing", "todo"), ""},
		{"FailedRestarts", desk.StatusFailed, "done", "doing", plan("doing"), desk.StatusInProgress},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, _ := desk.StatusAfterStep(c.status, c.from, c.to, c.plan)
			if got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestParseStepsText(t *testing.T) {
	steps, err := desk.ParseStepsText("# Plan\n- [x] Round the tips\n- [~] Clamp to ground\n- [-] Old idea\n1. Screenshot\nPlain line\n\n")
	if err != nil {
		t.Fatal(err)
	}
	want := []desk.Step{{Text: "Round the tips", State: "done"}, {Text: "Clamp to ground", State: "doing"},
		{Text: "Old idea", State: "dropped"}, {Text: "Screenshot", State: "todo"}, {Text: "Plain line", State: "todo"}}
	if len(steps) != len(want) {
		t.Fatalf("steps = %+v", steps)
	}
	for i := range want {
		if steps[i] != want[i] {
			t.Errorf("step %d = %+v, want %+v", i, steps[i], want[i])
		}
	}
	js, err := desk.ParseStepsText(`["a", {"text": "b", "state": "done"}]`)
	if err != nil || len(js) != 2 || js[1].State != "done" {
		t.Fatalf("JSON steps = %+v, %v", js, err)
	}
	if _, err := desk.ParseStepsText("\n\n"); desk.ErrorCode(err) != desk.Invalid {
		t.Fatalf("empty file: %v", err)
	}
}

func TestNormalizeStepsKeepsTicks(t *testing.T) {
	old := []desk.Step{{Text: "Round the tips", State: "done", Commit: "abc"}}
	got, err := desk.NormalizeSteps([]desk.Step{{Text: "round  the tips"}, {Text: "Clamp"}}, old)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].State != "done" || got[0].Commit != "abc" || got[1].State != "todo" {
		t.Fatalf("%+v", got)
	}
}

func TestHandoverProblem(t *testing.T) {
	p := &desk.Project{}
	is := &desk.Issue{ID: "MG-1", Plan: *plan("done", "todo")}
	err := desk.HandoverProblem(is, p)
	if desk.ErrorCode(err) != desk.Conflict {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"open plan steps (2)", "no location command"} {
		if !contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	is.Plan = *plan("done", "dropped")
	is.Location.Commands = []desk.LocationCommand{{Command: "/goto 1"}}
	if err := desk.HandoverProblem(is, p); err != nil {
		t.Fatalf("ready issue refused: %v", err)
	}
	p.BuildsEnabled = true
	if err := desk.HandoverProblem(is, p); err == nil || !contains(err.Error(), "no current build") {
		t.Fatalf("no current build: %v", err)
	}
}

func TestOnlyOwnerPasses(t *testing.T) {
	for _, actor := range []string{"claude", "agent", "game", "codex", ""} {
		if err := desk.CheckStatusChange(actor, desk.StatusPassed); desk.ErrorCode(err) != desk.Forbidden {
			t.Errorf("%q marked passed: %v", actor, err)
		}
	}
	if err := desk.CheckStatusChange("Owner", desk.StatusPassed); err != nil {
		t.Errorf("owner refused: %v", err)
	}
	if err := desk.CheckVerdict("claude", "failed"); err != nil {
		t.Errorf("an agent may report failed: %v", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
