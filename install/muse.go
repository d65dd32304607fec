package install

import (
	"errors"
	"path/filepath"
)

// Muse Code reads MCP servers and session and prompt hooks from
// $XDG_CONFIG_HOME/muse/settings.json and skills from the shared folder.
// Its TUI can start MCP servers without the home variables, so the entry
// pins the data folder; the server is optional so that Muse starts even
// when desk cannot.
var museTool = &tool{
	name:   "muse",
	title:  "Muse Code",
	bins:   []string{"muse"},
	skills: true,
	plan:   planMuse,
}

func planMuse(c *installCtx) (*plan, error) {
	path := filepath.Join(c.configHome(), "muse", "settings.json")
	servers := "mcp_servers"
	if b, ok, err := readMaybe(path); err != nil {
		return nil, err
	} else if ok {
		if root, err := parseJSONC(b); err == nil && root.kind == '{' {
			snake, camel := root.member("mcp_servers") != nil, root.member("mcpServers") != nil
			if snake && camel && !c.removing() {
				return nil, errors.New(c.env.tilde(path) + ": it has both mcp_servers and mcpServers; keep one of them, then run desk again")
			}
			if camel && !snake {
				servers = "mcpServers"
			}
		}
	}
	entry := append(c.mcpServer("muse"), kv{"framing", "auto"}, kv{"required", false})
	order, groups := groupedHooks(c.hookSpecs("muse"), 1)
	spec := jsonSpec{
		members: []jsonMember{{parent: []string{servers}, key: "desk", value: entry, ours: isDeskServer}},
		hooks:   &jsonHooks{parent: []string{"hooks"}, order: order, groups: groups},
		seed:    obj{{"schema_version", 1}},
	}
	what := "add the MCP server " + servers + ".desk and desk's session and prompt hooks"
	if c.removing() {
		what = "remove desk's MCP server and hooks"
	}
	p := &plan{steps: []*step{fileStep(path, what, true, jsonEditor(path, spec, c.rec, c.removing()))}}
	if !c.removing() {
		p.notes = append(p.notes, "Restart Muse, then check /mcp and `muse skills list`.")
	}
	return p, nil
}
