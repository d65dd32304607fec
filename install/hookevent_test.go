package install

import (
	"strings"
	"testing"
)

// Antigravity's payloads name no event, so its event hooks carry the name
// on the command line; the others read it from the payload.
func TestEventHooksNameTheEventWhereThePayloadDoesNot(t *testing.T) {
	c := &installCtx{env: &Env{Desk: "/opt/desk", Home: "/home/me", Data: "/home/me/.desk"}}
	for _, s := range c.hookSpecs("antigravity") {
		if strings.Contains(s.command, " hook event ") && !strings.HasSuffix(s.command, "hook event --client antigravity --event "+s.event) {
			t.Errorf("%s: %q", s.event, s.command)
		}
	}
	for _, s := range c.hookSpecs("claude") {
		if strings.Contains(s.command, "--event") {
			t.Errorf("claude %s: %q", s.event, s.command)
		}
	}
	if !isDeskHookCommand("/opt/desk hook event --client antigravity --event PreToolUse") {
		t.Error("desk no longer recognises its own antigravity hook")
	}
}
