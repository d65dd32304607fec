package pair

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"desk"
)

// Service applies the pairing rules over a Store. The surfaces (MCP,
// command line, page) say who calls and format the answers; everything a
// call may do is decided here, in one transaction per rule.
type Service struct {
	Store Store
	// PatchRoot is the folder under which each pair keeps its patch files
	// (PatchRoot/<pair id>/patches): inside desk's data folder, never in
	// the working folder.
	PatchRoot string
	// Terminals reaches the members' managed sessions; nil when there are
	// none, and then delivery and unblocking say so and the mailbox works
	// alone.
	Terminals Terminals
	// Now, if set, replaces the clock for what the rules time outside the
	// store (waits). The store's transaction carries its own time.
	Now func() time.Time
}

// Caller is who calls a pair tool: the pair and the role it was started
// in. It comes from the caller's launch (DESK_PAIR and DESK_PAIR_ROLE in
// its environment), never from an argument.
type Caller struct {
	Pair string
	Role string
}

// Environment variables that place a process in a pair.
const (
	EnvPair = "DESK_PAIR"
	EnvRole = "DESK_PAIR_ROLE"
)

// CallerFromEnv reads the caller from the environment. Without both
// variables the caller is in no pair.
func CallerFromEnv(getenv func(string) string) (Caller, error) {
	c := Caller{Pair: strings.TrimSpace(getenv(EnvPair)), Role: strings.TrimSpace(getenv(EnvRole))}
	if c.Pair == "" || c.Role == "" {
		return c, refuse(RuleNotInPair, forbidden, "not in a pair: this session was not started as a member of one").
			WithHint("start the agents with desk pair up, or set DESK_PAIR and DESK_PAIR_ROLE to a pair from desk pair new")
	}
	if err := CheckRole(c.Role); err != nil {
		return c, err
	}
	return c, nil
}

// The roles that are not members: the owner, through the command line and
// the page, and the supervisor.
const (
	RoleOwner = "owner"
	RolePilot = "pilot"
)

// PatchRootIn is where a desk keeps its pairs' patch files: under its
// data folder.
func PatchRootIn(dataDir string) string { return filepath.Join(dataDir, "pairs") }

// PatchDir returns the folder of a pair's patch files.
func (s *Service) PatchDir(pairID string) string {
	return filepath.Join(s.PatchRoot, pairID, "patches")
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// call is one rule in the name of a member: the pair read inside the
// transaction, the caller's roster entry (joined on its first call), and
// the rule's own function. A refusal rolls the rule back and is then
// written to the transcript on its own.
type call struct {
	tx   Tx
	p    *Pair
	m    *Member
	role string
	tool string
	at   string
}

// act runs fn as one write transaction for member c.
func (s *Service) act(ctx context.Context, c Caller, tool string, fn func(k *call) error) error {
	if err := checkCaller(c); err != nil {
		return err
	}
	err := s.Store.Update(ctx, c.Pair, func(tx Tx) error {
		k, err := s.enter(tx, c, tool)
		if err != nil {
			return err
		}
		if err := fn(k); err != nil {
			return err
		}
		return tx.SavePair(k.p)
	})
	return s.refused(ctx, c, tool, err)
}

// look runs fn as a read for member c. A member's first call, and a call
// after a while of silence, also record that it was seen (a write of its
// own, so that the read itself stays a read).
func (s *Service) look(ctx context.Context, c Caller, tool string, fn func(tx ReadTx, p *Pair, m *Member) error) error {
	if err := checkCaller(c); err != nil {
		return err
	}
	var stale bool
	err := s.Store.View(ctx, c.Pair, func(tx ReadTx) error {
		p := tx.Pair()
		m, joins, err := memberOf(p, c.Role)
		if err != nil {
			return err
		}
		stale = joins || seenLongAgo(m, tx.Now())
		if err := live(p); err != nil {
			return err
		}
		return fn(tx, p, m)
	})
	if err == nil && stale {
		// Seen now: a failure here costs only the roster's time.
		_ = s.Store.Update(ctx, c.Pair, func(tx Tx) error {
			k, err := s.enter(tx, c, tool)
			if err != nil {
				return err
			}
			return tx.SavePair(k.p)
		})
	}
	return s.refused(ctx, c, tool, err)
}

// seenEvery is how stale a member's last-seen time may grow before a read
// records it again.
const seenEvery = 10 * time.Second

func seenLongAgo(m *Member, now time.Time) bool {
	if m.LastSeen == nil {
		return true
	}
	t, err := time.Parse(desk.TimeLayout, *m.LastSeen)
	return err != nil || now.Sub(t) >= seenEvery
}

func checkCaller(c Caller) error {
	if c.Pair == "" || c.Role == "" {
		return refuse(RuleNotInPair, forbidden, "not in a pair: this session was not started as a member of one").
			WithHint("start the agents with desk pair up, or set DESK_PAIR and DESK_PAIR_ROLE to a pair from desk pair new")
	}
	return CheckRole(c.Role)
}

// enter finds the caller on the roster of the pair read in tx, joining an
// instance of a member on its first call, and records that it was seen.
func (s *Service) enter(tx Tx, c Caller, tool string) (*call, error) {
	p := tx.Pair()
	m, joins, err := memberOf(p, c.Role)
	if err != nil {
		return nil, err
	}
	at := desk.FormatTime(tx.Now())
	if joins {
		if p.member(c.Role) == nil {
			p.Members = append(p.Members, *m)
			m = &p.Members[len(p.Members)-1]
		}
		m.JoinedAt = &at
		text := c.Role + " joined"
		if m.Of != "" {
			text += " as an instance of " + m.Of
		}
		if err := tx.Log(&Event{Role: c.Role, Kind: EventJoined, Text: text}); err != nil {
			return nil, err
		}
	}
	m.LastSeen = &at
	if err := live(p); err != nil {
		return nil, err
	}
	return &call{tx: tx, p: p, m: m, role: c.Role, tool: tool, at: at}, nil
}

// memberOf returns role's roster entry; joins says the role has not
// called before (a new instance comes back as an entry not on the roster
// yet). A role that is neither a member nor an instance of one, or one
// that was swapped out, is refused.
func memberOf(p *Pair, role string) (m *Member, joins bool, err error) {
	if m = p.member(role); m != nil {
		if m.LeftAt != nil {
			return nil, false, refuse(RuleNotMember, forbidden, "%s left pair %s at %s (a new critic took its place)", role, p.ID, *m.LeftAt).
				WithHint("the pair's live members are " + strings.Join(p.liveRoles(), ", "))
		}
		return m, m.JoinedAt == nil, nil
	}
	base := instanceOf(role, p.memberRoles())
	if base == "" {
		return nil, false, refuse(RuleNotMember, forbidden, "%s is not a member of pair %s, nor an instance of one (members: %s)", role, p.ID, strings.Join(p.memberRoles(), ", ")).
			WithHint("set DESK_PAIR_ROLE to a member, or an instance of one such as " + p.memberRoles()[0] + "-critic")
	}
	if b := p.member(base); b.LeftAt != nil {
		return nil, false, refuse(RuleNotMember, forbidden, "%s is an instance of %s, which left pair %s", role, base, p.ID).
			WithHint("the pair's live members are " + strings.Join(p.liveRoles(), ", "))
	}
	return &Member{Role: role, Of: base}, true, nil
}

// memberRoles are the members named when the pair was made or swapped in.
func (p *Pair) memberRoles() []string {
	var out []string
	for _, m := range p.Members {
		if m.Of == "" {
			out = append(out, m.Role)
		}
	}
	return out
}

func (p *Pair) liveRoles() []string {
	var out []string
	for _, m := range p.Members {
		if m.LeftAt == nil && (m.Live() || !p.hasLiveInstance(m.Role)) {
			out = append(out, m.Role)
		}
	}
	return out
}

func live(p *Pair) error {
	if p.Status != StatusLive {
		return refuse(RuleStopped, conflict, "pair %s was stopped", p.ID).WithHint("start a new pair with desk pair new or desk pair up")
	}
	return nil
}

// refused writes a refusal to the transcript, in a transaction of its own
// (the rule's was rolled back: nothing else changed), and returns err.
func (s *Service) refused(ctx context.Context, c Caller, tool string, err error) error {
	var de *desk.Error
	if err == nil || !errors.As(err, &de) || de.Rule == "" || de.Rule == RuleNotInPair {
		return err
	}
	detail := map[string]any{"tool": tool, "code": de.Code}
	if de.Hint != "" {
		detail["hint"] = de.Hint
	}
	lerr := s.Store.Update(context.WithoutCancel(ctx), c.Pair, func(tx Tx) error {
		return tx.Log(&Event{Role: c.Role, Kind: EventRefusal, Rule: de.Rule, Text: de.Message, Detail: detail})
	})
	if lerr != nil && desk.ErrorCode(lerr) != desk.NotFound {
		return errors.Join(err, lerr)
	}
	return err
}

// log appends an entry in the caller's name.
func (k *call) log(kind, text string, detail any) (*Event, error) {
	e := &Event{Role: k.role, Kind: kind, Text: text, Detail: detail}
	return e, k.tx.Log(e)
}

// isWriter reports whether the caller holds write authority.
func (k *call) isWriter() bool { return k.p.Writer != "" && k.p.Writer == k.role }

// needWriter refuses a caller that does not hold write authority.
func (k *call) needWriter(what string) error {
	if k.isWriter() {
		return nil
	}
	if k.p.Writer == "" {
		return refuse(RuleSingleWriter, conflict, "%s needs write authority, and nobody holds it", what).
			WithHint("take it with pair_claim and a rationale")
	}
	return refuse(RuleRole, forbidden, "%s is the writer's (%s); %s is a critic", what, k.p.Writer, k.role).
		WithHint(criticHint(k.p.Mode))
}

// needCritic refuses the writer.
func (k *call) needCritic(what string) error {
	if !k.isWriter() {
		return nil
	}
	return refuse(RuleRole, forbidden, "%s is a critic's; %s holds write authority and edits the files directly", what, k.role).
		WithHint("edit the files yourself, or pair_release if a critic should write")
}

func criticHint(mode string) string {
	if mode == ModeAudit {
		return "as a critic in audit mode, report findings with pair_note kind finding and pair_send"
	}
	return "as a critic, propose the change as a sealed patch with pair_propose"
}

// notAudit refuses every patch step in audit mode.
func (k *call) notAudit(what string) error {
	if k.p.Mode != ModeAudit {
		return nil
	}
	return refuse(RuleAuditMode, conflict, "%s: pair %s is in audit mode, which takes no patches", what, k.p.ID).
		WithHint("record the defect with pair_note kind finding; a fix mode round can patch it")
}

// CheckMode checks a mode's name.
func CheckMode(mode string) error {
	if !slices.Contains(Modes, mode) {
		return refuse(RuleUnknownMode, invalid, "%q is not a mode: use fix or audit", clip(mode, 40)).
			WithHint("fix changes the code through one writer; audit only hunts defects")
	}
	return nil
}

// CheckAutonomy checks an autonomy level's name.
func CheckAutonomy(level string) error {
	if !slices.Contains(AutonomyLevels, level) {
		return refuse(RuleUnknownLevel, invalid, "%q is not an autonomy level: use auto, semi or observe", clip(level, 40)).
			WithHint("auto closes rounds on evidence; semi also needs desk pair ok; observe leaves the prompts to you")
	}
	return nil
}
