package cli

import (
	"context"
	"fmt"

	"desk/install"
)

func init() {
	for _, c := range []struct{ name, summary string }{
		{"install", "connect the agent CLIs on this machine to desk (MCP server, hooks, skills)"},
		{"update", "refresh what install set up, after desk moved or changed"},
		{"uninstall", "remove exactly what install added; the data folder stays"},
		{"agents-md", "print a section for a repo's AGENTS.md"},
		{"doctor", "tell, per installed agent CLI, whether desk is connected and its hooks fire"},
	} {
		name := c.name
		Register(&Command{Name: name, Summary: c.summary, Run: func(ctx context.Context, cx *Context, args []string) error {
			return runInstaller(ctx, cx, name, args)
		}})
	}
}

// exitError carries a command's own exit code when it printed its own
// message already.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit status %d", int(e)) }

func runInstaller(ctx context.Context, c *Context, action string, args []string) error {
	env := install.Env{
		Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr,
		Home: c.Getenv("HOME"), Environ: c.Environ, Dir: c.Dir,
	}
	if c.DataSet {
		env.Data = c.DataDir
	}
	if action == "doctor" {
		env.LastSeen = hookLastSeen(ctx, c.DataDir)
	}
	if code := install.Main(ctx, action, args, env); code != 0 {
		return exitError(code)
	}
	return nil
}
