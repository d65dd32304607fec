package web_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"desk"
	"desk/sqlite"
)

// The live tests need writes made by another process, as an agent's MCP
// server or the CLI would make them. The test binary runs itself as that
// process: TestWriterProcess does one write to the data folder named in
// its environment and exits.

const writerEnv = "DESK_WEB_TEST_WRITER"

// writeFromProcess runs one write in a separate process on the desk's data
// folder and returns when that process has committed it. op is "title ID
// TEXT", "comment ID AUTHOR TEXT" or "status ID STATUS AUTHOR".
func writeFromProcess(tb testing.TB, dataDir string, op ...string) time.Time {
	tb.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestWriterProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), writerEnv+"="+dataDir, writerEnv+"_OP="+strings.Join(op, "\x1f"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("writer process: %v\n%s", err, out)
	}
	// The process prints the moment it committed, so the caller can time
	// how long the write takes to reach the page.
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "committed "); ok {
			if t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(rest)); err == nil {
				return t
			}
		}
	}
	tb.Fatalf("writer process did not report its commit:\n%s", out)
	return time.Time{}
}

func TestWriterProcess(t *testing.T) {
	dir := os.Getenv(writerEnv)
	if dir == "" {
		t.Skip("runs only as the writer process of the live tests")
	}
	op := strings.Split(os.Getenv(writerEnv+"_OP"), "\x1f")
	ctx := context.Background()
	db, err := sqlite.Open(ctx, dir, sqlite.Options{NoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	switch op[0] {
	case "title":
		_, err = db.UpdateIssue(ctx, op[1], desk.IssueFields{Title: &op[2]}, "codex")
	case "comment":
		_, _, err = db.AddComment(ctx, op[1], desk.CommentInput{Author: op[2], Text: op[3]})
	case "status":
		_, err = db.SetStatus(ctx, op[1], op[2], op[3])
	default:
		err = fmt.Errorf("unknown writer op %q", op[0])
	}
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("committed %s\n", time.Now().Format(time.RFC3339Nano))
}
