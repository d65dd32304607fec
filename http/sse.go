package http

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"desk"
)

// keepAlive is how often an idle stream sends a comment, so that proxies
// and browsers keep the connection.
const keepAlive = 15 * time.Second

// subscriberBuffer is how many batches a stream may fall behind. A slower
// stream is closed rather than waited for: the client reconnects with
// Last-Event-ID and the feed replays what it missed, so nothing is lost and
// no writer ever waits for a reader.
const subscriberBuffer = 256

// hub fans feed batches out to the live streams.
type hub struct {
	mu   sync.Mutex
	seq  int64
	subs map[*subscriber]struct{}
}

type subscriber struct {
	project string // "" for every project
	ch      chan []*desk.Change
	dropped bool
}

func newHub() *hub { return &hub{subs: map[*subscriber]struct{}{}} }

func (h *hub) setSeq(seq int64) {
	h.mu.Lock()
	h.seq = seq
	h.mu.Unlock()
}

// publish hands a batch of feed rows to every stream; it never blocks.
func (h *hub) publish(changes []*desk.Change) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if n := len(changes); n > 0 && changes[n-1].Seq > h.seq {
		h.seq = changes[n-1].Seq
	}
	for s := range h.subs {
		select {
		case s.ch <- changes:
		default:
			s.dropped = true
			delete(h.subs, s)
			close(s.ch)
		}
	}
}

// subscribe registers a stream and returns the last sequence published.
func (h *hub) subscribe(project string) (*subscriber, int64) {
	s := &subscriber{project: project, ch: make(chan []*desk.Change, subscriberBuffer)}
	h.mu.Lock()
	h.subs[s] = struct{}{}
	seq := h.seq
	h.mu.Unlock()
	return s, seq
}

func (h *hub) unsubscribe(s *subscriber) {
	h.mu.Lock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.ch)
	}
	h.mu.Unlock()
}

// stream serves one Server-Sent Events connection: hello, then the feed
// rows of project (or of every project) as they are committed, replaying
// those after Last-Event-ID first.
func (s *Server) stream(w http.ResponseWriter, r *http.Request, project string) error {
	flusher, ok := w.(http.Flusher)
	if !ok {
		return desk.Errorf(desk.Internal, "streaming is not supported by this connection")
	}
	sub, seq := s.hub.subscribe(project)
	defer s.hub.unsubscribe(sub)

	after := seq
	if last := r.Header.Get("Last-Event-ID"); last != "" {
		if n, err := strconv.ParseInt(last, 10, 64); err == nil && n >= 0 && n < seq {
			after = n
		}
	}
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)

	var buf bytes.Buffer
	var helloProject any
	if project != "" {
		helloProject = project
	}
	hello, _ := json.Marshal(map[string]any{"type": "hello", "project": helloProject, "seq": seq})
	buf.WriteString("retry: 3000\nid: " + strconv.FormatInt(seq, 10) + "\nevent: hello\ndata: ")
	buf.Write(hello)
	buf.WriteString("\n\n")

	// Replay what the client missed while it was away, from the feed
	// itself, up to where the live rows take over.
	for after < seq {
		missed, err := s.store.Changes(r.Context(), desk.ChangeFilter{After: after, Project: project, Limit: 1000})
		if err != nil {
			return nil
		}
		var batch []*desk.Change
		for _, c := range missed {
			if c.Seq <= seq {
				batch = append(batch, c)
			}
		}
		writeEvents(&buf, visibleChanges(r, batch), project)
		if len(missed) < 1000 || len(batch) < len(missed) {
			break
		}
		after = missed[len(missed)-1].Seq
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return nil
	}
	flusher.Flush()

	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return nil
		case <-s.ctx.Done(): // the server is stopping
			return nil
		case <-tick.C:
			if _, err := w.Write([]byte(": ping\n\n")); err != nil {
				return nil
			}
			flusher.Flush()
		case batch, ok := <-sub.ch:
			if !ok {
				return nil // too slow: the client reconnects and replays
			}
			buf.Reset()
			var fresh []*desk.Change
			for _, c := range batch {
				if c.Seq > seq {
					fresh = append(fresh, c)
				}
			}
			writeEvents(&buf, visibleChanges(r, fresh), project)
			if buf.Len() == 0 {
				continue
			}
			if _, err := w.Write(buf.Bytes()); err != nil {
				return nil
			}
			flusher.Flush()
		}
	}
}

// writeEvents frames feed rows as events: runs of rows the live views show
// become "change" events, runs of other rows "refresh" events. Each event's
// id is its last row's sequence, so everything up to an id a client has
// seen was sent before it, and a replay from there misses nothing.
func writeEvents(buf *bytes.Buffer, changes []*desk.Change, project string) {
	var run []*desk.Change
	flush := func() {
		if len(run) == 0 {
			return
		}
		kind := "refresh"
		if run[0].IsLive() {
			kind = "change"
		}
		last := run[len(run)-1].Seq
		data, _ := json.Marshal(map[string]any{"type": kind, "changes": run, "seq": last})
		buf.WriteString("id: " + strconv.FormatInt(last, 10) + "\nevent: " + kind + "\ndata: ")
		buf.Write(data)
		buf.WriteString("\n\n")
		run = nil
	}
	for _, c := range changes {
		if project != "" && c.Project != project && c.Project != "" {
			continue
		}
		if len(run) > 0 && run[0].IsLive() != c.IsLive() {
			flush()
		}
		run = append(run, c)
	}
	flush()
}
