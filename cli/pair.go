package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"desk"
	"desk/pair"
	"desk/pairterm"
	"desk/sqlite"
)

func init() {
	Register(&Command{Name: "pair", Summary: "pair two agents on a folder: one writer, one critic (desk pair help)", Run: runPair})
}

// pairCommands are desk pair's subcommands.
var pairCommands = []struct {
	name, summary string
	run           func(ctx context.Context, c *Context, args []string) error
}{
	{"new", "make a pair: --task TEXT --members opencode,codex [--cwd DIR] [--mode fix|audit] [--autonomy auto|semi|observe] [--writer CLI]", runPairNew},
	{"status", "the pair's task, phase, writer, members, tasks, patches and evidence [--json]", runPairStatus},
	{"chat", "the conversation, refusals in colour; follows it until Ctrl+C [--once]", runPairChat},
	{"why", "who holds write authority, and why", runPairWhy},
	{"budget", "a round's ceilings and their use; set them with --messages, --advances, --restarts", runPairBudget},
	{"ok", "the owner's word: a semi round may close", runPairOK},
	{"transcript", "the whole transcript [--json] [--limit N] [--since ID|TIME]", runPairTranscript},
	{"swap", "a new critic: swap CLI (the writer and its authority stay; started as a managed session when the writer runs in one)", runPairSwap},
	{"stop", "end the pair: its members' calls are refused from now on", runPairStop},
	{"pilot", "the supervisor: delivers, nudges, unblocks, restarts, reports, parks [--once] [--pair ID] [--every 15s]", runPairPilot},
	{"up", "start both agents as managed sessions, and the supervisor: --task TEXT [--writer CLI] [--critic CLI] [--autonomy L] [--mode M] [--worktree BRANCH]", runPairUp},
}

func runPair(ctx context.Context, c *Context, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "--help" || args[0] == "-h" {
		fmt.Fprintln(c.Stdout, "Usage: desk pair <command> [flags]\n\nCommands:")
		for _, p := range pairCommands {
			fmt.Fprintf(c.Stdout, "  %-11s %s\n", p.name, p.summary)
		}
		fmt.Fprintln(c.Stdout, "\nA command picks the pair with --pair ID, else $DESK_PAIR, else the live pair of the working folder, else the only live pair.")
		return nil
	}
	for _, p := range pairCommands {
		if p.name == args[0] {
			return p.run(ctx, c, args[1:])
		}
	}
	return &UsageError{Msg: fmt.Sprintf("unknown pair command %q", args[0]), Try: "desk pair help"}
}

// pairStore opens the store and the rules over it.
func pairStore(ctx context.Context, c *Context) (*sqlite.DB, *pair.Service, error) {
	db, err := openStore(ctx, c, false)
	if err != nil {
		return nil, nil, err
	}
	return db, &pair.Service{Store: db, PatchRoot: pair.PatchRootIn(c.DataDir)}, nil
}

// findPair picks the pair a command is about.
func findPair(ctx context.Context, c *Context, svc *pair.Service, id string) (*pair.Pair, error) {
	if id == "" {
		id = strings.TrimSpace(c.Getenv(pair.EnvPair))
	}
	return svc.Find(ctx, id, c.Dir)
}

// ownerOnly refuses an owner's command run by an agent in a pair: its
// word must not be the agent's own.
func ownerOnly(c *Context, cmd string) error {
	if strings.TrimSpace(c.Getenv(pair.EnvRole)) != "" {
		return desk.Errorf(desk.Forbidden, "desk pair %s is the owner's: this shell runs in a pair as %s", cmd, c.Getenv(pair.EnvRole)).
			WithRule(pair.RuleRole).WithHint("ask the owner to run it")
	}
	return nil
}

func runPairNew(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("pair new", c)
	task := fs.String("task", "", "what the pair is to do (\"autonomy: semi\" on its first line sets the level)")
	members := fs.String("members", "", "the members, named after their CLIs, comma separated: opencode,codex")
	cwd := fs.String("cwd", "", "the working folder (default: the current one)")
	mode := fs.String("mode", "", "fix (default) or audit")
	autonomy := fs.String("autonomy", "", "auto, semi or observe (default: the task's first line, .desk-pair/autonomy, else auto)")
	writer := fs.String("writer", "", "the member who claims first")
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	asJSON := fs.Bool("json", false, "print the pair as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "pair new"); err != nil {
		return err
	}
	// A level nobody chose must never start silently: a malformed flag is a
	// mistake in the command line, before anything is opened.
	if err := checkAutonomyFlag("pair new", *autonomy); err != nil {
		return err
	}
	if strings.TrimSpace(*task) == "" {
		return Usagef("pair new", "--task is required: what the pair is to do")
	}
	if strings.TrimSpace(*members) == "" {
		return Usagef("pair new", "--members is required, e.g. --members opencode,codex")
	}
	folder := pairFolder(c, *cwd)
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	slug, err := projectFor(ctx, c, db, *proj, folder)
	if err != nil {
		return err
	}
	p, err := svc.New(ctx, pair.NewInput{Project: slug, Folder: folder, Task: *task, Members: desk.SplitList(*members), Mode: strings.ToLower(strings.TrimSpace(*mode)),
		Autonomy: strings.ToLower(strings.TrimSpace(*autonomy)), Writer: *writer})
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, p)
	}
	fmt.Fprintln(c.Stdout, p.ID)
	fmt.Fprintf(c.Stderr, "pair %s on %s: %s mode, autonomy %s (from %s). Start each agent in the folder with:\n", p.ID, p.Folder, p.Mode, p.Autonomy, p.AutonomySource)
	for _, m := range p.Members {
		fmt.Fprintf(c.Stderr, "  DESK_PAIR=%s DESK_PAIR_ROLE=%s %s\n", p.ID, m.Role, agentCommand(m.Role))
	}
	return nil
}

// agentCommand is the CLI a role is named after.
func agentCommand(role string) string {
	name, _, _ := strings.Cut(role, "-")
	return name
}

// projectFor finds the project of a folder the way project does for the
// working folder.
func projectFor(ctx context.Context, c *Context, db *sqlite.DB, flag, folder string) (string, error) {
	cc := *c
	cc.Dir = folder
	return project(ctx, &cc, db, flag, "pair new")
}

// pairFlags are the flags every pair command takes.
func pairFlags(name string, c *Context) (*pairFlagSet, *string) {
	fs := newFlags("pair "+name, c)
	id := fs.String("pair", "", "the pair (default: $DESK_PAIR, the working folder's, or the only live one)")
	return &pairFlagSet{fs}, id
}

// pairFlagSet is a pair command's flags.
type pairFlagSet struct{ *flag.FlagSet }

// parse parses the flags of a command that takes no argument.
func (fs *pairFlagSet) parse(args []string, cmd string) error {
	if err := parseFlags(fs.FlagSet, args); err != nil {
		return err
	}
	return noArgs(fs.FlagSet, cmd)
}

// parseArg parses the flags of a command that takes one argument, what.
func (fs *pairFlagSet) parseArg(args []string, cmd, what string) error {
	if err := parseFlags(fs.FlagSet, args); err != nil {
		return err
	}
	return argCount(fs.FlagSet, cmd, 1, 1, what)
}

func runPairStatus(ctx context.Context, c *Context, args []string) error {
	fs, id := pairFlags("status", c)
	asJSON := fs.Bool("json", false, "print the state as JSON")
	if err := fs.parse(args, "pair status"); err != nil {
		return err
	}
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := findPair(ctx, c, svc, *id)
	if err != nil {
		return err
	}
	st, err := svc.PairState(ctx, p.ID)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, st)
	}
	printStatus(c.Stdout, st, p, time.Now())
	if p.Status == pair.StatusLive {
		if pid := pairterm.Holder(db.Dir(), p.ID); pid != 0 {
			fmt.Fprintf(c.Stdout, "supervisor: process %d\n", pid)
		} else {
			fmt.Fprintln(c.Stdout, "supervisor: none runs (desk serve, or desk pair pilot, supervises the pair)")
		}
	}
	return nil
}

func printStatus(w io.Writer, st *pair.StateAnswer, p *pair.Pair, now time.Time) {
	fmt.Fprintf(w, "pair %s · %s · %s · %s\n", st.Pair, st.Project, st.Folder, st.Status)
	fmt.Fprintf(w, "task: %s\n", clip(st.Task, 200))
	fmt.Fprintf(w, "phase %s · round %d · %s mode · autonomy %s (from %s)\n", st.Phase, st.Round, st.Mode, st.Autonomy, p.AutonomySource)
	if st.Writer == "" {
		fmt.Fprintln(w, "writer: nobody holds write authority")
	} else {
		fmt.Fprintf(w, "writer: %s since %s: %s\n", st.Writer, ago(p.WriterSince, now), clip(st.Rationale, 160))
	}
	var ms []string
	for _, m := range st.Members {
		role := "critic"
		switch {
		case m.Writer:
			role = "writer"
		case m.Left:
			role = "left"
		case !m.Live:
			role = "not started"
		}
		desc := m.Role + " (" + role
		if m.LastSeen != nil {
			desc += ", seen " + ago(*m.LastSeen, now)
		}
		if m.Unread > 0 {
			desc += fmt.Sprintf(", %d unread", m.Unread)
		}
		ms = append(ms, desc+")")
	}
	fmt.Fprintf(w, "members: %s\n", strings.Join(ms, ", "))
	for _, t := range st.Tasks {
		fmt.Fprintf(w, "task #%d: %s (%s)\n", t.N, clip(t.Text, 120), t.AddedBy)
	}
	for _, pt := range st.Patches {
		fmt.Fprintf(w, "patch #%d %s by %s: %s\n", pt.N, pt.State, pt.Role, strings.Join(pt.Files, ", "))
	}
	for _, e := range st.Evidence {
		mark := "passed"
		if !e.Passed {
			mark = "failed"
		}
		fmt.Fprintf(w, "evidence: %s %s (%s): %s\n", e.Kind, mark, e.Role, clip(e.Text, 120))
	}
	if len(st.Blocking) == 0 {
		fmt.Fprintln(w, "the round can close: the writer advances to done")
	} else {
		var rules []string
		for _, g := range st.Blocking {
			rules = append(rules, g.Rule)
		}
		fmt.Fprintf(w, "closing waits on: %s\n", strings.Join(rules, ", "))
	}
}

func runPairWhy(ctx context.Context, c *Context, args []string) error {
	fs, id := pairFlags("why", c)
	if err := fs.parse(args, "pair why"); err != nil {
		return err
	}
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := findPair(ctx, c, svc, *id)
	if err != nil {
		return err
	}
	if p.Writer == "" {
		fmt.Fprintf(c.Stdout, "pair %s: nobody holds write authority", p.ID)
		if p.PinnedWriter != "" {
			fmt.Fprintf(c.Stdout, " (%s is pinned to claim first)", p.PinnedWriter)
		}
		fmt.Fprintln(c.Stdout)
	} else {
		fmt.Fprintf(c.Stdout, "%s holds write authority on pair %s since %s:\n  %s\n", p.Writer, p.ID, p.WriterSince, p.WriterRationale)
	}
	tr, err := svc.PairTranscript(ctx, p.ID, pair.TranscriptFilter{Kinds: []string{pair.EventClaim, pair.EventRelease}, Limit: 20})
	if err != nil {
		return err
	}
	if len(tr.Entries) > 0 {
		fmt.Fprintln(c.Stdout, "history:")
		for _, e := range tr.Entries {
			fmt.Fprintf(c.Stdout, "  %s  %s\n", e.At, e.Text)
		}
	}
	return nil
}

func runPairBudget(ctx context.Context, c *Context, args []string) error {
	fs, id := pairFlags("budget", c)
	messages := fs.Int("messages", 0, "letters a round may send")
	advances := fs.Int("advances", 0, "phase changes a round may make")
	restarts := fs.Int("restarts", 0, "restarts of a dead agent a round may take")
	asJSON := fs.Bool("json", false, "print the budget as JSON")
	if err := fs.parse(args, "pair budget"); err != nil {
		return err
	}
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := findPair(ctx, c, svc, *id)
	if err != nil {
		return err
	}
	if *messages != 0 || *advances != 0 || *restarts != 0 {
		if err := ownerOnly(c, "budget"); err != nil {
			return err
		}
		if _, err := svc.SetBudget(ctx, p.ID, pair.Budget{Messages: *messages, Advances: *advances, Restarts: *restarts}); err != nil {
			return err
		}
	}
	st, err := svc.PairState(ctx, p.ID)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, st.Budget)
	}
	b := st.Budget
	fmt.Fprintf(c.Stdout, "pair %s, round %d:\n  letters        %d of %d\n  phase changes  %d of %d\n  restarts       %d of %d\n",
		p.ID, b.Round, b.Messages[0], b.Messages[1], b.Advances[0], b.Advances[1], b.Restarts[0], b.Restarts[1])
	return nil
}

func runPairOK(ctx context.Context, c *Context, args []string) error {
	fs, id := pairFlags("ok", c)
	if err := fs.parse(args, "pair ok"); err != nil {
		return err
	}
	if err := ownerOnly(c, "ok"); err != nil {
		return err
	}
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := findPair(ctx, c, svc, *id)
	if err != nil {
		return err
	}
	if p, err = svc.OK(ctx, p.ID); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "round %d of pair %s may close: the writer advances to done once the evidence is in\n", p.Round, p.ID)
	return nil
}

func runPairStop(ctx context.Context, c *Context, args []string) error {
	fs, id := pairFlags("stop", c)
	reason := fs.String("reason", "", "why, for the transcript")
	if err := fs.parse(args, "pair stop"); err != nil {
		return err
	}
	if err := ownerOnly(c, "stop"); err != nil {
		return err
	}
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := findPair(ctx, c, svc, *id)
	if err != nil {
		return err
	}
	if _, err := svc.Stop(ctx, p.ID, *reason); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "pair %s stopped\n", p.ID)
	return nil
}

func runPairSwap(ctx context.Context, c *Context, args []string) error {
	fs, id := pairFlags("swap", c)
	byHand := fs.Bool("by-hand", false, "start no session: print how to start the new critic by hand")
	if err := fs.parseArg(args, "pair swap", "the new critic's CLI, e.g. desk pair swap claude"); err != nil {
		return err
	}
	if err := ownerOnly(c, "swap"); err != nil {
		return err
	}
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := findPair(ctx, c, svc, *id)
	if err != nil {
		return err
	}
	before := p
	if p, err = svc.Swap(ctx, p.ID, fs.Arg(0)); err != nil {
		return err
	}
	role := strings.ToLower(fs.Arg(0))
	if managed(before) && !*byHand {
		return swapManaged(ctx, c, db, svc, before, p, role)
	}
	fmt.Fprintf(c.Stdout, "%s is the critic of pair %s; %s keeps write authority. Start it in %s with:\n  DESK_PAIR=%s DESK_PAIR_ROLE=%s %s\n",
		role, p.ID, cmp(p.Writer, "nobody"), p.Folder, p.ID, role, agentCommand(role))
	return nil
}

func cmp(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func runPairTranscript(ctx context.Context, c *Context, args []string) error {
	fs, id := pairFlags("transcript", c)
	asJSON := fs.Bool("json", false, "print the entries as JSON")
	limit := fs.Int("limit", pair.MaxTranscript, "at most this many entries, the newest")
	since := fs.String("since", "", "entries after this id, or at or after this time")
	if err := fs.parse(args, "pair transcript"); err != nil {
		return err
	}
	f, err := pair.ParseSince(*since)
	if err != nil {
		return err
	}
	f.Limit = *limit
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := findPair(ctx, c, svc, *id)
	if err != nil {
		return err
	}
	tr, err := svc.PairTranscript(ctx, p.ID, f)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, tr)
	}
	col := colours(c)
	for _, e := range tr.Entries {
		fmt.Fprintln(c.Stdout, chatLine(e, col))
	}
	return nil
}

func runPairChat(ctx context.Context, c *Context, args []string) error {
	fs, id := pairFlags("chat", c)
	once := fs.Bool("once", false, "print the conversation so far and exit")
	if err := fs.parse(args, "pair chat"); err != nil {
		return err
	}
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	p, err := findPair(ctx, c, svc, *id)
	if err != nil {
		return err
	}
	col := colours(c)
	var last int64
	show := func() error {
		tr, err := svc.PairTranscript(ctx, p.ID, pair.TranscriptFilter{After: last, Kinds: chatKinds, Limit: pair.MaxTranscript})
		if err != nil {
			return err
		}
		for _, e := range tr.Entries {
			fmt.Fprintln(c.Stdout, chatLine(e, col))
		}
		if tr.Next > last {
			last = tr.Next
		}
		return nil
	}
	var seq int64
	if err := db.View(ctx, p.ID, func(tx pair.ReadTx) error { seq, err = tx.Seq(); return err }); err != nil {
		return err
	}
	if err := show(); err != nil || *once {
		return err
	}
	err = db.Watch(ctx, seq, func(cs []*desk.Change) {
		if slices.ContainsFunc(cs, func(ch *desk.Change) bool { return ch.Type == desk.ChangePair }) {
			if err := show(); err != nil {
				fmt.Fprintln(c.Stderr, "desk: "+desk.ErrorMessage(err))
			}
		}
	})
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// chatKinds are the entries of the conversation: what the members said,
// wrote and decided, and what was refused.
var chatKinds = []string{pair.EventCreated, pair.EventJoined, pair.EventClaim, pair.EventRelease, pair.EventAdvance, pair.EventVeto,
	pair.EventRoundClosed, pair.EventRoundOpened, pair.EventLetter, pair.EventNote, pair.EventTask, pair.EventPatch, pair.EventEvidence,
	pair.EventRefusal, pair.EventOwnerOK, pair.EventApproved, pair.EventDenied, pair.EventRestart, pair.EventStopped, pair.EventSwap, pair.EventReport, pair.EventSeated, pair.EventRoundReport}

// palette is the chat's colours; empty strings when colour is off.
type palette struct{ red, green, yellow, dim, bold, reset string }

// colours are on for a terminal (or FORCE_COLOR), off with NO_COLOR.
func colours(c *Context) palette {
	on := c.Getenv("FORCE_COLOR") != ""
	if f, ok := c.Stdout.(*os.File); ok && !on {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			on = true
		}
	}
	if c.Getenv("NO_COLOR") != "" || !on {
		return palette{}
	}
	return palette{red: "\x1b[31m", green: "\x1b[32m", yellow: "\x1b[33m", dim: "\x1b[2m", bold: "\x1b[1m", reset: "\x1b[0m"}
}

// chatLine is one transcript entry on one line (a letter keeps its lines,
// indented).
func chatLine(e pair.Event, col palette) string {
	at := e.At
	if len(at) >= 19 {
		at = at[11:19]
	}
	who := e.Role
	text := e.Text
	switch e.Kind {
	case pair.EventLetter:
		var d struct{ To []string }
		if b, ok := e.Detail.(json.RawMessage); ok {
			_ = json.Unmarshal(b, &d)
		}
		if len(d.To) > 0 {
			who += " → " + strings.Join(d.To, ", ")
		}
		text = strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n           ")
		return fmt.Sprintf("%s%s%s  %s%s%s: %s", col.dim, at, col.reset, col.bold, who, col.reset, text)
	case pair.EventRefusal:
		return fmt.Sprintf("%s%s%s  %s%s REFUSED [%s]: %s%s", col.dim, at, col.reset, col.red, who, e.Rule, text, col.reset)
	case pair.EventDenied:
		return fmt.Sprintf("%s%s%s  %s%s%s", col.dim, at, col.reset, col.red, text, col.reset)
	case pair.EventRoundClosed, pair.EventApproved, pair.EventOwnerOK:
		return fmt.Sprintf("%s%s%s  %s%s%s", col.dim, at, col.reset, col.green, text, col.reset)
	case pair.EventClaim, pair.EventRelease, pair.EventAdvance, pair.EventVeto, pair.EventRoundOpened:
		return fmt.Sprintf("%s%s%s  %s%s%s", col.dim, at, col.reset, col.yellow, text, col.reset)
	}
	return fmt.Sprintf("%s%s%s  %s%s %s", col.dim, at, col.reset, who, col.reset, clip(text, 400))
}

func runPairPilot(ctx context.Context, c *Context, args []string) error {
	fs, id := pairFlags("pilot", c)
	once := fs.Bool("once", false, "one pass over the live pairs, then exit")
	every := fs.Duration("every", 15*time.Second, "how often to pass over the pairs")
	if err := fs.parse(args, "pair pilot"); err != nil {
		return err
	}
	if *every < 100*time.Millisecond {
		return Usagef("pair pilot", "--every %s is too often: give at least 100ms", *every)
	}
	if err := ownerOnly(c, "pilot"); err != nil {
		return err
	}
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	if *id != "" {
		if _, err := findPair(ctx, c, svc, *id); err != nil {
			return err
		}
	}
	pairTerminals(c, db, svc)
	pl := &pair.Pilot{Service: svc}
	leases := &pairterm.Leases{DataDir: db.Dir()}
	defer leases.Close()
	report := func(id string, acts []pair.Action, err error) {
		for _, a := range acts {
			fmt.Fprintf(c.Stdout, "%s %s %s: %s\n", time.Now().UTC().Format(time.TimeOnly), id, a.Kind, a.Text)
		}
		if err != nil {
			fmt.Fprintf(c.Stderr, "desk: pair %s: %s\n", id, desk.ErrorMessage(err))
		}
	}
	if *once {
		_, err := pairterm.PilotOnce(ctx, pl, leases, *id, report)
		return err
	}
	err = pairterm.Pilot(ctx, pl, leases, *every, *id, report)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

// pairFolder is a pair's working folder: --cwd, relative to the current
// folder, else the current folder.
func pairFolder(c *Context, cwd string) string {
	if cwd == "" {
		return filepath.Clean(c.Dir)
	}
	if !filepath.IsAbs(cwd) {
		cwd = filepath.Join(c.Dir, cwd)
	}
	return filepath.Clean(cwd)
}

// checkAutonomyFlag refuses a malformed --autonomy as a usage error,
// before anything is opened; empty leaves the choice to the task.
func checkAutonomyFlag(cmd, lvl string) error {
	if lvl = strings.TrimSpace(lvl); lvl != "" && pair.CheckAutonomy(strings.ToLower(lvl)) != nil {
		return Usagef(cmd, "--autonomy: %q is not auto, semi or observe", clipArg(lvl))
	}
	return nil
}
