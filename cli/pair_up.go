package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	"desk"
	"desk/pair"
	"desk/pairterm"
	"desk/session"
	"desk/sqlite"
)

// pairTerminals gives the rules the members' managed sessions, over the
// store's session records.
func pairTerminals(c *Context, db *sqlite.DB, svc *pair.Service) *pairterm.Terminals {
	t := &pairterm.Terminals{M: &session.Manager{Store: db, DataDir: db.Dir(), Environ: c.Environ}, Pairs: svc}
	svc.Terminals = t
	return t
}

// pilotEvery is how often the supervisor desk pair up starts passes over
// its pair: a pointer waits at most this long for a composer to show.
const pilotEvery = 3 * time.Second

func runPairUp(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("pair up", c)
	task := fs.String("task", "", "what the pair is to do (\"autonomy: semi\" on its first line sets the level)")
	writer := fs.String("writer", "claude", "the writer's CLI: claude, codex or opencode")
	critic := fs.String("critic", "codex", "the critic's CLI")
	autonomy := fs.String("autonomy", "", "auto, semi or observe (default: the task's first line, .desk-pair/autonomy, else auto)")
	mode := fs.String("mode", "", "fix (default) or audit")
	worktree := fs.String("worktree", "", "run the pair in a new git worktree on this branch, beside the repo")
	cwd := fs.String("cwd", "", "the working folder (default: the current one)")
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	noPilot := fs.Bool("no-pilot", false, "start no supervisor (desk serve, or desk pair pilot, pilots the pair)")
	asJSON := fs.Bool("json", false, "print the pair and its sessions as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "pair up"); err != nil {
		return err
	}
	if err := ownerOnly(c, "up"); err != nil {
		return err
	}
	if err := checkAutonomyFlag("pair up", *autonomy); err != nil {
		return err
	}
	if strings.TrimSpace(*task) == "" {
		return Usagef("pair up", "--task is required: what the pair is to do")
	}
	w, k := strings.ToLower(strings.TrimSpace(*writer)), strings.ToLower(strings.TrimSpace(*critic))
	for _, cli := range []struct{ flag, kind string }{{"--writer", w}, {"--critic", k}} {
		if !slices.Contains(pairterm.Kinds, cli.kind) {
			return Usagef("pair up", "%s: desk pair up starts %s; %q is none of them (start another agent by hand after desk pair new)",
				cli.flag, strings.Join(pairterm.Kinds, ", "), clipArg(cli.kind))
		}
	}
	if w == k {
		return Usagef("pair up", "--writer and --critic are both %s: pair two different CLIs, so that one model checks the other", w)
	}
	folder := pairFolder(c, *cwd)
	db, svc, err := pairStore(ctx, c)
	if err != nil {
		return err
	}
	defer db.Close()
	// The project is the folder's, found before a worktree moves the pair
	// out of it.
	slug, err := projectFor(ctx, c, db, *proj, folder)
	if err != nil {
		return err
	}
	if *worktree != "" {
		if folder, err = addWorktree(ctx, folder, *worktree); err != nil {
			return err
		}
	}
	p, err := svc.New(ctx, pair.NewInput{Project: slug, Folder: folder, Task: *task, Members: []string{w, k}, Mode: strings.ToLower(strings.TrimSpace(*mode)),
		Autonomy: strings.ToLower(strings.TrimSpace(*autonomy)), Writer: w})
	if err != nil {
		return err
	}
	term := pairTerminals(c, db, svc)
	sessions, err := launchMembers(ctx, svc, term, p, []string{w, k})
	if err != nil {
		return err
	}
	pilot := "desk serve or desk pair pilot"
	if !*noPilot {
		if pid := pairterm.Holder(db.Dir(), p.ID); pid != 0 {
			pilot = fmt.Sprintf("process %d", pid)
		} else if pid, err := startPilot(c, db.Dir(), p.ID); err != nil {
			fmt.Fprintf(c.Stderr, "desk: the supervisor did not start (%s); run desk pair pilot\n", desk.ErrorMessage(err))
		} else {
			pilot = fmt.Sprintf("desk pair pilot, process %d", pid)
		}
	}
	if *asJSON {
		return printJSON(c.Stdout, map[string]any{"pair": p, "sessions": sessions, "pilot": pilot})
	}
	fmt.Fprintln(c.Stdout, p.ID)
	fmt.Fprintf(c.Stderr, "pair %s on %s: %s mode, autonomy %s (from %s); the supervisor is %s.\n", p.ID, p.Folder, p.Mode, p.Autonomy, p.AutonomySource, pilot)
	for _, r := range []string{w, k} {
		fmt.Fprintf(c.Stderr, "  %-8s session %s: desk attach %s\n", r, sessions[r], sessions[r])
	}
	fmt.Fprintln(c.Stderr, "Follow the conversation with desk pair chat; end it with desk pair stop.")
	return nil
}

// launchMembers starts each role as a managed session in the pair's
// folder and seats it. When one cannot start, the ones started are
// stopped and the pair is stopped with the reason: nothing is left half
// up.
func launchMembers(ctx context.Context, svc *pair.Service, term *pairterm.Terminals, p *pair.Pair, roles []string) (map[string]string, error) {
	sessions := map[string]string{}
	undo := func(cause error) error {
		for _, id := range sessions {
			if _, err := term.M.Stop(context.WithoutCancel(ctx), id, true); err != nil {
				cause = errors.Join(cause, err)
			}
		}
		if _, err := svc.Stop(context.WithoutCancel(ctx), p.ID, "desk pair up could not start the agents: "+desk.ErrorMessage(cause)); err != nil {
			cause = errors.Join(cause, err)
		}
		return cause
	}
	for _, role := range roles {
		id, err := term.Launch(ctx, pair.Launch{Kind: agentCommand(role), Dir: p.Folder,
			Env: []string{pair.EnvPair + "=" + p.ID, pair.EnvRole + "=" + role}, Args: []string{kickoff(p, role)}})
		if err != nil {
			return nil, undo(fmt.Errorf("start %s: %w", role, err))
		}
		sessions[role] = id
		if _, err := svc.Seat(ctx, p.ID, role, id); err != nil {
			return nil, undo(err)
		}
	}
	return sessions, nil
}

// kickoff is an agent's first prompt: where it is and what to do first.
// It is the launch's argument, so a restart hands it over again, which
// reorients an agent that lost its turn.
func kickoff(p *pair.Pair, role string) string {
	task, _, _ := strings.Cut(p.Task, "\n")
	what := "You are the critic: review and attack the writer's work, run the tests, and propose changes as sealed patches with pair_propose."
	if p.Mode == pair.ModeAudit {
		what = "You are a critic in audit mode: hunt defects and try to refute the writer's claims; record findings with pair_note."
	}
	if role == p.PinnedWriter {
		what = "You are the writer: claim write authority with pair_claim, then plan, edit and test; the critic reviews."
	}
	return fmt.Sprintf("[desk pair] You are %s in pair %s (%s mode) on %s. The task: %s. %s Start with pair_digest, and end every turn with pair_read wait_seconds 45.",
		role, p.ID, p.Mode, p.Folder, clip(task, 1500), what)
}

// startPilot starts desk pair pilot for one pair, detached from this
// terminal (its own session, its output in the pair's folder under the
// data folder), and returns its pid. It ends when the pair is stopped.
func startPilot(c *Context, dataDir, id string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	dir := filepath.Join(pair.PatchRootIn(dataDir), id)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return 0, err
	}
	logf, err := os.OpenFile(filepath.Join(dir, "pilot.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return 0, err
	}
	defer logf.Close()
	cmd := exec.Command(exe, "--data", dataDir, "pair", "pilot", "--pair", id, "--every", pilotEvery.String())
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.Dir = "/"
	cmd.Env = slices.DeleteFunc(slices.Clone(c.Environ), func(kv string) bool {
		return strings.HasPrefix(kv, pair.EnvPair+"=") || strings.HasPrefix(kv, pair.EnvRole+"=")
	})
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	pid := cmd.Process.Pid
	go cmd.Wait() // reaped if it ends while this process lives
	return pid, nil
}

var unsafeBranchChars = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// addWorktree makes a git worktree on branch beside the repo that holds
// folder (<repo>-<branch>), on a new branch from HEAD or on the branch if
// it exists, and returns its folder. A worktree already there on that
// branch is used as it is.
func addWorktree(ctx context.Context, folder, branch string) (string, error) {
	branch = strings.TrimSpace(branch)
	git := func(dir string, args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
		out, err := cmd.CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if out, err := git(folder, "check-ref-format", "--branch", branch); err != nil || strings.HasPrefix(branch, "-") {
		return "", Usagef("pair up", "--worktree: %q is not a branch name git takes (%s)", clipArg(branch), clip(out, 200))
	}
	top, err := git(folder, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", desk.Errorf(desk.Invalid, "--worktree needs a git repo, and %s is in none", folder).WithHint("run desk pair up in the repo, or leave --worktree out")
	}
	path := filepath.Join(filepath.Dir(top), filepath.Base(top)+"-"+strings.Trim(unsafeBranchChars.ReplaceAllString(branch, "-"), "-"))
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		if cur, err := git(path, "rev-parse", "--abbrev-ref", "HEAD"); err == nil && cur == branch {
			return path, nil
		}
		return "", desk.Errorf(desk.Conflict, "%s exists and is not a worktree on %s", path, branch).WithHint("pick another branch, or move that folder away")
	}
	args := []string{"worktree", "add", path, branch}
	if _, err := git(top, "rev-parse", "--verify", "--quiet", "refs/heads/"+branch); err != nil {
		args = []string{"worktree", "add", "-b", branch, path}
	}
	if out, err := git(top, args...); err != nil {
		return "", desk.Errorf(desk.Conflict, "git worktree add failed: %s", clip(out, 300)).WithHint("see git worktree list")
	}
	return path, nil
}

// managed reports whether a pair's writer runs in a managed session: then
// a swap starts the new critic as one too.
func managed(p *pair.Pair) bool {
	for _, m := range p.Members {
		if m.Role == p.Writer || p.Writer == "" && m.Role == p.PinnedWriter {
			return m.Session != ""
		}
	}
	return false
}

// swapManaged stops the sessions of the critics a swap let go and starts
// the new critic in the pair's folder as a managed session.
func swapManaged(ctx context.Context, c *Context, db *sqlite.DB, svc *pair.Service, before, p *pair.Pair, role string) error {
	term := pairTerminals(c, db, svc)
	if !slices.Contains(pairterm.Kinds, agentCommand(role)) {
		return desk.Errorf(desk.Invalid, "%s is the critic of pair %s, but desk pair up starts only %s", role, p.ID, strings.Join(pairterm.Kinds, ", ")).
			WithHint(fmt.Sprintf("start it by hand in %s with DESK_PAIR=%s DESK_PAIR_ROLE=%s", p.Folder, p.ID, role))
	}
	for _, m := range p.Members {
		if m.LeftAt == nil || m.Session == "" {
			continue
		}
		if alive, err := term.Alive(ctx, m.Session); err == nil && alive {
			if _, err := term.M.Stop(ctx, m.Session, false); err != nil {
				fmt.Fprintf(c.Stderr, "desk: %s's session %s did not stop: %s\n", m.Role, m.Session, desk.ErrorMessage(err))
			}
		}
	}
	id, err := term.Launch(ctx, pair.Launch{Kind: agentCommand(role), Dir: p.Folder,
		Env: []string{pair.EnvPair + "=" + p.ID, pair.EnvRole + "=" + role}, Args: []string{kickoff(p, role)}})
	if err != nil {
		return fmt.Errorf("%s is the critic of pair %s, but its session did not start: %w", role, p.ID, err)
	}
	if _, err := svc.Seat(ctx, p.ID, role, id); err != nil {
		return err
	}
	fmt.Fprintf(c.Stdout, "%s is the critic of pair %s in session %s; %s keeps write authority\n", role, p.ID, id, cmp(p.Writer, "nobody"))
	return nil
}
