package pair

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Task actions.
const (
	TaskAdd  = "add"
	TaskDo   = "done"
	TaskDrop = "drop"
)

// TaskAnswer answers pair_task: the task it touched and the open ones
// (the oldest MaxTasksShown of them; OpenCount counts them all).
type TaskAnswer struct {
	Task      *Task  `json:"task"`
	Open      []Task `json:"open"`
	OpenCount int    `json:"open_count"`
}

// MaxTasksShown bounds the open tasks an answer lists.
const MaxTasksShown = 20

// TaskInput is pair_task's arguments.
type TaskInput struct {
	Action string
	Text   string
	N      int
	Reason string
}

// ChangeTask adds a task (either side), marks one done (the writer only)
// or drops one with a reason (the writer, or the member who added it).
// The list is append-only: a closed task stays, with who closed it and why.
func (s *Service) ChangeTask(ctx context.Context, c Caller, in TaskInput) (*TaskAnswer, error) {
	action := strings.ToLower(strings.TrimSpace(in.Action))
	var out *TaskAnswer
	err := s.act(ctx, c, "pair_task", func(k *call) error {
		var t *Task
		switch action {
		case TaskAdd:
			text := strings.TrimSpace(in.Text)
			switch {
			case text == "":
				return refuse(RuleEmpty, invalid, "pair_task add needs text").WithHint("say what is to be done, e.g. \"test the retry with a zero jitter\"")
			case len(text) > MaxTaskText:
				return tooLarge("the task", len(text), MaxTaskText, "keep a task to one line and put the detail in a note")
			}
			t = &Task{Text: text, State: TaskOpen, Round: k.p.Round, AddedBy: k.role}
			if err := k.tx.AddTask(t); err != nil {
				return err
			}
			if _, err := k.log(EventTask, fmt.Sprintf("%s added task #%d: %s", k.role, t.N, text), map[string]any{"action": action, "task": t.N}); err != nil {
				return err
			}
		case TaskDo, TaskDrop:
			var err error
			if t, err = k.tx.Task(in.N); err != nil {
				return err
			}
			if t == nil {
				return refuse(RuleUnknownTask, notFound, "pair %s has no task #%d", k.p.ID, in.N).WithHint("pair_state lists the open tasks with their numbers")
			}
			if t.State != TaskOpen {
				return refuse(RuleTaskState, conflict, "task #%d is %s already (by %s)", t.N, t.State, t.ClosedBy).
					WithHint("the list is append-only: add a new task for new work")
			}
			reason := strings.TrimSpace(in.Reason)
			if action == TaskDo {
				if err := k.needWriter("closing a task"); err != nil {
					return err
				}
				t.State = TaskDone
			} else {
				if reason == "" {
					return refuse(RuleReason, invalid, "dropping task #%d needs a reason", t.N).WithHint("say why it is no longer to be done")
				}
				if !k.isWriter() && t.AddedBy != k.role {
					return refuse(RuleRole, forbidden, "task #%d was added by %s: only the writer or %s drops it", t.N, t.AddedBy, t.AddedBy).
						WithHint("ask the writer with pair_send, or add a note why it should go")
				}
				if len(reason) > MaxRationale {
					return tooLarge("the reason", len(reason), MaxRationale, "one or two sentences are enough")
				}
				t.State = TaskDropped
			}
			at := k.at
			t.ClosedBy, t.ClosedAt, t.Reason = k.role, &at, reason
			if err := k.tx.SaveTask(t); err != nil {
				return err
			}
			text := fmt.Sprintf("%s marked task #%d %s", k.role, t.N, t.State)
			if reason != "" {
				text += ": " + reason
			}
			if _, err := k.log(EventTask, text, map[string]any{"action": action, "task": t.N, "reason": reason}); err != nil {
				return err
			}
		default:
			return refuse(RuleEmpty, invalid, "%q is not a task action: use add, done or drop", clip(in.Action, 40)).
				WithHint("add with text; done or drop with the task's number")
		}
		open, err := k.tx.Tasks(TaskFilter{State: TaskOpen, Limit: MaxTasksShown})
		if err != nil {
			return err
		}
		out = &TaskAnswer{Task: t, Open: open, OpenCount: len(open)}
		if out.Open == nil {
			out.Open = []Task{}
		}
		if len(open) == MaxTasksShown {
			out.OpenCount, err = k.tx.CountTasks(TaskFilter{State: TaskOpen})
		}
		return err
	})
	return out, err
}

// EvidenceAnswer answers pair_evidence.
type EvidenceAnswer struct {
	Evidence *Evidence `json:"evidence"`
	// Closable lists what still keeps the round from closing.
	Blocking []Gate `json:"blocking"`
}

// AddEvidence records a fact for the round: a test run, a lint, a type
// check, a commit, a PR. Either side records it; the transcript says who.
func (s *Service) AddEvidence(ctx context.Context, c Caller, kind, text string, passed bool) (*EvidenceAnswer, error) {
	kind = strings.ToLower(strings.TrimSpace(kind))
	text = strings.TrimSpace(text)
	var out *EvidenceAnswer
	err := s.act(ctx, c, "pair_evidence", func(k *call) error {
		switch {
		case !slices.Contains(EvidenceKinds, kind):
			return refuse(RuleEmpty, invalid, "%q is not a kind of evidence: use %s", clip(kind, 40), strings.Join(EvidenceKinds, ", ")).
				WithHint("e.g. kind tests with the command and its result")
		case text == "":
			return refuse(RuleEmpty, invalid, "pair_evidence needs text: the command and its outcome, the commit or the PR").
				WithHint("e.g. \"go test ./... ok, 214 tests\"")
		case len(text) > MaxEvidence:
			return tooLarge("the evidence", len(text), MaxEvidence, "give the command and the outcome's last lines")
		}
		e := &Evidence{Round: k.p.Round, Kind: kind, Text: text, Passed: passed, Role: k.role}
		if err := k.tx.AddEvidence(e); err != nil {
			return err
		}
		mark := "passed"
		if !passed {
			mark = "failed"
		}
		if _, err := k.log(EventEvidence, fmt.Sprintf("%s evidence (%s): %s", kind, mark, clip(text, 300)), map[string]any{"kind": kind, "passed": passed}); err != nil {
			return err
		}
		gs, err := gates(k.tx, k.p)
		if gs == nil {
			gs = []Gate{}
		}
		out = &EvidenceAnswer{Evidence: e, Blocking: gs}
		return err
	})
	return out, err
}
