package cli

import (
	"context"
	"fmt"
	"strings"
	"time"

	"desk"
)

func init() {
	Register(&Command{Name: "claim", Summary: "claim an issue so other agents leave it: claim MG-12 [--hours 2] [--holder NAME]", Run: runClaim})
	Register(&Command{Name: "release", Summary: "release the claim on an issue: release MG-12", Run: runRelease})
	Register(&Command{Name: "claims", Summary: "the claims in force on a project's issues", Run: runClaims})
}

// holder is who claims over the command line: --holder, else $DESK_AUTHOR.
func holder(c *Context, flag string) string {
	if h := strings.TrimSpace(flag); h != "" {
		return h
	}
	return strings.TrimSpace(c.Getenv("DESK_AUTHOR"))
}

func runClaim(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("claim", c)
	hours := fs.Float64("hours", desk.DefaultClaimHours, "how long, from one minute (0.017) to 24 hours")
	who := fs.String("holder", "", "who holds it (default: $DESK_AUTHOR)")
	asJSON := fs.Bool("json", false, "print the claim as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "claim", 1, 1, "the issue id, e.g. desk claim MG-12"); err != nil {
		return err
	}
	if _, _, err := desk.ParseIssueKey(fs.Arg(0)); err != nil {
		return err
	}
	d, err := desk.ClaimDuration(hours)
	if err != nil {
		return err
	}
	h := holder(c, *who)
	if h == "" {
		return Usagef("claim", "name the holder with --holder, or set DESK_AUTHOR")
	}
	st, _, done, err := openWork(ctx, c, "claim")
	if err != nil {
		return err
	}
	defer done()
	cl, err := st.ClaimIssue(ctx, fs.Arg(0), h, d)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, cl)
	}
	fmt.Fprintf(c.Stdout, "%s is claimed by %s until %s\n", cl.Issue, cl.Holder, localTime(cl.ExpiresAt))
	return nil
}

func runRelease(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("release", c)
	who := fs.String("holder", "", "whose claim (default: $DESK_AUTHOR; with neither, the owner releases any)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := argCount(fs, "release", 1, 1, "the issue id, e.g. desk release MG-12"); err != nil {
		return err
	}
	if _, _, err := desk.ParseIssueKey(fs.Arg(0)); err != nil {
		return err
	}
	h := holder(c, *who)
	st, _, done, err := openWork(ctx, c, "release")
	if err != nil {
		return err
	}
	defer done()
	cl, err := st.ReleaseIssue(ctx, fs.Arg(0), h, h == "" || desk.IsOwner(h))
	if err != nil {
		return err
	}
	if cl == nil {
		fmt.Fprintf(c.Stdout, "%s had no claim in force\n", strings.ToUpper(fs.Arg(0)))
		return nil
	}
	fmt.Fprintf(c.Stdout, "%s is no longer claimed by %s\n", cl.Issue, cl.Holder)
	return nil
}

func runClaims(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("claims", c)
	proj := fs.String("project", "", "the project (default: the linked or only one)")
	asJSON := fs.Bool("json", false, "print the claims as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "claims"); err != nil {
		return err
	}
	st, projectOf, done, err := openWork(ctx, c, "claims")
	if err != nil {
		return err
	}
	defer done()
	slug, err := projectOf(*proj)
	if err != nil {
		return err
	}
	cs, err := st.Claims(ctx, slug)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, map[string]any{"project": slug, "claims": cs})
	}
	if len(cs) == 0 {
		fmt.Fprintf(c.Stdout, "No issue of %s is claimed.\n", slug)
	}
	for _, cl := range cs {
		fmt.Fprintf(c.Stdout, "%-8s %s until %s\n", cl.Issue, cl.Holder, localTime(cl.ExpiresAt))
	}
	return nil
}

// localTime shows a stored time as the clock on the wall reads it.
func localTime(ts string) string {
	t, err := time.Parse(desk.TimeLayout, ts)
	if err != nil {
		return ts
	}
	l := t.Local()
	if y, m, d := l.Date(); time.Now().Year() == y && time.Now().Month() == m && time.Now().Day() == d {
		return l.Format("15:04")
	}
	return l.Format("2006-01-02 15:04")
}
