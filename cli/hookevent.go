package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"desk/agent"
	"desk/agent/intake"
	"desk/member"
	"desk/sqlite"
)

func init() {
	RegisterHook("event", runHookEvent)
}

// hookEventCap bounds a lifecycle hook from start to exit, whatever the
// server or the disk do: the agent waits for it on every tool call.
const hookEventCap = 2 * time.Second

// runHookEvent is `desk hook event --client C [--event NAME]`: it reads the
// client's payload on stdin and hands it to the running desk, or to the
// spool when none runs. It prints nothing (a client may read a hook's
// output as instructions) and always exits 0; with DESK_HOOK_DEBUG set it
// says on stderr what became of the report.
func runHookEvent(ctx context.Context, c *Context, args []string) error {
	received := time.Now()
	client, event := hookFlag(args, "client"), hookFlag(args, "event")
	debug := c.Getenv("DESK_HOOK_DEBUG") != ""
	say := func(format string, a ...any) {
		if debug && c.Stderr != nil {
			fmt.Fprintf(c.Stderr, "desk hook event: "+format+"\n", a...)
		}
	}
	if client == "" {
		say("no --client: nothing to report")
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, hookEventCap)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		payload, truncated, err := readHookPayload(ctx, c.Stdin)
		if err != nil {
			say("%v", err)
			return
		}
		r := &intake.Report{Client: client, Event: event, Payload: payload, Received: received, Truncated: truncated}
		for _, k := range intake.EnvKeys {
			if v := c.Getenv(k); v != "" {
				if r.Env == nil {
					r.Env = map[string]string{}
				}
				r.Env[k] = v
			}
		}
		if r.Unattributable() {
			say("a managed session's hook with no %s: nothing reported", agent.EnvGeneration)
			return
		}
		deliver := func() (intake.Outcome, error) { return intake.Deliver(ctx, c.DataDir, r) }
		if t, err := member.Resolve(c.Getenv, c.DataDir, c.Dir); err != nil {
			say("the team server: %v", err)
			return
		} else if t != nil {
			deliver = func() (intake.Outcome, error) { return intake.DeliverTo(ctx, t.Server, t.Token, r) }
		}
		out, err := deliver()
		if err != nil {
			say("%s: %v", out, err)
		} else {
			say("%s", out)
		}
	}()
	select {
	case <-done:
	case <-ctx.Done():
		say("gave up after %s", hookEventCap)
	}
	return nil
}

// readHookPayload reads stdin up to intake.MaxPayload. Clients write the
// payload at once and close stdin; a hook run by hand from a terminal gives
// up when ctx ends. A longer payload comes back cut, with its size so far.
func readHookPayload(ctx context.Context, r io.Reader) ([]byte, int64, error) {
	if r == nil {
		return nil, 0, fmt.Errorf("no stdin")
	}
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, intake.MaxPayload+1))
		ch <- result{b, err}
	}()
	select {
	case res := <-ch:
		if res.err != nil {
			return nil, 0, fmt.Errorf("read the payload: %w", res.err)
		}
		if len(res.b) > intake.MaxPayload {
			return res.b[:intake.MaxPayload], int64(len(res.b)), nil
		}
		return res.b, 0, nil
	case <-ctx.Done():
		return nil, 0, fmt.Errorf("no payload on stdin")
	}
}

// hookFlag reads --name VALUE or --name=VALUE leniently: a hook must run
// whatever else its command line holds.
func hookFlag(args []string, name string) string {
	v := ""
	for i := 0; i < len(args); i++ {
		if !strings.HasPrefix(args[i], "-") {
			continue
		}
		a := strings.TrimPrefix(strings.TrimPrefix(args[i], "-"), "-")
		switch {
		case a == name && i+1 < len(args):
			v = args[i+1]
			i++
		case strings.HasPrefix(a, name+"="):
			v = a[len(name)+1:]
		}
	}
	return v
}

// hookLastSeen tells desk doctor when each client's hooks last reached
// this desk: the latest hook event the store keeps, or a report still
// waiting in the spool. It opens no desk where there is none.
func hookLastSeen(ctx context.Context, dataDir string) func(client string) (time.Time, bool) {
	seen := intake.LastSpooled(dataDir)
	if db, err := sqlite.OpenRead(ctx, dataDir, 0); err == nil {
		stored, err := db.AgentLastSeen(ctx)
		db.Close()
		if err == nil {
			for c, t := range stored {
				if t.After(seen[c]) {
					seen[c] = t
				}
			}
		}
	}
	return func(client string) (time.Time, bool) {
		t, ok := seen[client]
		return t, ok
	}
}
