package pi

import "desk/agent"

// Pi has no per-tool approvals, so there is nothing to bypass. It opens or
// creates the exact session id it is given. Its state would come from an
// extension passed with -e; desk does not ship one yet, so a Pi session
// reports nothing (its record says so).
func init() {
	agent.RegisterLauncher(agent.Launcher{
		Kind: Name, Title: "Pi", Bin: "pi",
		Paths:      []string{"~/.npm-global/bin/pi", "~/.local/bin/pi", "/usr/local/bin/pi"},
		Resume:     &agent.Resume{Form: "a UUID", Pattern: agent.UUIDPattern},
		ProfileEnv: "PI_CODING_AGENT_DIR",
		Hooks:      agent.HooksNone,
		Build: func(l *agent.Launch) error {
			if l.Resume != "" {
				l.Flags = append(l.Flags, "--session-id", l.Resume)
			}
			return nil
		},
	})
}
