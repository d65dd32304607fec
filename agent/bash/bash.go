// Package bash describes bash sessions: a plain interactive shell in a
// terminal desk holds. A shell has no hooks, no resume and no approvals.
package bash

import "desk/agent"

// Name is the kind's name.
const Name = "bash"

func init() {
	agent.RegisterLauncher(agent.Launcher{
		Kind: Name, Title: "bash", Bin: "bash",
		Paths: []string{"/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash"},
		Hooks: agent.HooksNone,
		Build: func(*agent.Launch) error { return nil },
	})
}
