package load

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"sync"
	"testing"

	"desk"
	"desk/bench/benchdesk"
	"desk/bench/gen"
	deskhttp "desk/http"
	deskmcp "desk/mcp"
	"desk/sqlite"
)

// The benchmarks below reproduce each call of the load run inside one
// process, on the same generated desk, so that a slow call can be profiled
// with go test -cpuprofile:
//
//	go test ./bench/load -run '^$' -bench 'Calls/http/triage_200' -cpuprofile cpu.out
//	go tool pprof -top cpu.out
//
// DESK_BENCH_SHAPE picks the desk (pairdesk by default, or large).

func benchShape() gen.Shape {
	if s, ok := gen.Shapes[os.Getenv("DESK_BENCH_SHAPE")]; ok {
		return s
	}
	return gen.PairDesk
}

var (
	callsOnce sync.Once
	callsDesk *benchdesk.Desk
)

// sharedDesk is one copy of the generated desk for every benchmark of the
// process; the writes the benchmarks make are comments, which the reads
// do not depend on.
func sharedDesk(b *testing.B) *benchdesk.Desk {
	callsOnce.Do(func() { callsDesk = benchdesk.New(b, benchShape(), 1) })
	if callsDesk == nil {
		b.Fatal("no generated desk")
	}
	return callsDesk
}

func BenchmarkCalls(b *testing.B) {
	d := sharedDesk(b)
	ctx := context.Background()
	info, err := ReadDesk(ctx, d.Dir, d.Summary.Main)
	if err != nil {
		b.Fatal(err)
	}
	db, err := sqlite.Open(ctx, d.Dir, sqlite.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	srv := deskhttp.NewServer(db, deskhttp.Options{Addr: "127.0.0.1:0"})
	// A running server has listed the project before anyone asks for its
	// overview: its index holds the project from then on.
	if _, err := db.Issues(ctx, info.Project, desk.IssueFilter{Limit: 1}); err != nil {
		b.Fatal(err)
	}

	for _, ep := range Endpoints(info) {
		b.Run("http/"+ep.Name, func(b *testing.B) {
			for b.Loop() {
				req := httptest.NewRequest(http.MethodGet, ep.Path, nil)
				req.Host, req.RemoteAddr = "127.0.0.1:8765", "127.0.0.1:40000"
				rec := httptest.NewRecorder()
				srv.ServeHTTP(rec, req)
				if rec.Code != http.StatusOK {
					b.Fatalf("%s: %d %s", ep.Path, rec.Code, rec.Body.String())
				}
			}
		})
	}

	m := startInProcessMCP(b, d.Dir)
	defer m.close()
	var step int
	fixture := createFixtures(b, db, "perf-calls", "PC", 1)
	for _, name := range mixedTools {
		b.Run("mcp/"+name, func(b *testing.B) {
			for b.Loop() {
				tool, args := agentCall(name, 0, &step, info, fixture)
				if _, err := m.Call(tool, args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// inProcessMCP is desk's MCP server on pipes in this process, spoken to
// with the driver's own client code.
type inProcessMCP struct {
	*MCP
	cancel context.CancelFunc
	done   chan error
}

func startInProcessMCP(b *testing.B, dir string) *inProcessMCP {
	cr, cw := io.Pipe()
	sr, sw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- deskmcp.Serve(ctx, deskmcp.Options{DataDir: dir, Dir: dir, Getenv: func(string) string { return "" }}, cr, sw)
	}()
	m := &MCP{in: cw, out: newLineReader(sr)}
	if _, err := m.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "desk-bench", "version": "1"}}); err != nil {
		b.Fatal(err)
	}
	if err := m.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		b.Fatal(err)
	}
	return &inProcessMCP{MCP: m, cancel: cancel, done: done}
}

func (m *inProcessMCP) close() {
	m.in.Close()
	m.cancel()
	<-m.done
}

// BenchmarkMixedAgent is one agent's round of the mixed run (list, get,
// comment, progress, handoff) while the other nineteen agents write as
// they do there: each round of the measured agent, every other agent
// comments on its rich issue and moves its plan through its own store
// handle, as a separate process would. Profile it with -focus 'desk/mcp'
// to see what one MCP server spends, caches invalidated by others' writes
// included.
func BenchmarkMixedAgent(b *testing.B) {
	d := sharedDesk(b)
	ctx := context.Background()
	info, err := ReadDesk(ctx, d.Dir, d.Summary.Main)
	if err != nil {
		b.Fatal(err)
	}
	others, err := sqlite.Open(ctx, d.Dir, sqlite.Options{Readers: 2, CacheKiB: 2048})
	if err != nil {
		b.Fatal(err)
	}
	defer others.Close()
	fx := createFixtures(b, others, "perf-mixed", "PM", 20)
	m := startInProcessMCP(b, d.Dir)
	defer m.close()
	steps := make([]int, 20)
	round := 0
	for b.Loop() {
		for i := 1; i < 20; i++ {
			if _, _, err := others.AddComment(ctx, info.Rich[i%len(info.Rich)], desk.CommentInput{Author: "bench", Text: "Mixed benchmark comment"}); err != nil {
				b.Fatal(err)
			}
			_, args := agentCall("mcp_progress", i, &steps[i], info, fx)
			state := args["state"].(string)
			if _, err := others.Progress(ctx, fx.issues[i], args["step"].(int), &desk.StepPatch{State: &state}, args["text"].(string), "bench"); err != nil {
				b.Fatal(err)
			}
		}
		for j := range mixedTools {
			name := mixedTools[(round+j)%len(mixedTools)]
			tool, args := agentCall(name, 0, &steps[0], info, fx)
			if _, err := m.Call(tool, args); err != nil {
				b.Fatal(err)
			}
		}
		round++
	}
}

// createFixtures adds a fixture project with n planned issues, for the
// progress calls.
func createFixtures(b *testing.B, db *sqlite.DB, slug, prefix string, n int) *fixture {
	ctx := context.Background()
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: slug, Name: "Fixture " + prefix, Prefix: prefix}, "bench"); err != nil {
		b.Fatal(err)
	}
	fx := &fixture{project: slug}
	for i := 0; i < n; i++ {
		title := "Client " + strconv.Itoa(i+1)
		is, err := db.CreateIssue(ctx, slug, desk.IssueFields{Title: &title}, desk.CreateOptions{Author: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		steps := []desk.Step{{Text: "Reproduce it"}, {Text: "Fix it"}, {Text: "Verify it"}}
		if _, err := db.SetPlan(ctx, is.ID, steps, nil, "bench"); err != nil {
			b.Fatal(err)
		}
		fx.issues = append(fx.issues, is.ID)
	}
	return fx
}
