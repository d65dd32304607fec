package install

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// opencode reads MCP servers from opencode.json or opencode.jsonc in its
// config folder, loads every JS file in its plugins folder, and reads the
// shared skills. It has no shell hooks, so a small plugin asks desk for the
// session-start context, adds it to the system prompt, and reports session
// and tool events.
var opencodeTool = &tool{
	name:   "opencode",
	title:  "opencode",
	bins:   []string{"opencode"},
	skills: true,
	plan:   planOpencode,
}

func opencodeDir(c *installCtx) string { return filepath.Join(c.configHome(), "opencode") }

// opencodeConfig is the config file desk edits: opencode.jsonc when the
// user has one, else opencode.json.
func opencodeConfig(c *installCtx) string {
	jsonc := filepath.Join(opencodeDir(c), "opencode.jsonc")
	if _, ok, _ := readMaybe(jsonc); ok {
		return jsonc
	}
	return filepath.Join(opencodeDir(c), "opencode.json")
}

func planOpencode(c *installCtx) (*plan, error) {
	cfg := opencodeConfig(c)
	spec := jsonSpec{
		members: []jsonMember{{parent: []string{"mcp"}, key: "desk", value: obj{
			{"type", "local"},
			{"command", []string{c.env.Desk, "mcp"}},
			{"environment", c.mcpEnv("opencode")},
			{"enabled", true},
		}, ours: isDeskServer}},
		seed: obj{{"$schema", "https://opencode.ai/config.json"}},
	}
	what := "add the MCP server mcp.desk"
	if c.removing() {
		what = "remove the MCP server mcp.desk"
	}
	plugin := filepath.Join(opencodeDir(c), "plugins", "desk.js")
	p := &plan{steps: []*step{
		fileStep(cfg, what, true, jsonEditor(cfg, spec, c.rec, c.removing())),
		ownedFile(plugin, "the plugin that gives sessions desk's context and reports their events", opencodePlugin(c), pluginMarker, c.removing()),
	}}
	return p, nil
}

const pluginMarker = "written by `desk install`"

// opencodePlugin is the JS plugin. It runs the session-start hook once per
// session, at the first model request, and keeps the answer fixed for the
// session so the system prompt stays cache-friendly.
func opencodePlugin(c *installCtx) string {
	args := []string{}
	if !c.env.defaultData() {
		args = append(args, "--data", c.env.Data)
	}
	return OpencodePlugin(c.env.Desk, args)
}

// OpencodePlugin returns the plugin desk install writes for opencode, for
// the desk binary at desk, with args (such as --data DIR) added to each
// desk command it runs.
func OpencodePlugin(desk string, args []string) string {
	if args == nil {
		args = []string{}
	}
	deskJSON, _ := json.Marshal(desk)
	extra, _ := json.Marshal(args)
	return strings.NewReplacer("{DESK}", string(deskJSON), "{ARGS}", string(extra)).Replace(`// desk: ` + pluginMarker + `; ` + "`desk uninstall opencode`" + ` removes it. Edits here are overwritten.
import { spawn, spawnSync } from "node:child_process"

const DESK = {DESK}
const ARGS = {ARGS}
const REPORTED = /^(session\.(created|idle|error|deleted|status|compacted)|permission\.)/
const contextBySession = new Map()

// contextFor asks desk what this session should know; it never throws.
function contextFor(sessionID, directory) {
  const r = spawnSync(DESK, ["hook", "session-start", "--client", "opencode", ...ARGS], {
    input: JSON.stringify({ hook_event_name: "SessionStart", session_id: sessionID, cwd: directory, source: "startup" }),
    encoding: "utf8",
    timeout: 5000,
  })
  const out = r.status === 0 && typeof r.stdout === "string" ? r.stdout.trim() : ""
  if (!out.startsWith("{")) return out
  try {
    const j = JSON.parse(out)
    return j?.hookSpecificOutput?.additionalContext ?? j?.additionalContext ?? ""
  } catch {
    return ""
  }
}

// report hands one event to desk without waiting for it.
function report(payload) {
  try {
    const p = spawn(DESK, ["hook", "event", "--client", "opencode", ...ARGS], { stdio: ["pipe", "ignore", "ignore"] })
    p.on("error", () => {})
    p.stdin.on("error", () => {})
    p.stdin.end(JSON.stringify(payload))
  } catch {}
}

export const DeskPlugin = async ({ directory }) => ({
  event: async ({ event }) => {
    if (!event || !REPORTED.test(event.type)) return
    const props = event.properties ?? {}
    report({ hook_event_name: event.type, session_id: props.sessionID ?? props.info?.id ?? "", cwd: directory, event })
  },
  "tool.execute.before": async (input, output) => {
    report({ hook_event_name: "tool.execute.before", session_id: input?.sessionID ?? "", cwd: directory, tool_name: input?.tool, tool_input: output?.args })
  },
  "tool.execute.after": async (input, output) => {
    report({ hook_event_name: "tool.execute.after", session_id: input?.sessionID ?? "", cwd: directory, tool_name: input?.tool, title: output?.title })
  },
  "experimental.chat.system.transform": async (input, output) => {
    const id = input?.sessionID ?? ""
    if (!contextBySession.has(id)) contextBySession.set(id, contextFor(id, directory))
    const text = contextBySession.get(id)
    if (text && Array.isArray(output?.system)) output.system.push(text)
  },
})
`)
}
