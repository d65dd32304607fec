// Package pair holds the rules of pairing: two agents on one working
// folder, one of them the writer (the only one who edits the files) and
// the others critics who attack the work and propose changes as sealed
// patches; a mailbox between them, notes, a task list, phases, evidence
// and an append-only transcript of everything, refusals included.
//
// The rules live here and nowhere else. A Store keeps the records and runs
// each rule in one transaction (package sqlite, and the team backend,
// implement it); the MCP tools, the command line and the page only say
// who is calling and format the answers. What the rules need of the
// agents' terminals (reading a screen, typing into it, restarting an
// agent) is the Terminals interface, so that a pair works with the
// mailbox alone when there are no managed sessions.
package pair

import (
	"regexp"
	"slices"
	"strings"
)

// Phases of a round, in order. Only the writer moves forward; either side
// moves back (the critic's veto). Reaching done closes the round.
const (
	PhaseScoping = "scoping"
	PhasePlan    = "plan"
	PhaseCode    = "code"
	PhaseReview  = "review"
	PhaseTest    = "test"
	PhasePR      = "pr"
	PhaseDone    = "done"
)

// Phases lists the phases in their order.
var Phases = []string{PhaseScoping, PhasePlan, PhaseCode, PhaseReview, PhaseTest, PhasePR, PhaseDone}

// phaseIndex returns the position of a phase, -1 for an unknown one.
func phaseIndex(p string) int { return slices.Index(Phases, p) }

// Modes: what a round is for.
const (
	ModeFix   = "fix"   // the writer changes the code; critics propose sealed patches
	ModeAudit = "audit" // both hunt defects; nobody proposes a patch
)

// Modes lists the modes.
var Modes = []string{ModeFix, ModeAudit}

// Autonomy levels: how far the pair goes without its owner.
const (
	AutonomyAuto    = "auto"    // a round closes on its evidence
	AutonomySemi    = "semi"    // a round also needs the owner's word (desk pair ok)
	AutonomyObserve = "observe" // the owner drives: nothing is restarted or confirmed for the agents
)

// AutonomyLevels lists the levels.
var AutonomyLevels = []string{AutonomyAuto, AutonomySemi, AutonomyObserve}

// Pair states.
const (
	StatusLive    = "live"
	StatusStopped = "stopped"
)

// Pair is one pairing on a working folder. Its JSON form is the wire form
// of the page and of desk pair status --json.
type Pair struct {
	ID             string `json:"id"` // "p3"
	Project        string `json:"project"`
	Folder         string `json:"folder"`
	Task           string `json:"task"`
	Phase          string `json:"phase"`
	Mode           string `json:"mode"`
	Autonomy       string `json:"autonomy"`
	AutonomySource string `json:"autonomy_source"` // flag, task, file or default
	Round          int    `json:"round"`
	// Writer is the role holding write authority, "" for none.
	Writer          string `json:"writer"`
	WriterRationale string `json:"writer_rationale"`
	WriterSince     string `json:"writer_since"`
	// PinnedWriter, when set, is the only member who may claim first.
	PinnedWriter string   `json:"pinned_writer"`
	Members      []Member `json:"members"`
	// OKRound is the last round the owner gave their word for (semi).
	OKRound   int     `json:"ok_round"`
	Budget    Budget  `json:"budget"`
	Status    string  `json:"status"`
	CreatedAt string  `json:"created_at"`
	UpdatedAt string  `json:"updated_at"`
	StoppedAt *string `json:"stopped_at"`
}

// Member is one role on a pair's roster. A role is named after the CLI
// that plays it ("codex"), or is an instance of such a member
// ("codex-critic" for member codex).
type Member struct {
	Role string `json:"role"`
	// Of is the member a role is an instance of, "" for a member itself.
	Of       string  `json:"of"`
	JoinedAt *string `json:"joined_at"` // the first call in that role
	LastSeen *string `json:"last_seen"`
	LeftAt   *string `json:"left_at"` // swapped out
	// Session is the managed terminal session the role runs in, "" when
	// it was started by hand; ResumeID is its CLI's own resume id.
	Session  string `json:"session"`
	ResumeID string `json:"resume_id"`
	// LastNudge is when the supervisor last reminded it of its mail.
	LastNudge *string `json:"last_nudge"`

	// The mailbox cursor: letters up to Acked are read; AckToken is the
	// token of the batch last handed out, which covers letters up to
	// AckUpTo.
	Acked    int64  `json:"-"`
	AckToken string `json:"-"`
	AckUpTo  int64  `json:"-"`
}

// Live reports whether the member has joined and not left.
func (m *Member) Live() bool { return m.JoinedAt != nil && m.LeftAt == nil }

// member returns the roster entry of role, or nil.
func (p *Pair) member(role string) *Member {
	for i := range p.Members {
		if p.Members[i].Role == role {
			return &p.Members[i]
		}
	}
	return nil
}

// peers returns the roles a letter from role goes to by default: every
// other live member, else every other member that has not left (a letter
// to a member who has not joined yet waits in its mailbox).
func (p *Pair) peers(role string) []string {
	var live, waiting []string
	for i := range p.Members {
		m := &p.Members[i]
		if m.Role == role || m.LeftAt != nil {
			continue
		}
		if m.Live() {
			live = append(live, m.Role)
		} else if !p.hasLiveInstance(m.Role) {
			waiting = append(waiting, m.Role)
		}
	}
	if len(live) > 0 {
		return live
	}
	return waiting
}

// hasLiveInstance reports whether an instance of member base is live.
func (p *Pair) hasLiveInstance(base string) bool {
	for i := range p.Members {
		if m := &p.Members[i]; m.Of == base && m.Live() {
			return true
		}
	}
	return false
}

// mailboxes are the roles whose letters role reads: its own, and those of
// the member it is an instance of while that member never joined itself
// (letters sent to "codex" before "codex-critic" started).
func (p *Pair) mailboxes(role string) []string {
	out := []string{role}
	of := ""
	if m := p.member(role); m != nil {
		of = m.Of
	} else {
		of = instanceOf(role, p.memberRoles()) // an instance before its first call is saved
	}
	if base := p.member(of); of != "" && base != nil && base.JoinedAt == nil {
		out = append(out, base.Role)
	}
	return out
}

// Budget is the ceilings of one round: a pair that goes round in circles
// stops at them instead of spending its owner's quota.
type Budget struct {
	Messages int `json:"messages"`
	Advances int `json:"advances"`
	Restarts int `json:"restarts"`
}

// DefaultBudget is the ceilings of a new pair.
var DefaultBudget = Budget{Messages: 400, Advances: 40, Restarts: 5}

var roleName = regexp.MustCompile(`^[a-z][a-z0-9]*([._-][a-z0-9]+)*$`)

// MaxRole bounds a role's name.
const MaxRole = 40

// CheckRole checks the spelling of a role's name.
func CheckRole(role string) error {
	if len(role) > MaxRole || !roleName.MatchString(role) {
		return refuse(RuleRole, invalid, "%q is not a role name: use the CLI's name, e.g. codex, or an instance of it, e.g. codex-critic", clip(role, 60)).
			WithHint("set DESK_PAIR_ROLE to one of the pair's members")
	}
	return nil
}

// instanceOf returns the member that role is an instance of ("codex" for
// "codex-critic"), or "" when it is none of members.
func instanceOf(role string, members []string) string {
	best := ""
	for _, m := range members {
		if rest, ok := strings.CutPrefix(role, m); ok && len(rest) > 1 && strings.ContainsRune("-_.", rune(rest[0])) && len(m) > len(best) {
			best = m
		}
	}
	return best
}

// clip shortens s to n bytes at a rune boundary, on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xc0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
