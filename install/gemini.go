package install

// Gemini CLI loads every extension folder in ~/.gemini/extensions at
// startup. desk's extension carries the MCP server and the hooks; the
// skills come from the shared ~/.agents/skills folder, which Gemini CLI
// reads as an alias of its own, so they are not bundled twice.
var geminiTool = &tool{
	name:   "gemini",
	title:  "Gemini CLI",
	bins:   []string{"gemini"},
	skills: true,
	plan:   planGemini,
}

func planGemini(c *installCtx) (*plan, error) {
	dir := c.home(".gemini", "extensions", "desk")
	files := map[string]string{
		// Gemini CLI counts hook timeouts in milliseconds.
		"hooks/hooks.json": jsonText(hooksDocument(c.hookSpecs("gemini"), 1000)),
	}
	files["gemini-extension.json"] = jsonText(obj{
		{"name", "desk"},
		{"version", "1.0.0-" + digest(files)},
		{"description", "desk: the issues, plans and handoff shared with the owner."},
		{"mcpServers", obj{{"desk", c.mcpServer("gemini")}}},
	})
	steps, err := ownedTree(c, dir, "desk's Gemini CLI extension", files)
	if err != nil {
		return nil, err
	}
	p := &plan{steps: steps, prune: []string{dir}}
	if !c.removing() {
		p.notes = append(p.notes, "Restart Gemini CLI; `gemini extensions list` then shows desk.")
	}
	return p, nil
}

// Qwen Code reads MCP servers and Claude-style hooks from
// ~/.qwen/settings.json, a JSON file that allows comments.
var qwenTool = &tool{
	name:  "qwen",
	title: "Qwen Code",
	bins:  []string{"qwen"},
	plan:  planQwen,
}

func planQwen(c *installCtx) (*plan, error) {
	path := c.home(".qwen", "settings.json")
	order, groups := groupedHooks(c.hookSpecs("qwen"), 1)
	spec := jsonSpec{
		members: []jsonMember{{parent: []string{"mcpServers"}, key: "desk", value: c.mcpServer("qwen"), ours: isDeskServer}},
		hooks:   &jsonHooks{parent: []string{"hooks"}, order: order, groups: groups},
	}
	what := "add the MCP server mcpServers.desk and desk's hooks"
	if c.removing() {
		what = "remove desk's MCP server and hooks"
	}
	return &plan{steps: []*step{fileStep(path, what, true, jsonEditor(path, spec, c.rec, c.removing()))}}, nil
}

// Antigravity's CLI (agy) loads native plugins from ~/.gemini/config/plugins:
// a folder with plugin.json, mcp_config.json, hooks.json and skills.
var antigravityTool = &tool{
	name:  "antigravity",
	title: "Antigravity",
	bins:  []string{"agy"},
	plan:  planAntigravity,
}

func planAntigravity(c *installCtx) (*plan, error) {
	dir := c.home(".gemini", "config", "plugins", "desk")
	var events obj
	var last string
	var entries []any
	flush := func() {
		if last != "" {
			events = append(events, kv{last, entries})
		}
	}
	for _, s := range c.hookSpecs("antigravity") {
		if s.event != last {
			flush()
			last, entries = s.event, nil
		}
		entries = append(entries, obj{{"command", s.command}, {"timeout", s.timeout}})
	}
	flush()
	files := map[string]string{
		"mcp_config.json": jsonText(obj{{"mcpServers", obj{{"desk", c.mcpServer("antigravity")}}}}),
		"hooks.json":      jsonText(events),
	}
	for _, s := range skills {
		files["skills/"+s.name+"/SKILL.md"] = c.skillText(s)
	}
	files["plugin.json"] = jsonText(obj{
		{"name", "desk"},
		{"version", "1.0.0-" + digest(files)},
		{"description", "desk: the issues, plans and handoff shared with the owner."},
	})
	steps, err := ownedTree(c, dir, "desk's Antigravity plugin", files)
	if err != nil {
		return nil, err
	}
	p := &plan{steps: steps, prune: []string{dir}}
	if !c.removing() {
		p.notes = append(p.notes, "Restart agy, then check `agy plugin list`, /mcp and /hooks. desk adds no permission grants.")
	}
	return p, nil
}
