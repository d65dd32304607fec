package gemini

import "desk/agent"

// Gemini CLI reads hooks only from its settings files, so a launch relies
// on the hooks desk install registered. --yolo approves every tool.
func init() {
	agent.RegisterLauncher(agent.Launcher{
		Kind: Name, Title: "Gemini CLI", Bin: "gemini",
		Paths:     []string{"~/.npm-global/bin/gemini", "~/.local/bin/gemini", "/usr/local/bin/gemini"},
		Approvals: true,
		Resume:    &agent.Resume{Form: "a UUID", Pattern: agent.UUIDPattern},
		Hooks:     agent.HooksInstalled,
		Capture:   agent.CaptureHooks,
		Build: func(l *agent.Launch) error {
			if l.Bypass {
				l.Flags = append(l.Flags, "--yolo")
			}
			if l.Resume != "" {
				l.Flags = append(l.Flags, "--resume", l.Resume)
			}
			return nil
		},
	})
}
