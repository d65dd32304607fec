package mcp

import (
	"context"
	"fmt"
	"strings"

	"desk"
)

// stepItems is the schema of one plan step; a plain text is read as a step
// to do.
var stepItems = map[string]any{
	"type": tObject,
	"properties": map[string]any{
		"text":   map[string]any{"type": tString},
		"state":  map[string]any{"type": tString, "enum": desk.StepStates},
		"commit": map[string]any{"type": tString},
		"note":   map[string]any{"type": tString},
	},
	"required": []string{"text"},
}

var pStepState = param{name: "state", typ: tString, enum: desk.StepStates}

// planTools keep the agents' plans.
var planTools = []*tool{
	{
		name: "set_plan",
		desc: "Write or replace an issue's plan before you code. Steps whose text is unchanged keep their state.",
		params: []param{
			pID,
			{name: "steps", typ: tArray, required: true, items: stepItems, desc: "the steps in order ({text} or plain text)"},
			{name: "verification", typ: tString, desc: "how the result will be verified"},
			pAuthor,
		},
		run: setPlan,
	},
	{
		name: "update_step",
		desc: "Change one plan step: its state, the commit that did it, a note, its text. " +
			"Starting a step moves the issue to in_progress; finishing the last one moves it to auto_check.",
		params: []param{
			pID,
			{name: "index", typ: tInteger, required: true, min: intp(1), desc: "step number, 1 = first"},
			pStepState,
			{name: "commit", typ: tString, desc: "the commit that did it (\"\" clears)"},
			{name: "note", typ: tString, desc: "a note on the step (\"\" clears)"},
			{name: "text", typ: tString, desc: "new text for the step"},
			pAuthor,
		},
		run: updateStep,
	},
	{
		name: "progress",
		desc: "Report progress in one cheap call: a plan step's new state (and commit) and/or a short comment. Answers in one line.",
		params: []param{
			pID,
			{name: "text", typ: tString, desc: "a short comment, e.g. what landed"},
			{name: "step", typ: tInteger, min: intp(1), desc: "step number, 1 = first"},
			pStepState,
			{name: "commit", typ: tString, desc: "the commit that did the step"},
			pAuthor,
		},
		run: progressTool,
	},
}

type planAnswer struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Plan         string `json:"plan"`
	Verification string `json:"verification,omitempty"`
	Steps        []step `json:"steps"`
}

func planOf(d *desk.Issue) *planAnswer {
	return &planAnswer{ID: d.ID, Status: d.Status, Plan: progress(d.Progress), Verification: d.Plan.Verification, Steps: steps(d.Plan)}
}

func setPlan(ctx context.Context, s *server, a *args) (any, error) {
	st, err := desk.DecodeSteps(a.raw("steps"))
	if err != nil {
		return nil, err
	}
	if len(st) == 0 {
		return nil, argError("set_plan: steps is empty; a plan has at least one step")
	}
	d, err := s.db.SetPlan(ctx, a.str("id"), st, a.strp("verification"), s.author(a))
	if err != nil {
		return nil, err
	}
	return planOf(d), nil
}

func stepPatch(a *args) desk.StepPatch {
	return desk.StepPatch{State: a.strp("state"), Commit: a.strp("commit"), Note: a.strp("note"), Text: a.strp("text")}
}

func updateStep(ctx context.Context, s *server, a *args) (any, error) {
	p := stepPatch(a)
	if p == (desk.StepPatch{}) {
		return nil, argError("update_step: give state, commit, note or text")
	}
	d, err := s.db.UpdateStep(ctx, a.str("id"), a.integer("index", 0), p, s.author(a))
	if err != nil {
		return nil, err
	}
	return planOf(d), nil
}

func progressTool(ctx context.Context, s *server, a *args) (any, error) {
	var p *desk.StepPatch
	n := a.integer("step", 0)
	switch {
	case a.has("step"):
		p = &desk.StepPatch{State: a.strp("state"), Commit: a.strp("commit")}
		if p.State == nil && p.Commit == nil {
			return nil, argError("progress: with step, give its new state (and commit)")
		}
	case a.has("state") || a.has("commit"):
		return nil, argError("progress: say which step with step (1 = first)")
	}
	if p == nil && strings.TrimSpace(a.str("text")) == "" {
		return nil, argError("progress: give text, or step with state, or both")
	}
	res, err := s.db.Progress(ctx, a.str("id"), n, p, a.str("text"), s.author(a))
	if err != nil {
		return nil, err
	}
	is := res.Issue
	var did []string
	if p != nil {
		what := "changed"
		if p.State != nil {
			what = *p.State
		}
		did = append(did, fmt.Sprintf("step %d %s", n, what))
	}
	if res.CommentID != 0 {
		did = append(did, fmt.Sprintf("comment %d", res.CommentID))
	}
	line := fmt.Sprintf("%s: %s; now %s", is.ID, strings.Join(did, ", "), is.Status)
	if is.Progress.Total > 0 {
		line += ", plan " + progress(is.Progress)
	}
	return line, nil
}
