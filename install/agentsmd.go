package install

import "strings"

// AgentsMD returns a section for a repository's AGENTS.md that tells any
// agent how this repo works with desk; desk is the command to run it.
func AgentsMD(desk string) string {
	return strings.ReplaceAll(`## desk

This repo is linked to a desk project (see `+"`.desk.json`"+`): the owner's issues,
checks, plans and the handoff live there, not in TODO files.

- At the start of a session, read the handoff and the new reports and failed
  checks: the desk MCP server (tools `+"`get_handoff`, `list_issues`"+`) or
  `+"`{desk} list --status reported,failed`"+`.
- Before changing code for an issue, set its plan; tick steps as commits land.
- When something is ready for the owner, file a check (status `+"`to_check`"+`) with
  a location command that takes them to it. Only the owner passes checks.
- Before you stop, update the handoff: where work stopped, next step, traps.
- To open the web desk: `+"`{desk} serve --open`"+`.
`, "{desk}", shellQuote(desk))
}
