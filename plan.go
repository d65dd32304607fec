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
