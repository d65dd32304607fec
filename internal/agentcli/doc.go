// Package agentcli runs the real agent CLIs (Claude Code, Codex, opencode)
// in tests: it finds the copies that scripts/agent-clis.sh installed, builds
// a fully isolated home for each run that points the CLI at a mock model
// (see internal/mockmodel), and runs the CLI headless or in a PTY.
//
// When the CLIs are not installed, tests that need them are skipped with a
// loud message, or fail when the CI environment variable is set, so that a
// CI run can never pass without having driven the real clients.
//
// A headless Claude Code turn in which the model calls desk's create_issue
// tool, with a SessionStart hook installed (deskBin is the desk binary the
// test built; the hook command line is illustrative):
//
//	mock := mockmodel.New(t, mockmodel.CallThenDone(
//		mockmodel.CallTool("create_issue", map[string]any{"title": "from claude"})))
//	claude := agentcli.NewClaude(t, mock.URL())
//	claude.Env["DESK_DATA"] = dataDir
//	claude.AddMCPServer("desk", agentcli.MCPServer{Command: deskBin, Args: []string{"mcp"}})
//	claude.AddHook("SessionStart", agentcli.Hook{Command: deskBin + " hook claude session-start"})
//	res := claude.Prompt("file an issue").Must(t)
//	// res.Stdout ends with "MOCK_DONE: <tool output>"; mock.ModelRequests()
//	// holds every request, with r.View.ContextText() showing hook context.
//
// The same with Codex, whose MCP servers do not inherit the environment
// (hooks do), so the server entry carries what it needs:
//
//	codex := agentcli.NewCodex(t, mock.URL())
//	codex.Env["DESK_DATA"] = dataDir
//	codex.AddMCPServer("desk", agentcli.MCPServer{Command: deskBin, Args: []string{"mcp"},
//		Env: map[string]string{"DESK_DATA": dataDir}})
//	codex.AddHook("SessionStart", agentcli.Hook{Command: deskBin + " hook codex session-start"})
//	res := codex.Prompt("file an issue").Must(t)
//
// And with opencode, which has no shell hooks:
//
//	oc := agentcli.NewOpencode(t, mock.URL())
//	oc.AddMCPServer("desk", agentcli.MCPServer{Command: deskBin, Args: []string{"mcp"},
//		Env: map[string]string{"DESK_DATA": dataDir}})
//	res := oc.Prompt("file an issue").Must(t)
//
// An interactive session in a PTY:
//
//	term := claude.Interactive()
//	term.WaitFor("? for shortcuts", 30*time.Second)
//	term.Submit("file an issue", 10*time.Second)
//	term.WaitFor(mockmodel.Done, 30*time.Second)
//	term.Submit("/exit", 10*time.Second)
//
// Each of Claude, Codex and Opencode also has Command, for any other
// subcommand (`claude mcp list`, `codex mcp add ...`) run in the same
// sandbox, and Environ, for running desk's own installer against that
// sandbox's HOME.
package agentcli
