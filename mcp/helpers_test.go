package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"desk"
	"desk/internal/deskbin"
	"desk/link"
	"desk/sqlite"
)

// deskBin is the desk binary built for this test run: the MCP server runs
// as the real process agents start.
var deskBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "desk-mcp-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	deskBin, err = buildDesk(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// buildDesk builds desk into dir, or names the binary DESK_TEST_BIN gives:
// a benchmark can then compare two builds, run alternately.
func buildDesk(dir string) (string, error) {
	if bin := os.Getenv("DESK_TEST_BIN"); bin != "" {
		return bin, nil
	}
	bin := filepath.Join(dir, "desk")
	return bin, deskbin.Build(bin)
}

// fixture is a desk in a temp folder with two projects, mygame (MG) and
// other (OT), and a repo folder linked to mygame.
type fixture struct {
	t    testing.TB
	data string
	repo string
	db   *sqlite.DB
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	root := t.TempDir()
	f := &fixture{t: t, data: filepath.Join(root, "data"), repo: filepath.Join(root, "repo")}
	if err := os.MkdirAll(f.repo, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(context.Background(), f.data, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	f.db = db
	for _, p := range []desk.NewProject{{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, {Slug: "other", Name: "Other", Prefix: "OT"}} {
		if _, err := db.CreateProject(context.Background(), p, "owner"); err != nil {
			t.Fatal(err)
		}
	}
	if err := link.Write(f.data, f.repo, "mygame"); err != nil {
		t.Fatal(err)
	}
	return f
}

// environ is a clean environment for the server: nothing of the test
// runner's own (it may itself run inside an agent session) leaks in.
func environ(extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "LANG=C.UTF-8"}
	return append(env, extra...)
}

// client starts `desk mcp` on the fixture's data folder in its repo, as
// the client clientName, and connects the official SDK's client to it.
func (f *fixture) client(clientName string, env ...string) *sdk.ClientSession {
	f.t.Helper()
	return f.clientIn(f.repo, clientName, nil, env...)
}

func (f *fixture) clientIn(dir, clientName string, tap func(method string, params json.RawMessage), env ...string) *sdk.ClientSession {
	f.t.Helper()
	cmd := exec.Command(deskBin, "--data", f.data, "mcp")
	cmd.Dir = dir
	cmd.Env = environ(env...)
	cmd.Stderr = &testWriter{t: f.t}
	var tr sdk.Transport = &sdk.CommandTransport{Command: cmd}
	if tap != nil {
		tr = &tapTransport{inner: tr, tap: tap}
	}
	c := sdk.NewClient(&sdk.Implementation{Name: clientName, Version: "1.0"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := c.Connect(ctx, tr, nil)
	if err != nil {
		f.t.Fatalf("connect to desk mcp: %v", err)
	}
	f.t.Cleanup(func() { cs.Close() })
	return cs
}

// testWriter sends a subprocess's stderr to the test log.
type testWriter struct{ t testing.TB }

func (w *testWriter) Write(p []byte) (int, error) {
	w.t.Logf("desk mcp: %s", strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// call runs a tool and returns its text and whether it was an error result.
func call(t testing.TB, cs *sdk.ClientSession, name string, args any) (string, bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error: %v", name, err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("%s: want one content block, got %d", name, len(res.Content))
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("%s: content is %T, want text", name, res.Content[0])
	}
	return tc.Text, res.IsError
}

// ok runs a tool that must succeed and decodes its JSON answer into out.
func ok(t testing.TB, cs *sdk.ClientSession, name string, args any, out any) string {
	t.Helper()
	text, isErr := call(t, cs, name, args)
	if isErr {
		t.Fatalf("%s(%v) refused: %s", name, args, text)
	}
	if out != nil {
		if err := json.Unmarshal([]byte(text), out); err != nil {
			t.Fatalf("%s: answer is not JSON: %v\n%s", name, err, text)
		}
	}
	return text
}

// refused runs a tool that must be refused and returns the refusal.
func refused(t testing.TB, cs *sdk.ClientSession, name string, args any, want ...string) string {
	t.Helper()
	text, isErr := call(t, cs, name, args)
	if !isErr {
		t.Fatalf("%s(%v) succeeded, want a refusal: %s", name, args, text)
	}
	for _, w := range want {
		if !strings.Contains(text, w) {
			t.Errorf("%s refusal %q does not say %q", name, text, w)
		}
	}
	return text
}

// issue reads an issue straight from the store, as the owner's tools would.
func (f *fixture) issue(id string) *desk.IssueDetail {
	f.t.Helper()
	d, err := f.db.Issue(context.Background(), id)
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// tapTransport hands the notifications a client SDK does not know (the
// channel's) to tap and keeps them from the SDK.
type tapTransport struct {
	inner sdk.Transport
	tap   func(method string, params json.RawMessage)
}

func (t *tapTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &tapConn{Connection: c, tap: t.tap}, nil
}

type tapConn struct {
	sdk.Connection
	tap func(method string, params json.RawMessage)
}

func (c *tapConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if err != nil {
			return nil, err
		}
		if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() && strings.HasPrefix(req.Method, "notifications/claude/") {
			c.tap(req.Method, req.Params)
			continue
		}
		return msg, nil
	}
}
