package codex

import "desk/agent"

// Codex reads hooks only from its own configuration, and runs them only
// once the user trusted them there, so a launch relies on the hooks desk
// install registered. Resuming is a subcommand: codex resume <id>.
func init() {
	agent.RegisterLauncher(agent.Launcher{
		Kind: Name, Title: "Codex", Bin: "codex",
		Paths:      []string{"~/.npm-global/bin/codex", "~/.local/bin/codex", "/usr/local/bin/codex"},
		Approvals:  true,
		Resume:     &agent.Resume{Form: "a UUID", Pattern: agent.UUIDPattern},
		ProfileEnv: "CODEX_HOME",
		Hooks:      agent.HooksInstalled,
		Capture:    agent.CaptureCodex,
		Build: func(l *agent.Launch) error {
			if l.Resume != "" {
				l.Flags = append(l.Flags, "resume", l.Resume)
			}
			if l.Bypass {
				l.Flags = append(l.Flags, "--dangerously-bypass-approvals-and-sandbox")
			}
			return nil
		},
	})
}
