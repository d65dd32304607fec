package agent

import (
	"slices"
	"time"
)

// RecentEvents is how many events a session keeps for its timeline.
const RecentEvents = 50

// ring keeps a session's latest events in a fixed array, so that a busy
// session costs no allocation per event once its ring is full.
type ring struct {
	buf  []Event
	next int // where the next event goes once buf is full
}

func (r *ring) push(e Event) {
	e.Raw = nil // histories are for people; the store keeps raw payloads
	if len(r.buf) < RecentEvents {
		r.buf = append(r.buf, e)
		return
	}
	r.buf[r.next] = e
	r.next = (r.next + 1) % RecentEvents
}

// list returns the events oldest first by time; arrival order breaks ties,
// so a late event lands where it happened.
func (r *ring) list() []Event {
	out := make([]Event, 0, len(r.buf))
	out = append(out, r.buf[r.next:]...)
	out = append(out, r.buf[:r.next]...)
	slices.SortStableFunc(out, func(a, b Event) int { return a.Time.Compare(b.Time) })
	return out
}

// latest returns the time of the newest event kept.
func (r *ring) latest() time.Time {
	var t time.Time
	for i := range r.buf {
		if r.buf[i].Time.After(t) {
			t = r.buf[i].Time
		}
	}
	return t
}
