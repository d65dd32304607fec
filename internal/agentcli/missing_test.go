package agentcli_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// With no agent CLIs installed, a real-client test fails, and says which
// script installs them; it never passes by skipping. The test runs one of
// this package's own tests again, in a child process, on an empty install
// folder.
func TestMissingCLIsFailTheirTestsNamingTheInstallScript(t *testing.T) {
	for _, test := range []string{"TestClaudeSessionStartHookContextReachesModel", "TestCodexCallsMCPToolInNamespace", "TestOpencodeCallsMCPToolWithServerPrefix"} {
		cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v", "-test.count=1")
		cmd.Env = append(os.Environ(), "DESK_AGENT_CLIS="+t.TempDir())
		out, err := cmd.CombinedOutput()
		var exit *exec.ExitError
		if !errors.As(err, &exit) {
			t.Fatalf("%s without the CLIs: want a failing exit, got %v\n%s", test, err, out)
		}
		if s := string(out); !strings.Contains(s, "--- FAIL: "+test) || strings.Contains(s, "--- SKIP") || !strings.Contains(s, "scripts/agent-clis.sh") {
			t.Errorf("%s without the CLIs:\n%s", test, s)
		}
	}
}
