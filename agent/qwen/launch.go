package qwen

import "desk/agent"

// Qwen Code reads hooks only from its settings file, so a launch relies on
// the hooks desk install merged there. --yolo approves every tool.
func init() {
	agent.RegisterLauncher(agent.Launcher{
		Kind: Name, Title: "Qwen Code", Bin: "qwen",
		Paths:     []string{"~/.npm-global/bin/qwen", "~/.local/bin/qwen", "/usr/local/bin/qwen"},
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
