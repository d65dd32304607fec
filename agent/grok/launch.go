package grok

import (
	"regexp"

	"desk/agent"
)

// Grok has no per-tool approvals, so there is nothing to bypass; its hooks
// are the ones desk install wrote into its settings.
func init() {
	agent.RegisterLauncher(agent.Launcher{
		Kind: Name, Title: "Grok", Bin: "grok",
		Paths:   []string{"~/.bun/bin/grok", "~/.npm-global/bin/grok", "/usr/local/bin/grok"},
		Resume:  &agent.Resume{Form: "12 hexadecimal digits", Pattern: regexp.MustCompile(`^[0-9a-f]{12}$`)},
		Hooks:   agent.HooksInstalled,
		Capture: agent.CaptureHooks,
		Build: func(l *agent.Launch) error {
			if l.Resume != "" {
				l.Flags = append(l.Flags, "--session", l.Resume)
			}
			return nil
		},
	})
}
