package install

import (
	"runtime"
	"strings"

	"desk"
)

// The three hook commands desk provides. Context hooks print what the agent
// should know (the linked project's summary at session start, the owner's
// new activity before a prompt); the event hook reports lifecycle events to
// the Agents view and never blocks the agent.
const (
	hookSessionStart = "session-start"
	hookPrompt       = "user-prompt-submit"
	hookEvent        = "event"
)

// deskHookPattern recognises a hook command desk wrote, whatever path the
// desk binary had then: "<desk> hook <name> --client <client>".
var deskHookPattern = desk.LazyRegexp(`(^|[\s/\\"'])hook (session-start|user-prompt-submit|event) --client [a-z0-9-]+`)

func isDeskHookCommand(cmd string) bool { return deskHookPattern().MatchString(cmd) }

// hookCommand is the shell command line a hook runs. The data folder is
// named only when it is not the default, since hooks inherit the user's
// environment in every client desk supports.
func (c *installCtx) hookCommand(name, client string) string {
	cmd := shellQuote(c.env.Desk) + " hook " + name + " --client " + client
	if !c.env.defaultData() {
		cmd += " --data " + shellQuote(c.env.Data)
	}
	return cmd
}

// hookEvents lists, per client, the lifecycle events desk registers the
// event hook for, in the client's own names. The context hooks ride on the
// session-start and prompt events listed in contextEvents.
var hookEvents = map[string][]string{
	"claude": {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
		"PermissionRequest", "Notification", "Stop", "SubagentStart", "SubagentStop", "SessionEnd"},
	"codex":  {"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop", "SessionEnd"},
	"gemini": {"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "Notification", "SessionEnd"},
	"qwen":   {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Notification", "Stop", "SessionEnd"},
	"kimi": {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure",
		"Notification", "Stop", "SubagentStart", "SubagentStop", "SessionEnd"},
	"grok":        {"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PostToolUseFailure", "Stop", "SessionEnd"},
	"muse":        {"SessionStart", "UserPromptSubmit"},
	"antigravity": {"SessionStart", "PreInvocation", "PreToolUse", "PostToolUse"},
}

// contextEvents names, per client, the event that starts a session and the
// one that comes before each model turn.
var contextEvents = map[string][2]string{
	"claude":      {"SessionStart", "UserPromptSubmit"},
	"codex":       {"SessionStart", "UserPromptSubmit"},
	"gemini":      {"SessionStart", "BeforeAgent"},
	"qwen":        {"SessionStart", "UserPromptSubmit"},
	"kimi":        {"SessionStart", "UserPromptSubmit"},
	"grok":        {"SessionStart", "UserPromptSubmit"},
	"muse":        {"SessionStart", "UserPromptSubmit"},
	"antigravity": {"SessionStart", "PreInvocation"},
}

// hookSpec is one hook command desk registers for one event.
type hookSpec struct {
	event   string
	command string
	timeout int // seconds
}

// hookSpecs returns the hooks desk registers for client, grouped in event
// order: for each event the context hook (if any) first, then the event
// hook.
func (c *installCtx) hookSpecs(client string) []hookSpec {
	var specs []hookSpec
	ctxEv := contextEvents[client]
	for _, ev := range hookEvents[client] {
		switch ev {
		case ctxEv[0]:
			specs = append(specs, hookSpec{ev, c.hookCommand(hookSessionStart, client), 10})
		case ctxEv[1]:
			specs = append(specs, hookSpec{ev, c.hookCommand(hookPrompt, client), 10})
		}
		cmd := c.hookCommand(hookEvent, client)
		if eventInCommand[client] {
			cmd += " --event " + ev
		}
		specs = append(specs, hookSpec{ev, cmd, 5})
	}
	return specs
}

// eventInCommand names the clients whose hook payloads do not say which
// event fired, so that the event hook's command line must.
var eventInCommand = map[string]bool{"antigravity": true}

// groupedHooks turns specs into the Claude-style shape most clients share:
// {"Event": [{"hooks": [{"type": "command", "command": ..., "timeout": n}]}]}.
// Gemini counts timeouts in milliseconds; timeoutScale converts.
func groupedHooks(specs []hookSpec, timeoutScale int) (order []string, groups map[string]obj) {
	groups = map[string]obj{}
	var hooksOf = map[string][]any{}
	for _, s := range specs {
		if _, seen := hooksOf[s.event]; !seen {
			order = append(order, s.event)
		}
		hooksOf[s.event] = append(hooksOf[s.event], obj{
			{"type", "command"}, {"command", s.command}, {"timeout", s.timeout * timeoutScale},
		})
	}
	for _, ev := range order {
		groups[ev] = obj{{"hooks", hooksOf[ev]}}
	}
	return order, groups
}

// hooksDocument renders grouped hooks as a whole {"hooks": {...}} object.
func hooksDocument(specs []hookSpec, timeoutScale int) obj {
	order, groups := groupedHooks(specs, timeoutScale)
	var events obj
	for _, ev := range order {
		events = append(events, kv{ev, []any{groups[ev]}})
	}
	return obj{{"hooks", events}}
}

// shellQuote quotes s for the shell an agent CLI runs hook commands with.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("_-./:=@%+,", r))
	}) < 0 {
		return s
	}
	if runtime.GOOS == "windows" {
		return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellJoin(argv []string) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = shellQuote(a)
	}
	return strings.Join(q, " ")
}
