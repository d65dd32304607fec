package install

import (
	"context"
	"fmt"
	"os"
	"time"
)

// ClientStatus is what desk doctor finds for one agent CLI.
type ClientStatus struct {
	Client string // claude, codex ...
	Title  string // Claude Code, Codex ...
	Path   string // the executable on PATH, "" when it is not there
	// Installed says desk installed itself there (it has a record);
	// Current says the configuration holds exactly what desk install
	// would write now. Pending counts the steps desk install would take.
	Installed, Current bool
	Pending            int
	// Problem explains what is wrong, in one line, or "".
	Problem string
	// LastSeen is when the client's hooks last reached desk.
	LastSeen time.Time
	Seen     bool
}

// Doctor checks every agent CLI that is on PATH or that desk installed
// itself into. lastSeen (may be nil) tells when each client's hooks last
// fired.
func Doctor(ctx context.Context, env Env, lastSeen LastSeenFunc) ([]ClientStatus, error) {
	if err := env.resolve(); err != nil {
		return nil, err
	}
	all, err := loadReceipts(&env)
	if err != nil {
		return nil, err
	}
	var out []ClientStatus
	for _, t := range tools {
		path, onPath := t.found(&env)
		rec, installed := all.Tools[t.name]
		if !onPath && !installed {
			continue
		}
		st := ClientStatus{Client: t.name, Title: t.title, Path: path, Installed: installed}
		if lastSeen != nil {
			st.LastSeen, st.Seen = lastSeen(t.name)
		}
		if !installed {
			rec = &receipt{}
		}
		c := &installCtx{env: &env, rec: rec, all: all, action: "install", writer: &writer{now: env.now}, context: ctx}
		p, err := planTool(c, t)
		switch {
		case err != nil:
			st.Problem = err.Error()
		case len(p.steps) > 0:
			st.Pending = len(p.steps)
			st.Problem = fmt.Sprintf("desk install %s would take %d steps", t.name, len(p.steps))
		default:
			st.Current = true
		}
		if installed && rec.Desk != "" && rec.Desk != env.Desk {
			if _, err := os.Stat(rec.Desk); err != nil {
				st.Problem = "it runs " + rec.Desk + ", which is gone; run desk update " + t.name
			}
		}
		if !onPath && installed && st.Problem == "" {
			st.Problem = t.bins[0] + " is no longer on PATH"
		}
		out = append(out, st)
	}
	return out, nil
}

func runDoctor(args []string, env *Env) int {
	if len(args) > 0 {
		fmt.Fprintln(env.Stderr, "desk doctor takes no arguments")
		return ExitUsage
	}
	list, err := Doctor(context.Background(), *env, env.LastSeen)
	if err != nil {
		fmt.Fprintln(env.Stderr, "desk doctor:", err)
		return ExitFailed
	}
	if len(list) == 0 {
		fmt.Fprintln(env.Stdout, "No agent CLI desk knows is on PATH, and desk is installed in none.")
		return ExitOK
	}
	code := ExitOK
	now := env.now()
	for _, s := range list {
		state := "registered"
		switch {
		case !s.Installed && !s.Current:
			state = "not connected (desk install " + s.Client + ")"
		case !s.Current:
			state = "needs attention: " + s.Problem
			code = ExitFailed
		case s.Problem != "":
			state = "registered; " + s.Problem
		}
		hooks := "hooks never fired"
		if s.Seen {
			hooks = "hooks last fired " + ago(now.Sub(s.LastSeen)) + " ago"
		} else if env.LastSeen == nil {
			hooks = "hook activity unknown"
		}
		fmt.Fprintf(env.Stdout, "%-12s %-12s %s; %s\n", s.Client, s.Title, state, hooks)
	}
	return code
}

func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}
