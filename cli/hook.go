package cli

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"desk/hook"
)

func init() {
	Register(&Command{Name: "hook", Summary: "answer an agent CLI's hook (session-start, user-prompt-submit)", Run: runHook})
	for name := range hook.Handlers {
		RegisterHook(name, runContextHook(name))
	}
}

// hookCommands are the subcommands of desk hook. The context hooks come
// from package hook; other hooks (lifecycle events) register their own
// with RegisterHook.
var hookCommands = map[string]func(ctx context.Context, c *Context, args []string) error{}

// RegisterHook adds a subcommand to desk hook.
func RegisterHook(name string, run func(ctx context.Context, c *Context, args []string) error) {
	hookCommands[name] = run
}

func runHook(ctx context.Context, c *Context, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		fmt.Fprintf(c.Stdout, "Usage: desk hook <%s> --client <%s>\n\n"+
			"Agent CLIs run these with the hook's JSON payload on stdin; desk install registers them.\n"+
			"A hook prints nothing where the folder is linked to no desk project, and never fails.\n",
			strings.Join(hookNames(), "|"), strings.Join(hook.Clients, "|"))
		return nil
	}
	run := hookCommands[args[0]]
	if run == nil {
		return Usagef("hook", "unknown hook %q; the hooks are %s", args[0], strings.Join(hookNames(), ", "))
	}
	return run(ctx, c, args[1:])
}

func hookNames() []string {
	names := make([]string, 0, len(hookCommands))
	for n := range hookCommands {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// runContextHook runs a context hook. Its flags are read leniently: a
// client that passes a flag desk does not know still gets its answer, and
// nothing the hook meets makes it fail.
func runContextHook(name string) func(ctx context.Context, c *Context, args []string) error {
	return func(ctx context.Context, c *Context, args []string) error {
		client := ""
		for i := 0; i < len(args); i++ {
			a := args[i]
			switch {
			case a == "--client" || a == "-client":
				if i+1 < len(args) {
					client = args[i+1]
					i++
				}
			case strings.HasPrefix(a, "--client=") || strings.HasPrefix(a, "-client="):
				_, client, _ = strings.Cut(a, "=")
			}
		}
		env := &hook.Env{Stdin: c.Stdin, Stdout: c.Stdout, Stderr: c.Stderr, DataDir: c.DataDir, Dir: c.Dir, Getenv: c.Getenv}
		return hook.Run(ctx, env, name, client)
	}
}
