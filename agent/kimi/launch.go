package kimi

import "desk/agent"

// Kimi Code reads hooks only from its config file, so a launch relies on
// the blocks desk install appended there. Its session ids are opaque
// tokens (session_…).
func init() {
	agent.RegisterLauncher(agent.Launcher{
		Kind: Name, Title: "Kimi Code", Bin: "kimi",
		Paths:     []string{"~/.local/bin/kimi", "~/.npm-global/bin/kimi", "/usr/local/bin/kimi"},
		Approvals: true,
		Resume:    &agent.Resume{Form: "a Kimi session id (letters, digits, _ . -)", Pattern: agent.TokenPattern, MaxLen: agent.TokenMaxLen},
		Hooks:     agent.HooksInstalled,
		Capture:   agent.CaptureHooks,
		Build: func(l *agent.Launch) error {
			if l.Bypass {
				l.Flags = append(l.Flags, "--yolo")
			}
			if l.Resume != "" {
				l.Flags = append(l.Flags, "--session", l.Resume)
			}
			return nil
		},
	})
}
