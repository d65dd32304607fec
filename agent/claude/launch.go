package claude

import "desk/agent"

// Claude Code takes desk's hooks for one launch with --settings, which it
// merges over the user's own settings without touching them.
func init() {
	agent.RegisterLauncher(agent.Launcher{
		Kind: Name, Title: "Claude Code", Bin: "claude",
		Paths:      []string{"~/.claude/local/claude", "~/.local/bin/claude", "~/.npm-global/bin/claude", "/usr/local/bin/claude"},
		Approvals:  true,
		Resume:     &agent.Resume{Form: "a UUID", Pattern: agent.UUIDPattern},
		ProfileEnv: "CLAUDE_CONFIG_DIR",
		Hooks:      agent.HooksLaunch,
		Capture:    agent.CaptureHooks,
		Build: func(l *agent.Launch) error {
			if l.HookSettings != "" {
				l.Flags = append(l.Flags, "--settings", l.HookSettings)
			}
			if l.Bypass {
				l.Flags = append(l.Flags, "--dangerously-skip-permissions")
			}
			if l.Resume != "" {
				l.Flags = append(l.Flags, "--resume", l.Resume)
			}
			return nil
		},
	})
}
