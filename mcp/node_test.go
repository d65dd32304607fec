package mcp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"desk/internal/agentcli"
)

// nodeSDK returns the folder where scripts/agent-clis.sh installed the
// Node MCP SDK, beside the agent CLIs. Like them, a missing SDK fails the
// test, with the script that installs it.
func nodeSDK(t *testing.T) string {
	t.Helper()
	dir, err := agentcli.InstallDir()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		t.Fatal(agentcli.Missing("the Node MCP SDK", fmt.Errorf("it is not installed in %s", dir)))
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal(agentcli.Missing("node", err))
	}
	return dir
}

func TestNodeSDKClientWorksWithDeskMCP(t *testing.T) {
	sdkDir := nodeSDK(t)
	f := newFixture(t)
	cmd := exec.Command("node", filepath.Join("testdata", "node-client.mjs"), sdkDir, deskBin, f.data, f.repo)
	cmd.Env = environ()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\n%s", err, stderr.String())
	}
	var out struct {
		Server       struct{ Name, Version string }
		Capabilities struct {
			Experimental map[string]any
			Tools        map[string]any
		}
		Instructions string
		Tools        []struct {
			Name     string
			Required []string
		}
		Created, Passed, Progress, Unknown struct {
			IsError bool
			Text    string
		}
		List struct {
			Total  int
			Issues []struct{ ID, Status string }
		}
	}
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatalf("node client printed %s: %v", b, err)
	}
	if out.Server.Name != "desk" || out.Capabilities.Tools == nil || out.Capabilities.Experimental["claude/channel"] == nil || out.Instructions == "" {
		t.Errorf("initialize: server %+v, capabilities %+v", out.Server, out.Capabilities)
	}
	if len(out.Tools) != len(allTools) {
		t.Errorf("listed %d tools, want %d", len(out.Tools), len(allTools))
	}
	for _, tl := range out.Tools {
		if tl.Name == "comment" && strings.Join(tl.Required, ",") != "id,text" {
			t.Errorf("comment requires %v", tl.Required)
		}
	}
	if out.Created.IsError || !strings.Contains(out.Created.Text, `"id":"MG-1"`) || !strings.Contains(out.Created.Text, `"status":"to_check"`) {
		t.Errorf("create_issue: %+v", out.Created)
	}
	if !out.Passed.IsError || !strings.Contains(out.Passed.Text, "only the owner") {
		t.Errorf("set_status passed: %+v", out.Passed)
	}
	if out.Progress.IsError || out.Progress.Text != "MG-1: comment 1; now to_check" {
		t.Errorf("progress: %+v", out.Progress)
	}
	if !out.Unknown.IsError || !strings.Contains(out.Unknown.Text, "no tool") {
		t.Errorf("unknown tool: %+v", out.Unknown)
	}
	if out.List.Total != 1 || out.List.Issues[0].ID != "MG-1" {
		t.Errorf("list_issues: %+v", out.List)
	}
	if d := f.issue("MG-1"); d.Activity[0].Actor != "node-interop" || len(d.Comments) != 1 {
		t.Errorf("MG-1 filed by %q with %d comments", d.Activity[0].Actor, len(d.Comments))
	}
}
