package opencode

import (
	"encoding/json"
	"regexp"

	"desk/agent"
)

// opencode takes a whole configuration for one process in
// OPENCODE_CONFIG_CONTENT, merged over the user's: desk sets its
// permission there, "allow" for a bypass and "ask" otherwise, so that the
// session asks whatever the user's default is. Its hooks are the plugin
// desk install wrote; opencode has no per-launch plugin flag.
func init() {
	agent.RegisterLauncher(agent.Launcher{
		Kind: Name, Title: "opencode", Bin: "opencode",
		Paths:     []string{"~/.opencode/bin/opencode", "~/.npm-global/bin/opencode", "/usr/local/bin/opencode"},
		Approvals: true,
		Resume:    &agent.Resume{Form: "an opencode session id (ses_…)", Pattern: regexp.MustCompile(`^ses_[A-Za-z0-9]{6,64}$`)},
		Hooks:     agent.HooksInstalled,
		Capture:   agent.CaptureOpencode,
		Build: func(l *agent.Launch) error {
			perm := "ask"
			if l.Bypass {
				perm = "allow"
			}
			b, err := json.Marshal(map[string]any{"permission": map[string]string{"*": perm}})
			if err != nil {
				return err
			}
			l.Env["OPENCODE_CONFIG_CONTENT"] = string(b)
			if l.Resume != "" {
				l.Flags = append(l.Flags, "--session", l.Resume)
			}
			return nil
		},
	})
}
