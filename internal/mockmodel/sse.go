package mockmodel

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// sse writes a server-sent event stream, flushing after every event so
// clients see deltas as they would from a real model.
type sse struct {
	w http.ResponseWriter
	f http.Flusher
}

func newSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	f, _ := w.(http.Flusher)
	return &sse{w: w, f: f}
}

// event writes one "event: name" / "data: json" pair.
func (s *sse) event(name string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		// Only the mock's own maps reach here; they always encode.
		panic(fmt.Sprintf("mockmodel: encode %s event: %v", name, err))
	}
	fmt.Fprintf(s.w, "event: %s\ndata: %s\n\n", name, b)
	if s.f != nil {
		s.f.Flush()
	}
}

// chunks splits s into pieces of at most n runes, so that streamed text and
// JSON arrive in several deltas, as they do from a real model.
func chunks(s string, n int) []string {
	var out []string
	r := []rune(s)
	for len(r) > 0 {
		k := min(n, len(r))
		out = append(out, string(r[:k]))
		r = r[k:]
	}
	return out
}
