package pair

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"desk"
)

// NewInput is what a new pair is made of: desk pair new's flags.
type NewInput struct {
	Project string
	Folder  string // absolute
	Task    string
	Members []string
	Mode    string // default fix
	// Autonomy is the level given on the command line; "" resolves it
	// from the task's first line, the folder's .desk-pair/autonomy, or
	// auto (see ResolveAutonomy).
	Autonomy string
	// Writer, when set, pins the member who claims first.
	Writer string
}

// New makes a pair. Its members are roles named after their CLIs
// (opencode, codex), at least two and all different.
func (s *Service) New(ctx context.Context, in NewInput) (*Pair, error) {
	in.Task = strings.TrimSpace(in.Task)
	switch {
	case in.Task == "":
		return nil, refuse(RuleEmpty, invalid, "a pair needs a task").WithHint("say what the pair is to do with --task")
	case len(in.Task) > MaxTask:
		return nil, tooLarge("the task", len(in.Task), MaxTask, "keep the task short and put the detail in a file the agents read")
	case !filepath.IsAbs(in.Folder):
		return nil, refuse(RuleOutsideFolder, invalid, "the pair's folder must be an absolute path, not %q", in.Folder).WithHint("pass --cwd with an absolute path")
	}
	if fi, err := os.Stat(in.Folder); err != nil || !fi.IsDir() {
		return nil, refuse(RuleOutsideFolder, invalid, "%s is not a folder", in.Folder).WithHint("pass --cwd with the repo or worktree the agents work in")
	}
	if in.Mode == "" {
		in.Mode = ModeFix
	}
	if err := CheckMode(in.Mode); err != nil {
		return nil, err
	}
	var members []string
	for _, m := range in.Members {
		m = strings.ToLower(strings.TrimSpace(m))
		if m == "" {
			continue
		}
		if err := CheckRole(m); err != nil {
			return nil, err
		}
		if m == RoleOwner || m == RolePilot {
			return nil, refuse(RuleRole, invalid, "%s is desk's own name for the %s, not a member's", m, m).WithHint("name the members after their CLIs, e.g. opencode,codex")
		}
		if slices.Contains(members, m) {
			return nil, refuse(RuleRole, invalid, "%s is named twice: two of one CLI are two instances, e.g. %s-writer,%s-critic", m, m, m).
				WithHint("give each member its own role")
		}
		members = append(members, m)
	}
	if len(members) < 2 {
		return nil, refuse(RuleRole, invalid, "a pair needs two members, e.g. --members opencode,codex").WithHint("one writes, the other attacks the work")
	}
	if len(members) > 8 {
		return nil, refuse(RuleRole, invalid, "a pair takes at most 8 members").WithHint("one writer and a few critics")
	}
	writer := strings.ToLower(strings.TrimSpace(in.Writer))
	if writer != "" && !slices.Contains(members, writer) && instanceOf(writer, members) == "" {
		return nil, refuse(RuleNotMember, invalid, "the writer %s is not one of the members (%s)", writer, strings.Join(members, ", ")).
			WithHint("name one of --members with --writer")
	}
	level, source, err := ResolveAutonomy(in.Autonomy, in.Task, in.Folder)
	if err != nil {
		return nil, err
	}
	return s.Store.CreatePair(ctx, NewPair{Project: in.Project, Folder: in.Folder, Task: in.Task, Mode: in.Mode, Autonomy: level,
		AutonomySource: source, PinnedWriter: writer, Members: members, Budget: DefaultBudget}, RoleOwner)
}

// Autonomy sources, strongest first.
const (
	SourceFlag    = "flag"
	SourceTask    = "task"
	SourceFile    = "file"
	SourceDefault = "default"
)

// AutonomyFile is the file in a working folder that sets the pair's
// autonomy level: one word.
const AutonomyFile = ".desk-pair/autonomy"

var autonomyLine = regexp.MustCompile(`(?i)\bautonomy:\s*([a-z]+)\b`)

// ResolveAutonomy picks a pair's level once, at launch: the flag (a
// malformed one is an error, so that a level nobody chose never starts
// silently), else "autonomy: LEVEL" on the task's first line, else the
// folder's .desk-pair/autonomy, else auto. A malformed task line or file
// falls through to the next source: the level chosen shows in the pair's
// status.
func ResolveAutonomy(flag, task, folder string) (level, source string, err error) {
	if flag = strings.ToLower(strings.TrimSpace(flag)); flag != "" {
		if err := CheckAutonomy(flag); err != nil {
			return "", "", err
		}
		return flag, SourceFlag, nil
	}
	first, _, _ := strings.Cut(task, "\n")
	if m := autonomyLine.FindStringSubmatch(first); m != nil && slices.Contains(AutonomyLevels, strings.ToLower(m[1])) {
		return strings.ToLower(m[1]), SourceTask, nil
	}
	if folder != "" {
		if b, err := os.ReadFile(filepath.Join(folder, AutonomyFile)); err == nil && len(b) < 64 {
			if w := strings.ToLower(strings.TrimSpace(string(b))); slices.Contains(AutonomyLevels, w) {
				return w, SourceFile, nil
			}
		}
	}
	return AutonomyAuto, SourceDefault, nil
}

// own runs fn as one write transaction in the owner's name.
func (s *Service) own(ctx context.Context, id string, fn func(tx Tx, p *Pair) error) error {
	return s.Store.Update(ctx, id, func(tx Tx) error {
		p := tx.Pair()
		if err := fn(tx, p); err != nil {
			return err
		}
		return tx.SavePair(p)
	})
}

// OK is the owner's word for the round in progress: in semi, a round
// closes only with it.
func (s *Service) OK(ctx context.Context, id string) (*Pair, error) {
	var out *Pair
	err := s.own(ctx, id, func(tx Tx, p *Pair) error {
		if err := live(p); err != nil {
			return err
		}
		p.OKRound = p.Round
		text := fmt.Sprintf("the owner gave their word for round %d", p.Round)
		if p.Autonomy != AutonomySemi {
			text += fmt.Sprintf(" (the pair runs %s, which needs none)", p.Autonomy)
		}
		out = p
		return tx.Log(&Event{Role: RoleOwner, Kind: EventOwnerOK, Text: text, Detail: map[string]any{"round": p.Round}})
	})
	return out, err
}

// Stop ends a pair: its members' calls are refused from now on, and the
// supervisor leaves it.
func (s *Service) Stop(ctx context.Context, id, reason string) (*Pair, error) {
	var out *Pair
	err := s.own(ctx, id, func(tx Tx, p *Pair) error {
		if p.Status == StatusStopped {
			return refuse(RuleStopped, conflict, "pair %s was stopped already", p.ID).WithHint("nothing to do")
		}
		at := desk.FormatTime(tx.Now())
		p.Status, p.StoppedAt = StatusStopped, &at
		text := "the owner stopped the pair"
		if r := strings.TrimSpace(reason); r != "" {
			text += ": " + clip(r, 500)
		}
		out = p
		return tx.Log(&Event{Role: RoleOwner, Kind: EventStopped, Text: text})
	})
	return out, err
}

// SetBudget changes the ceilings of a pair's rounds; a zero field keeps
// its ceiling.
func (s *Service) SetBudget(ctx context.Context, id string, b Budget) (*Pair, error) {
	if b.Messages < 0 || b.Advances < 0 || b.Restarts < 0 {
		return nil, refuse(RuleBudget, invalid, "a budget's ceilings must not be negative").WithHint("give the number of letters, phase changes or restarts a round may use")
	}
	var out *Pair
	err := s.own(ctx, id, func(tx Tx, p *Pair) error {
		if b.Messages > 0 {
			p.Budget.Messages = b.Messages
		}
		if b.Advances > 0 {
			p.Budget.Advances = b.Advances
		}
		if b.Restarts > 0 {
			p.Budget.Restarts = b.Restarts
		}
		out = p
		return tx.Log(&Event{Role: RoleOwner, Kind: EventBudget, Text: fmt.Sprintf("the owner set the budget to %d letters, %d phase changes, %d restarts a round",
			p.Budget.Messages, p.Budget.Advances, p.Budget.Restarts), Detail: p.Budget})
	})
	return out, err
}

// Swap puts a new critic in place of the current one (every live member
// that is neither the writer nor the new one leaves), keeping the writer
// and its authority untouched.
func (s *Service) Swap(ctx context.Context, id, role string) (*Pair, error) {
	role = strings.ToLower(strings.TrimSpace(role))
	if err := CheckRole(role); err != nil {
		return nil, err
	}
	var out *Pair
	err := s.own(ctx, id, func(tx Tx, p *Pair) error {
		if err := live(p); err != nil {
			return err
		}
		// Before anyone claims, the pinned writer is the one who will: a
		// swap keeps it as it keeps the writer.
		writer := p.Writer
		if writer == "" {
			writer = p.PinnedWriter
		}
		if role == writer {
			return refuse(RuleRole, conflict, "%s is the writer: a swap brings in a new critic", role).WithHint("name the CLI of the new critic")
		}
		at := desk.FormatTime(tx.Now())
		var gone []string
		for i := range p.Members {
			m := &p.Members[i]
			if m.Role == role || m.Role == writer || m.LeftAt != nil || (writer != "" && p.member(writer) != nil && m.Role == p.member(writer).Of) {
				continue
			}
			m.LeftAt = &at
			gone = append(gone, m.Role)
		}
		if m := p.member(role); m != nil {
			m.LeftAt = nil
		} else {
			p.Members = append(p.Members, Member{Role: role})
		}
		out = p
		text := fmt.Sprintf("the owner swapped %s in as the critic", role)
		if len(gone) > 0 {
			text += "; " + strings.Join(gone, ", ") + " left"
		}
		return tx.Log(&Event{Role: RoleOwner, Kind: EventSwap, Text: text, Detail: map[string]any{"in": role, "out": gone}})
	})
	return out, err
}

// Find picks the pair a command of the owner is about: the id given, else
// the live pair of folder (the innermost one holding it), else the only
// live pair of the desk.
func (s *Service) Find(ctx context.Context, id, folder string) (*Pair, error) {
	if id = strings.TrimSpace(id); id != "" {
		var p *Pair
		err := s.Store.View(ctx, id, func(tx ReadTx) error { p = tx.Pair(); return nil })
		return p, err
	}
	ps, err := s.Store.Pairs(ctx, PairFilter{Live: true})
	if err != nil {
		return nil, err
	}
	var best *Pair
	for _, p := range ps {
		if folder != "" && (folder == p.Folder || strings.HasPrefix(folder, p.Folder+string(filepath.Separator))) {
			if best == nil || len(p.Folder) > len(best.Folder) {
				best = p
			}
		}
	}
	switch {
	case best != nil:
		return best, nil
	case len(ps) == 1:
		return ps[0], nil
	case len(ps) == 0:
		return nil, refuse(RuleNotInPair, notFound, "the desk has no live pair").WithHint("make one with desk pair new --task TEXT --members opencode,codex")
	}
	var ids []string
	for _, p := range ps {
		ids = append(ids, p.ID+" ("+p.Folder+")")
	}
	return nil, refuse(RuleNotInPair, invalid, "name the pair: this folder is in none of the %d live pairs: %s", len(ps), strings.Join(ids, ", ")).
		WithHint("pass --pair ID")
}
