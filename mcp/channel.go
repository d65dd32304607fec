package mcp

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"time"

	"desk"
	"desk/notify"
)

// ChannelMethod is the notification Claude Code turns into a message in
// the session: <channel source="desk" issue=... event=... project=...>.
const ChannelMethod = "notifications/claude/channel"

// channelGrace is how long after the handshake the channel holds what it
// has to tell. Claude Code listens for channel messages only once it has
// looked at the server's tools, a few hundred milliseconds after the
// handshake, and drops what comes earlier; what happens in the meantime is
// told when the grace ends.
const channelGrace = 2 * time.Second

// channelState is the live channel of one server: whether the client
// loaded it, and the goroutine that follows the desk while it runs.
type channelState struct {
	on        bool // the client loaded desk as a channel
	clientPID int  // the client process, which names the heartbeat file

	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

func (c *channelState) detect(getenv func(string) string) {
	c.on, c.clientPID = notify.DetectChannel(getenv)
}

// startChannel starts following the linked project once the client has
// finished initializing, if the client loaded desk as a channel and this
// session hears the owner at all (a delegated job never does).
func (s *server) startChannel() {
	c := &s.channel
	if !c.on || s.delegated {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done != nil {
		return // following already: every message of the session lands here
	}
	f, ok := s.linked()
	if !ok {
		s.opts.Logger.Info("channel: this folder is linked to no project; nothing to follow")
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.cancel, c.done = cancel, make(chan struct{})
	go func() {
		defer close(c.done)
		s.followOwner(ctx, f.Project)
	}()
}

// stopChannel stops the channel and waits until its heartbeat is gone.
func (s *server) stopChannel() {
	c := &s.channel
	c.mu.Lock()
	cancel, done := c.cancel, c.done
	c.mu.Unlock()
	if cancel == nil {
		return
	}
	cancel()
	<-done
}

// followOwner pushes every owner event of project to the client as it is
// committed, by this process or any other (sqlite.DB.Watch follows the
// database file), and keeps the heartbeat that silences this session's
// prompt hook.
func (s *server) followOwner(ctx context.Context, project string) {
	log := s.opts.Logger
	cursor, err := s.db.LastSeq(ctx)
	if err != nil {
		log.Error("channel: read the feed", "err", err)
		return
	}
	hb := notify.Heartbeat{Project: project, Session: s.opts.Getenv("CLAUDE_CODE_SESSION_ID"), ClientPID: s.channel.clientPID, ServerPID: os.Getpid()}
	beat := func() {
		hb.At = desk.FormatTime(s.opts.Now())
		if err := notify.WriteHeartbeat(s.opts.DataDir, hb); err != nil {
			log.Error("channel: heartbeat", "err", err)
		}
	}
	notify.PruneHeartbeats(s.opts.DataDir, s.opts.Now())
	beat()
	defer notify.RemoveHeartbeat(s.opts.DataDir, hb.ClientPID)

	wake := make(chan struct{}, 1)
	go func() {
		err := s.db.Watch(ctx, cursor, func(changes []*desk.Change) {
			for _, c := range changes {
				if c.Project == project && (c.Type == desk.ChangeComment || c.Type == desk.ChangeActivity) {
					select {
					case wake <- struct{}{}:
					default:
					}
					return
				}
			}
		})
		if err != nil && ctx.Err() == nil {
			log.Error("channel: watch", "err", err)
		}
	}()
	tick := time.NewTicker(notify.HeartbeatEvery)
	defer tick.Stop()
	grace := time.NewTimer(channelGrace)
	defer grace.Stop()
	ready := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			beat()
		case <-grace.C:
			ready = true
			select {
			case wake <- struct{}{}:
			default:
			}
		case <-wake:
			if !ready {
				continue // told when the grace ends: the cursor has not moved
			}
			next, err := s.pushOwnerEvents(ctx, project, cursor)
			if err != nil {
				if ctx.Err() == nil {
					log.Error("channel: push", "err", err)
				}
				continue
			}
			cursor = next
		}
	}
}

// pushOwnerEvents sends the owner events after cursor, oldest first, and
// returns the new cursor. Nothing is sent while the project has a lead
// client other than this one.
func (s *server) pushOwnerEvents(ctx context.Context, project string, cursor int64) (int64, error) {
	ev, err := s.db.OwnerEvents(ctx, project, cursor, 200)
	if err != nil {
		return cursor, err
	}
	if !notify.NewAudience(s.clientName(), false, ev.Project).HearsOwner() {
		return ev.Last, nil
	}
	now := s.opts.Now()
	for i := len(ev.Events) - 1; i >= 0; i-- {
		msg := notify.Channel(ev.Events[i], now)
		if err := s.notify(ChannelMethod, msg); err != nil {
			return cursor, err
		}
	}
	return ev.Last, nil
}

// notify writes a notification to the client, between the SDK's messages.
func (s *server) notify(method string, params any) error {
	b, err := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
	if err != nil {
		return err
	}
	_, err = s.out.Write(append(b, '\n'))
	return err
}
