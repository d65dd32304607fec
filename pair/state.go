package pair

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"desk"
)

// MemberState is a roster entry as pair_state shows it.
type MemberState struct {
	Role     string  `json:"role"`
	Of       string  `json:"of"`
	Writer   bool    `json:"writer"`
	Live     bool    `json:"live"`
	LastSeen *string `json:"last_seen"`
	Left     bool    `json:"left"`
	Session  string  `json:"session"`
	Unread   int     `json:"unread"`
}

// StateAnswer is a pair as one member sees it.
type StateAnswer struct {
	Pair      string        `json:"pair"`
	Project   string        `json:"project"`
	Folder    string        `json:"folder"`
	Role      string        `json:"role"`
	YouAre    string        `json:"you_are"` // writer, critic or owner
	Task      string        `json:"task"`
	Phase     string        `json:"phase"`
	Mode      string        `json:"mode"`
	Autonomy  string        `json:"autonomy"`
	Round     int           `json:"round"`
	Writer    string        `json:"writer"`
	Rationale string        `json:"writer_rationale"`
	Status    string        `json:"status"`
	Members   []MemberState `json:"members"`
	Unread    int           `json:"unread"`
	Tasks     []Task        `json:"open_tasks"`
	Patches   []Patch       `json:"patches"`
	Evidence  []Evidence    `json:"evidence"`
	Blocking  []Gate        `json:"blocking"`
	Budget    BudgetState   `json:"budget"`
}

// MaxStateList bounds each list of a pair's state (open tasks, patches,
// evidence): an agent orients itself from the newest, and pair_state
// stays cheap on a pair that has been at it for days.
const MaxStateList = 50

// mergePatches joins two lists of patches in number order, the newest
// limit of them.
func mergePatches(a, b []Patch, limit int) []Patch {
	out := append(append([]Patch{}, a...), b...)
	slices.SortFunc(out, func(x, y Patch) int { return x.N - y.N })
	if len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out
}

// BudgetState is a round's ceilings with what was used of them.
type BudgetState struct {
	Round    int    `json:"round"`
	Messages [2]int `json:"messages"` // used, ceiling
	Advances [2]int `json:"advances"`
	Restarts [2]int `json:"restarts"`
}

// State answers pair_state: the pair as the caller sees it.
func (s *Service) State(ctx context.Context, c Caller) (*StateAnswer, error) {
	var out *StateAnswer
	err := s.look(ctx, c, "pair_state", func(tx ReadTx, p *Pair, m *Member) error {
		var err error
		out, err = stateOf(tx, p, m.Role)
		return err
	})
	return out, err
}

// PairState is the owner's view of a pair (the command line and the page).
func (s *Service) PairState(ctx context.Context, id string) (*StateAnswer, error) {
	var out *StateAnswer
	err := s.Store.View(ctx, id, func(tx ReadTx) error {
		var err error
		out, err = stateOf(tx, tx.Pair(), RoleOwner)
		return err
	})
	return out, err
}

func stateOf(tx ReadTx, p *Pair, role string) (*StateAnswer, error) {
	out := &StateAnswer{Pair: p.ID, Project: p.Project, Folder: p.Folder, Role: role, Task: p.Task, Phase: p.Phase, Mode: p.Mode,
		Autonomy: p.Autonomy, Round: p.Round, Writer: p.Writer, Rationale: p.WriterRationale, Status: p.Status,
		Members: []MemberState{}, Tasks: []Task{}, Patches: []Patch{}}
	switch {
	case role == RoleOwner:
		out.YouAre = RoleOwner
	case role == p.Writer:
		out.YouAre = "writer"
	default:
		out.YouAre = "critic"
	}
	for i := range p.Members {
		m := &p.Members[i]
		unread, err := tx.CountLetters(p.mailboxes(m.Role), m.Acked)
		if err != nil {
			return nil, err
		}
		if m.Role == role {
			out.Unread = unread
		}
		out.Members = append(out.Members, MemberState{Role: m.Role, Of: m.Of, Writer: m.Role == p.Writer, Live: m.Live(),
			LastSeen: m.LastSeen, Left: m.LeftAt != nil, Session: m.Session, Unread: unread})
	}
	if role != RoleOwner && p.member(role) == nil {
		// An instance on its first call, before it is on the roster.
		unread, err := tx.CountLetters(p.mailboxes(role), 0)
		if err != nil {
			return nil, err
		}
		out.Unread = unread
	}
	tasks, err := tx.Tasks(TaskFilter{State: TaskOpen, Limit: MaxStateList})
	if err != nil {
		return nil, err
	}
	out.Tasks = append(out.Tasks, tasks...)
	// The round's patches, and the older ones its close still waits on.
	pending, err := tx.Patches(PatchFilter{States: PendingStates})
	if err != nil {
		return nil, err
	}
	mine, err := tx.Patches(PatchFilter{Round: p.Round, States: []string{PatchReserved, PatchApplied}})
	if err != nil {
		return nil, err
	}
	out.Patches = mergePatches(pending, mine, MaxStateList)
	if out.Evidence, err = tx.Evidence(p.Round, MaxStateList); err != nil {
		return nil, err
	}
	if out.Evidence == nil {
		out.Evidence = []Evidence{}
	}
	if out.Blocking, err = gates(tx, p); err != nil {
		return nil, err
	}
	if out.Blocking == nil {
		out.Blocking = []Gate{}
	}
	out.Budget, err = budgetOf(tx, p)
	return out, err
}

func budgetOf(tx ReadTx, p *Pair) (BudgetState, error) {
	b := BudgetState{Round: p.Round}
	for _, c := range []struct {
		into    *[2]int
		ceiling int
		kinds   []string
	}{
		{&b.Messages, p.Budget.Messages, []string{EventLetter}},
		{&b.Advances, p.Budget.Advances, []string{EventAdvance, EventVeto}},
		{&b.Restarts, p.Budget.Restarts, []string{EventRestart}},
	} {
		n, err := tx.CountEvents(p.Round, c.kinds...)
		if err != nil {
			return b, err
		}
		*c.into = [2]int{n, c.ceiling}
	}
	return b, nil
}

// DigestAnswer answers pair_digest.
type DigestAnswer struct {
	Text   string `json:"text"`
	Tokens int    `json:"tokens"` // about how many the text costs
	Cut    bool   `json:"cut,omitempty"`
}

// Digest limits, in tokens (about four bytes each).
const (
	DefaultDigestTokens = 600
	MaxDigestTokens     = 4000
	MinDigestTokens     = 100
)

// Digest is a short orientation for a member coming back to the pair: the
// task, where the round stands, what waits for the caller, and the newest
// verdict and commit, cut to a token budget instead of the whole history.
func (s *Service) Digest(ctx context.Context, c Caller, tokens int) (*DigestAnswer, error) {
	if tokens <= 0 {
		tokens = DefaultDigestTokens
	}
	tokens = min(max(tokens, MinDigestTokens), MaxDigestTokens)
	var out *DigestAnswer
	err := s.look(ctx, c, "pair_digest", func(tx ReadTx, p *Pair, m *Member) error {
		st, err := stateOf(tx, p, m.Role)
		if err != nil {
			return err
		}
		var lines []string
		add := func(format string, args ...any) { lines = append(lines, fmt.Sprintf(format, args...)) }
		add("You are %s, the %s, in pair %s (%s mode, autonomy %s), round %d, phase %s.", m.Role, st.YouAre, p.ID, p.Mode, p.Autonomy, p.Round, p.Phase)
		add("Task: %s", clip(p.Task, 600))
		if p.Writer == "" {
			add("Nobody holds write authority: pair_claim takes it.")
		} else {
			add("Writer: %s since %s: %s", p.Writer, p.WriterSince, clip(p.WriterRationale, 200))
		}
		var peers []string
		for _, ms := range st.Members {
			if ms.Role == m.Role || ms.Left {
				continue
			}
			seen := "never seen"
			if ms.LastSeen != nil {
				seen = "seen " + *ms.LastSeen
			}
			peers = append(peers, ms.Role+" ("+seen+")")
		}
		if len(peers) > 0 {
			add("Peers: %s.", strings.Join(peers, ", "))
		}
		if st.Unread > 0 {
			add("Waiting for you: %d unread letter(s): pair_read.", st.Unread)
		}
		for _, pt := range st.Patches {
			switch {
			case pt.pending() && m.Role == p.Writer:
				add("Waiting for you: patch #%d by %s (%s): verify, apply, report.", pt.N, pt.Role, pt.State)
			case pt.State == PatchReserved && pt.Role == m.Role:
				add("Waiting for you: your patch #%d is reserved, not sealed (%s).", pt.N, pt.Path)
			case pt.pending():
				add("Patch #%d by %s is %s.", pt.N, pt.Role, pt.State)
			}
		}
		if n := len(st.Tasks); n > 0 {
			add("Open tasks (%d):", n)
			for _, t := range st.Tasks {
				add("- #%d %s (by %s)", t.N, clip(t.Text, 160), t.AddedBy)
			}
		}
		if len(st.Blocking) == 0 {
			add("The round can close: the writer advances to done.")
		} else {
			var rules []string
			for _, g := range st.Blocking {
				rules = append(rules, g.Rule)
			}
			add("Closing the round waits on: %s.", strings.Join(rules, ", "))
		}
		for _, e := range st.Evidence {
			if e.Kind == EvidenceCommit || e.Kind == EvidencePR {
				add("Last %s: %s", e.Kind, clip(e.Text, 200))
			}
		}
		if v, err := tx.LastNote(NoteVerdict); err != nil {
			return err
		} else if v != nil {
			add("Last verdict (%s, round %d): %s", v.Role, v.Round, clip(v.Text, 400))
		}
		if pl, err := tx.LastNote(NotePlan); err != nil {
			return err
		} else if pl != nil {
			add("Plan (%s): %s", pl.Role, clip(pl.Text, 400))
		}
		out = &DigestAnswer{}
		limit := tokens * 4
		var b strings.Builder
		for _, l := range lines {
			if b.Len()+len(l)+1 > limit {
				out.Cut = true
				break
			}
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if out.Cut {
			b.WriteString("(cut to the budget: pair_state, pair_note_read and pair_transcript have the rest)\n")
		}
		out.Text = strings.TrimRight(b.String(), "\n")
		out.Tokens = (len(out.Text) + 3) / 4
		return nil
	})
	return out, err
}

// Transcript limits.
const (
	DefaultTranscript = 200
	MaxTranscript     = 2000
)

// TranscriptAnswer answers pair_transcript.
type TranscriptAnswer struct {
	Entries []Event `json:"entries"`
	// Next is the id to pass as since for the entries after these.
	Next int64 `json:"next"`
}

// ParseSince reads a transcript's since: an entry id, or a time.
func ParseSince(since string) (TranscriptFilter, error) {
	var f TranscriptFilter
	since = strings.TrimSpace(since)
	if since == "" {
		return f, nil
	}
	if n, err := strconv.ParseInt(since, 10, 64); err == nil && n >= 0 {
		f.After = n
		return f, nil
	}
	t, err := desk.ParseTime(since)
	if err != nil {
		return f, refuse(RuleEmpty, invalid, "since: %q is neither an entry id nor a time", clip(since, 40)).
			WithHint("give the next of the last answer, or an ISO time such as 2026-11-30T14:00:00Z")
	}
	f.Since = desk.FormatTime(t)
	return f, nil
}

// Transcript returns the newest limit entries (after since), oldest first.
func (s *Service) Transcript(ctx context.Context, c Caller, limit int, since string) (*TranscriptAnswer, error) {
	f, err := ParseSince(since)
	if err != nil {
		return nil, s.refused(ctx, c, "pair_transcript", err)
	}
	f.Limit = limitOf(limit)
	var out *TranscriptAnswer
	err = s.look(ctx, c, "pair_transcript", func(tx ReadTx, p *Pair, m *Member) error {
		var err error
		out, err = transcript(tx, f)
		return err
	})
	return out, err
}

// PairTranscript is the owner's read of a transcript.
func (s *Service) PairTranscript(ctx context.Context, id string, f TranscriptFilter) (*TranscriptAnswer, error) {
	f.Limit = limitOf(f.Limit)
	var out *TranscriptAnswer
	err := s.Store.View(ctx, id, func(tx ReadTx) error {
		var err error
		out, err = transcript(tx, f)
		return err
	})
	return out, err
}

func limitOf(limit int) int {
	if limit <= 0 {
		return DefaultTranscript
	}
	return min(limit, MaxTranscript)
}

func transcript(tx ReadTx, f TranscriptFilter) (*TranscriptAnswer, error) {
	es, err := tx.Transcript(f)
	if err != nil {
		return nil, err
	}
	if es == nil {
		es = []Event{}
	}
	out := &TranscriptAnswer{Entries: es, Next: f.After}
	if len(es) > 0 {
		out.Next = es[len(es)-1].ID
	}
	return out, nil
}

// timeOf parses a stored time; the zero time for none.
func timeOf(at *string) time.Time {
	if at == nil {
		return time.Time{}
	}
	t, _ := time.Parse(desk.TimeLayout, *at)
	return t
}
