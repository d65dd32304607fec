package install

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"desk"
)

// Exit codes of Main.
const (
	ExitOK      = 0 // done, or nothing to do
	ExitFailed  = 1 // a tool could not be (un)installed; the others were
	ExitUsage   = 2 // bad arguments; nothing was done
	ExitRefused = 3 // the user said no; nothing was done
)

// Main runs one of desk's installer commands and returns the exit code:
//
//	install|update|uninstall [tools...] [--yes] [--dry-run] [--link SLUG]
//	agents-md
//	doctor
//
// It writes what it does to env.Stdout and problems to env.Stderr.
func Main(ctx context.Context, action string, args []string, env Env) int {
	if env.Stdout == nil {
		env.Stdout = io.Discard
	}
	if env.Stderr == nil {
		env.Stderr = io.Discard
	}
	switch action {
	case "install", "update", "uninstall":
		return runInstall(ctx, action, args, &env)
	case "agents-md":
		if len(args) > 0 {
			fmt.Fprintln(env.Stderr, "desk agents-md takes no arguments")
			return ExitUsage
		}
		if err := env.resolve(); err != nil {
			fmt.Fprintln(env.Stderr, "desk agents-md:", err)
			return ExitFailed
		}
		fmt.Fprint(env.Stdout, AgentsMD(env.Desk))
		return ExitOK
	case "doctor":
		return runDoctor(args, &env)
	}
	fmt.Fprintf(env.Stderr, "unknown command %q; use install, update, uninstall, agents-md or doctor\n", action)
	return ExitUsage
}

// options are the parsed arguments of install, update and uninstall.
type options struct {
	tools  []*tool
	yes    bool
	dryRun bool
	link   string
}

func parseOptions(action string, args []string, stderr io.Writer) (*options, error) {
	fs := flag.NewFlagSet("desk "+action, flag.ContinueOnError)
	fs.SetOutput(stderr)
	o := &options{}
	fs.BoolVar(&o.yes, "yes", false, "do it without asking")
	fs.BoolVar(&o.dryRun, "dry-run", false, "only show what would be done; write nothing")
	if action != "uninstall" {
		fs.StringVar(&o.link, "link", "", "link the git repo desk runs in to the desk project `SLUG`")
	}
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: desk %s [%s] [--yes] [--dry-run]", action, strings.Join(toolNames(), " "))
		if action != "uninstall" {
			fmt.Fprint(stderr, " [--link SLUG]")
		}
		fmt.Fprintln(stderr)
		fs.PrintDefaults()
	}
	// Tools and flags may come in any order.
	var names []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		args = fs.Args()
		if len(args) > 0 {
			names = append(names, args[0])
			args = args[1:]
		}
	}
	for _, n := range names {
		t := toolNamed(strings.ToLower(n))
		if t == nil {
			return nil, fmt.Errorf("unknown tool %q; desk knows %s", n, strings.Join(toolNames(), ", "))
		}
		if !slices.Contains(o.tools, t) {
			o.tools = append(o.tools, t)
		}
	}
	if o.link != "" && !desk.ValidSlug(o.link) {
		return nil, fmt.Errorf("--link %q: a project slug is 1-40 lower-case letters, digits or '-', starting with a letter or digit, e.g. mygame", o.link)
	}
	return o, nil
}

func runInstall(ctx context.Context, action string, args []string, env *Env) int {
	o, err := parseOptions(action, args, env.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "desk "+action+":", err)
		return ExitUsage
	}
	if err := env.resolve(); err != nil {
		fmt.Fprintln(env.Stderr, "desk "+action+":", err)
		return ExitFailed
	}
	all, err := loadReceipts(env)
	if err != nil {
		fmt.Fprintln(env.Stderr, "desk "+action+":", err)
		return ExitFailed
	}
	selected, code := selectTools(action, o, env, all)
	if code != ExitOK {
		return code
	}
	knownDirs := slices.Clone(all.Leftover)
	for _, r := range all.Tools {
		knownDirs = append(knownDirs, r.CreatedDirs...)
	}
	in := bufio.NewReader(orEmpty(env.Stdin))
	w := &writer{now: env.now}
	failed := false
	var plans []*plan
	for _, t := range selected {
		rec := all.Tools[t.name]
		if rec == nil {
			rec = &receipt{}
		}
		c := &installCtx{env: env, rec: rec, all: all, action: action, writer: w, context: ctx, knownDirs: knownDirs}
		p, err := planTool(c, t)
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s: %v\n", t.title, err)
			failed = true
			continue
		}
		if len(p.steps) == 0 {
			continue
		}
		plans = append(plans, p)
		showPlan(env, t, p)
		if o.dryRun {
			continue
		}
		if !o.yes && !confirm(env, in, fmt.Sprintf("%s %s? [y/N] ", verbFor(action), t.title)) {
			fmt.Fprintf(env.Stdout, "Skipped %s.\n\n", t.title)
			continue
		}
		err = p.apply(c)
		recordReceipt(c, t, err == nil)
		if serr := all.save(env, w); serr != nil && err == nil {
			err = serr
		}
		if err != nil {
			fmt.Fprintf(env.Stderr, "%s: %v\n", t.title, err)
			failed = true
			continue
		}
		fmt.Fprintf(env.Stdout, "%s: done.\n", t.title)
		for _, n := range p.notes {
			fmt.Fprintln(env.Stdout, "  "+n)
		}
		fmt.Fprintln(env.Stdout)
	}
	if len(plans) == 0 && !failed {
		fmt.Fprintln(env.Stdout, "Nothing to change.")
	}
	if o.dryRun && len(plans) > 0 {
		fmt.Fprintln(env.Stdout, "Dry run: nothing was written.")
	}
	if action != "uninstall" {
		if err := offerLink(env, in, o); err != nil {
			fmt.Fprintln(env.Stderr, "link:", err)
			failed = true
		}
		fmt.Fprintf(env.Stdout, "Start the desk with: %s serve --open\n", shellQuote(env.Desk))
	} else if !o.dryRun && len(plans) > 0 {
		fmt.Fprintf(env.Stdout, "The desk's data in %s was left as it is.\n", env.tilde(env.Data))
	}
	if failed {
		return ExitFailed
	}
	return ExitOK
}

// selectTools picks the tools to act on: the named ones, or else the
// installed ones (install), the ones desk installed (update), or every tool
// with something of desk's (uninstall).
func selectTools(action string, o *options, env *Env, all *receipts) ([]*tool, int) {
	if len(o.tools) > 0 {
		if action != "uninstall" {
			for _, t := range o.tools {
				if _, ok := t.found(env); !ok {
					fmt.Fprintf(env.Stderr, "desk %s: %s (%s) is not on your PATH; install it first, or leave it out\n", action, t.title, t.bins[0])
					return nil, ExitUsage
				}
			}
		}
		return o.tools, ExitOK
	}
	var picked []*tool
	for _, t := range tools {
		_, onPath := t.found(env)
		_, recorded := all.Tools[t.name]
		switch action {
		case "install":
			if onPath {
				picked = append(picked, t)
			}
		case "update":
			if recorded && onPath {
				picked = append(picked, t)
			}
		case "uninstall":
			picked = append(picked, t) // tools with nothing of desk's plan no steps
		}
	}
	if len(picked) == 0 && action != "uninstall" {
		if action == "install" {
			fmt.Fprintf(env.Stdout, "None of the agent CLIs desk knows (%s) is on your PATH.\n", strings.Join(toolNames(), ", "))
		} else {
			fmt.Fprintln(env.Stdout, "desk is not installed in any agent CLI; run desk install first.")
		}
	}
	return picked, ExitOK
}

// planTool builds the tool's plan, adds the shared skills it reads, and
// previews every step, dropping those that change nothing.
func planTool(c *installCtx, t *tool) (*plan, error) {
	p, err := t.plan(c)
	if err != nil {
		return nil, err
	}
	p.tool = t
	if t.skills {
		p.steps = append(p.steps, sharedSkillSteps(c, t)...)
		if c.removing() {
			for _, s := range skills {
				p.prune = append(p.prune, sharedSkillsDir(c)+"/"+s.name)
			}
		}
	}
	var kept []*step
	anyReal := false
	for _, s := range p.steps {
		if err := s.preview(); err != nil {
			return nil, fmt.Errorf("%s: %w", c.env.tilde(s.path), err)
		}
		if s.changes() {
			kept = append(kept, s)
			anyReal = anyReal || !s.late
		}
	}
	if !anyReal {
		kept = nil // late steps alone only tidy up after real ones
	}
	p.steps = kept
	return p, nil
}

func showPlan(env *Env, t *tool, p *plan) {
	where := ""
	if path, ok := t.found(env); ok {
		where = " (" + path + ")"
	}
	fmt.Fprintf(env.Stdout, "%s%s:\n", t.title, where)
	for _, s := range p.steps {
		fmt.Fprintln(env.Stdout, "  "+s.describe(env))
	}
}

func verbFor(action string) string {
	switch action {
	case "uninstall":
		return "Remove desk from"
	case "update":
		return "Update desk in"
	}
	return "Connect desk to"
}

// recordReceipt updates the tool's record after its plan ran: uninstall
// forgets the tool once everything went, install remembers what it did.
func recordReceipt(c *installCtx, t *tool, ok bool) {
	if c.removing() {
		if ok {
			app := c.env.appDir()
			for _, d := range c.rec.CreatedDirs {
				if d == app || strings.HasPrefix(app, d+string(os.PathSeparator)) {
					if !slices.Contains(c.all.Dirs, d) {
						c.all.Dirs = append(c.all.Dirs, d) // it goes with the record
					}
					continue
				}
				if _, err := os.Stat(d); err == nil && !slices.Contains(c.all.Leftover, d) {
					c.all.Leftover = append(c.all.Leftover, d)
				}
			}
			c.all.Leftover = slices.DeleteFunc(c.all.Leftover, func(d string) bool {
				_, err := os.Stat(d)
				return err != nil
			})
			delete(c.all.Tools, t.name)
		}
		return
	}
	c.rec.Desk, c.rec.Data = c.env.Desk, c.env.Data
	c.rec.InstalledAt = c.env.now().UTC().Format("2006-01-02T15:04:05.000Z")
	c.all.Tools[t.name] = c.rec
}

// confirm asks a yes/no question on stdin; anything but yes is no, and so
// is the end of the input (a run without a terminal needs --yes).
func confirm(env *Env, in *bufio.Reader, question string) bool {
	fmt.Fprint(env.Stdout, question)
	line, err := in.ReadString('\n')
	if err != nil && line == "" {
		fmt.Fprintln(env.Stdout, "\n(no answer; run with --yes to skip the questions)")
		return false
	}
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		return true
	}
	return false
}

// ask reads one line of answer; "" at the end of the input.
func ask(env *Env, in *bufio.Reader, question string) string {
	fmt.Fprint(env.Stdout, question)
	line, _ := in.ReadString('\n')
	return strings.TrimSpace(line)
}

func orEmpty(r io.Reader) io.Reader {
	if r == nil {
		return strings.NewReader("")
	}
	return r
}
