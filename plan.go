package desk

import (
	"encoding/json"
	"strings"
)

// Plan is an agent's plan for an issue: ordered steps ticked as commits land,
// and how the result will be verified. An issue with no plan has one with
// no steps; every field is always written (see MarshalJSON).
type Plan struct {
	Steps        []Step `json:"steps"`
	Verification string `json:"verification"`
	UpdatedAt    string `json:"updated_at"`
}

// Step is one step of a plan.
type Step struct {
	Text   string `json:"text"`
	State  string `json:"state"`
	Commit string `json:"commit"`
	Note   string `json:"note"`
}

// MarshalJSON writes the plan with every field, its steps a list even when
// there are none.
func (p Plan) MarshalJSON() ([]byte, error) { return p.appendJSON(nil), nil }

// Progress counts the plan's done steps among those not dropped.
func (p *Plan) Progress() Progress {
	var pr Progress
	for _, s := range p.Steps {
		switch s.State {
		case StepDone:
			pr.Done++
			pr.Total++
		case StepDropped:
		default:
			pr.Total++
		}
	}
	return pr
}

// OpenSteps returns the 1-based numbers of steps still todo or doing.
func (p *Plan) OpenSteps() []int {
	var open []int
	for i, s := range p.Steps {
		if s.State == StepTodo || s.State == StepDoing {
			open = append(open, i+1)
		}
	}
	return open
}

// StepPatch changes one step; nil fields stay, "" clears commit or note.
type StepPatch struct {
	State  *string
	Commit *string
	Note   *string
	Text   *string
}

// NormalizeSteps checks new plan steps and keeps the state, commit and note of
// each step whose text matches a step of the old plan, so that re-sending a
// plan with one more step loses no ticks.
func NormalizeSteps(steps []Step, old []Step) ([]Step, error) {
	if len(steps) > MaxPlanSteps {
		return nil, Errorf(Invalid, "steps: at most %d steps", MaxPlanSteps)
	}
	byText := map[string]Step{}
	for _, s := range old {
		byText[strings.ToLower(CollapseSpace(s.Text))] = s
	}
	out := make([]Step, 0, len(steps))
	for i, s := range steps {
		s.Text = CollapseSpace(s.Text)
		if s.Text == "" {
			return nil, Errorf(Invalid, "steps[%d]: text is empty", i)
		}
		if len(s.Text) > MaxStepText {
			return nil, Errorf(Invalid, "steps[%d]: text is longer than %d characters", i, MaxStepText)
		}
		if prev, ok := byText[strings.ToLower(s.Text)]; ok && s.State == "" {
			s.State, s.Commit, s.Note = prev.State, firstNonEmpty(s.Commit, prev.Commit), firstNonEmpty(s.Note, prev.Note)
		}
		if s.State == "" {
			s.State = StepTodo
		}
		if err := checkEnum("steps["+itoa(i)+"].state", s.State, StepStates); err != nil {
			return nil, err
		}
		s.Commit = strings.TrimSpace(s.Commit)
		if len(s.Commit) > MaxCommit {
			return nil, Errorf(Invalid, "steps[%d]: commit is longer than %d characters", i, MaxCommit)
		}
		if len(s.Note) > MaxNote {
			return nil, Errorf(Invalid, "steps[%d]: note is longer than %d characters", i, MaxNote)
		}
		out = append(out, s)
	}
	return out, nil
}

// DecodeSteps reads plan steps given as JSON: a list whose items are text or
// {text, state, commit, note}.
func DecodeSteps(raw json.RawMessage) ([]Step, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, Errorf(Invalid, "steps: expected a list of texts or {text, state, commit, note} objects")
	}
	steps := make([]Step, 0, len(items))
	for i, it := range items {
		var text string
		if err := json.Unmarshal(it, &text); err == nil {
			steps = append(steps, Step{Text: text})
			continue
		}
		var s struct {
			Text   *string `json:"text"`
			State  string  `json:"state"`
			Commit string  `json:"commit"`
			Note   string  `json:"note"`
		}
		if err := json.Unmarshal(it, &s); err != nil || s.Text == nil {
			return nil, Errorf(Invalid, "steps[%d]: expected a text or an object with a text", i)
		}
		steps = append(steps, Step{Text: *s.Text, State: s.State, Commit: s.Commit, Note: s.Note})
	}
	return steps, nil
}

var stepLine = LazyRegexp(`^\s*(?:[-*+]\s*(?:\[( |x|X|~|-)\]\s*)?|\d+[.)]\s*(?:\[( |x|X|~|-)\]\s*)?)(.*)$`)

// ParseStepsText reads a steps file: a JSON list, or one step per line in
// markdown ("- [x] done", "- [~] doing", "- [-] dropped", "- [ ] todo",
// "1. todo" or a bare line). Blank lines and headings are skipped.
func ParseStepsText(text string) ([]Step, error) {
	if t := strings.TrimSpace(text); strings.HasPrefix(t, "[") {
		return DecodeSteps(json.RawMessage(t))
	}
	var steps []Step
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		st := Step{State: StepTodo}
		if m := stepLine().FindStringSubmatch(line); m != nil {
			mark := m[1] + m[2]
			switch mark {
			case "x", "X":
				st.State = StepDone
			case "~":
				st.State = StepDoing
			case "-":
				st.State = StepDropped
			}
			st.Text = m[3]
		} else {
			st.Text = line
		}
		st.Text = CollapseSpace(st.Text)
		if st.Text != "" {
			steps = append(steps, st)
		}
	}
	if len(steps) == 0 {
		return nil, Errorf(Invalid, "steps file: no steps found; write one step per line (\"- [ ] step\") or a JSON list")
	}
	return steps, nil
}

// Reasons recorded when a plan moves an issue's status.
const (
	ReasonStepStarted = "a plan step started"
	ReasonPlanDone    = "every plan step is done; agent verification next"
	ReasonVerdict     = "verdict"
)

// StatusAfterStep decides where a step change moves the issue: a step that
// starts (doing, or done straight from todo) moves unfinished work to
// in_progress; the last open step ending, with at least one step done,
// moves it to auto_check. Parked, passed and closed issues never move.
// It returns "" when the status stays.
func StatusAfterStep(status, from, to string, plan *Plan) (next, reason string) {
	if status == StatusParked || IsDone(status) {
		return "", ""
	}
	pr := plan.Progress()
	if (to == StepDone || to == StepDropped) && len(plan.OpenSteps()) == 0 && pr.Done > 0 {
		switch status {
		case StatusReported, StatusOpen, StatusFailed, StatusInProgress, StatusAutoCheck, StatusToCheck:
			if status != StatusAutoCheck {
				return StatusAutoCheck, ReasonPlanDone
			}
		}
		return "", ""
	}
	started := to == StepDoing || (to == StepDone && from == StepTodo)
	if started {
		switch status {
		case StatusReported, StatusOpen, StatusFailed, StatusToCheck, StatusAutoCheck:
			return StatusInProgress, ReasonStepStarted
		}
	}
	return "", ""
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// NormalizeVerification checks a plan's verification text (nil: keep the
// old one).
func NormalizeVerification(v *string) (*string, error) {
	if v == nil {
		return nil, nil
	}
	t := strings.TrimSpace(*v)
	if len(t) > MaxVerification {
		return nil, Errorf(Invalid, "verification: longer than %d characters", MaxVerification)
	}
	return &t, nil
}

// NewPlan replaces old's steps with steps (keeping the state of steps whose
// text is unchanged) and, when verification is not nil, its verification.
// It returns the plan and the detail of its "plan" timeline entry.
func NewPlan(old Plan, steps []Step, verification *string, now string) (Plan, map[string]any, error) {
	norm, err := NormalizeSteps(steps, old.Steps)
	if err != nil {
		return Plan{}, nil, err
	}
	plan := Plan{Steps: norm, Verification: old.Verification, UpdatedAt: now}
	if verification != nil {
		plan.Verification = *verification
	}
	texts := make([]string, len(norm))
	for i, s := range norm {
		texts[i] = s.Text
	}
	pr := plan.Progress()
	detail := map[string]any{"op": "set", "steps": texts, "done": pr.Done, "total": pr.Total}
	if plan.Verification != "" {
		detail["verification"] = plan.Verification
	}
	if len(old.Steps) > 0 {
		detail["replaced"] = true
	}
	return plan, detail, nil
}

// NormalizeStepPatch checks a step change's state as a client sends it.
func NormalizeStepPatch(p *StepPatch) error {
	if p.State == nil {
		return nil
	}
	s := strings.ToLower(strings.TrimSpace(*p.State))
	if err := CheckEnum("state", s, StepStates); err != nil {
		return err
	}
	p.State = &s
	return nil
}

// StepChange is what a change of one plan step does: the new plan, the
// detail of its "plan" timeline entry, and the status the issue moves to
// with the reason ("" when it stays).
type StepChange struct {
	Plan   Plan
	Detail map[string]any
	Status string
	Reason string
}

// ChangeStep applies patch p to step n (1 = first) of is's plan.
func ChangeStep(is *Issue, n int, p StepPatch, now string) (*StepChange, error) {
	steps := is.Plan.Steps
	if len(steps) == 0 {
		return nil, Errorf(Invalid, "%s has no plan yet: write one with set_plan (CLI: desk plan %s --step ...)", is.ID, is.ID).
			WithHint("set_plan first")
	}
	if n < 1 || n > len(steps) {
		return nil, Errorf(Invalid, "step %d: %s's plan has steps 1 to %d", n, is.ID, len(steps))
	}
	plan := is.Plan
	plan.Steps = append([]Step(nil), steps...)
	st := &plan.Steps[n-1]
	detail := map[string]any{"op": "step", "index": n}
	from := st.State
	if p.Text != nil {
		t := CollapseSpace(*p.Text)
		if t == "" || len(t) > MaxStepText {
			return nil, Errorf(Invalid, "text: a step's text is 1 to %d characters", MaxStepText)
		}
		if t != st.Text {
			detail["old_text"] = st.Text
			st.Text = t
		}
	}
	if p.State != nil && *p.State != st.State {
		detail["from"], detail["to"] = st.State, *p.State
		st.State = *p.State
	}
	if p.Commit != nil {
		c := strings.TrimSpace(*p.Commit)
		if len(c) > MaxCommit {
			return nil, Errorf(Invalid, "commit: longer than %d characters", MaxCommit)
		}
		st.Commit = c
		if c != "" {
			detail["commit"] = c
		}
	}
	if p.Note != nil {
		note := strings.TrimSpace(*p.Note)
		if len(note) > MaxNote {
			return nil, Errorf(Invalid, "note: longer than %d characters", MaxNote)
		}
		st.Note = note
		if note != "" {
			detail["note"] = note
		}
	}
	plan.UpdatedAt = now
	pr := plan.Progress()
	detail["text"], detail["done"], detail["total"] = st.Text, pr.Done, pr.Total
	c := &StepChange{Plan: plan, Detail: detail}
	if p.State != nil && *p.State != from {
		c.Status, c.Reason = StatusAfterStep(is.Status, from, *p.State, &plan)
	}
	return c, nil
}
