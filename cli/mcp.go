package cli

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"

	deskhttp "desk/http"
	"desk/internal/timerslack"
	"desk/mcp"
	"desk/member"
)

func init() {
	Register(&Command{Name: "mcp", Summary: "serve the desk to an agent as MCP tools over stdio", Run: runMCP})
}

// An MCP server's heap holds little (the issue index of the projects it
// lists, a few MB) while every call leaves garbage behind, and twenty
// agents run twenty servers: collecting at half the live heap keeps each
// one small for a fraction of a millisecond per call. The soft limit only
// bounds a call that reads something huge. (A tight limit near the live
// heap makes the collector run on every call: it doubled call times.)
const (
	mcpGCPercent   = 50
	mcpMemoryLimit = 64 << 20
)

// mcpTimerSlack lets the kernel defer an MCP server's timers by up to a
// millisecond: the runtime's monitor then wakes about once a millisecond
// while a call runs instead of every 20 µs (see package timerslack). The
// server's own timers (a write's wait for the lock, the channel's
// heartbeat) lose nothing at that grain.
const mcpTimerSlack = time.Millisecond

func runMCP(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("mcp", c)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return Usagef("mcp", "unexpected argument %q", fs.Arg(0))
	}
	// Before anything is read from the client: this may start the program
	// again in this process. A server that cannot coarsen its timers works
	// as well, at a little more CPU per call.
	if err := timerslack.Ensure(mcpTimerSlack); err != nil {
		fmt.Fprintln(c.Stderr, "desk mcp:", err)
	}
	if os.Getenv("GOMAXPROCS") == "" {
		// One agent's calls run one after another (see mcp.Serve), so a
		// second processor adds nothing but the cost of waking it: each
		// goroutine database/sql starts for a query woke an idle thread
		// that spun and slept again. With one, a call paced as agents make
		// them costs about 1 ms of CPU instead of 2.1-2.4 (get_handoff every
		// 50 ms), and twenty agents' servers leave the cores to the work.
		runtime.GOMAXPROCS(1)
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(mcpGCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(mcpMemoryLimit)
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	in, out := readCloser(c.Stdin), writeCloser(c.Stdout)
	logger := slog.New(slog.NewTextHandler(c.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	opts := mcp.Options{DataDir: c.DataDir, Dir: c.Dir, Getenv: c.Getenv, Logger: logger}
	team, err := member.Resolve(c.Getenv, c.DataDir, c.Dir)
	if err != nil {
		return err
	}
	if team != nil {
		return mcp.ServeRemote(ctx, opts, deskhttp.NewRemote(team.Server, team.Token, 0), in, out)
	}
	return mcp.Serve(ctx, opts, in, out)
}

func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func writeCloser(w io.Writer) io.WriteCloser {
	if wc, ok := w.(io.WriteCloser); ok {
		return wc
	}
	return nopWriteCloser{w}
}
