package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"hash/maphash"
	"io"
	"net/http"
	"strconv"
	"strings"

	"desk"
)

// statusOf maps desk's error codes to HTTP statuses: one table for every
// route.
var statusOf = map[string]int{
	desk.Invalid:   http.StatusBadRequest,
	desk.NotFound:  http.StatusNotFound,
	desk.Conflict:  http.StatusConflict,
	desk.Forbidden: http.StatusForbidden,
	desk.Internal:  http.StatusInternalServerError,
}

// httpError is an error with its own status, for the few answers that
// desk's codes do not name (405).
type httpError struct {
	status int
	msg    string
}

func (e *httpError) Error() string { return e.msg }

// writeError answers err as {"error": "..."}; internal errors are logged
// once here and answered without their detail.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	msg := desk.ErrorMessage(err)
	var he *httpError
	switch {
	case errors.As(err, &he):
		status, msg = he.status, he.msg
	default:
		status = statusOf[desk.ErrorCode(err)]
	}
	if status == http.StatusInternalServerError {
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		msg = "internal error: " + msg
	}
	out := map[string]string{"error": msg}
	if rule := desk.ErrorRule(err); rule != "" {
		out["rule"] = rule // the stable name of the rule that refused
	}
	body, _ := json.Marshal(out)
	h := w.Header()
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Length", strconv.Itoa(len(body)+1))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		w.Write(append(body, '\n'))
	}
}

// writeJSON answers v. A successful read carries an ETag of its bytes and
// must be revalidated (no-cache), so a client holding the same bytes gets
// 304 and one holding old bytes never uses them: the tag is computed from
// what is committed now, whoever committed it. Writes are never cached.
func writeJSON(w http.ResponseWriter, r *http.Request, status int, v any) error {
	if a, ok := v.(jsonAppender); ok {
		// A list or a detail is written into a buffer kept for the next
		// one: a fresh buffer of hundreds of kB per request was zeroed,
		// and set the collector going, for every triage the page loads.
		hint := 0
		if h, ok := v.(interface{ SizeHint() int }); ok {
			hint = h.SizeHint()
		}
		bp := takeBody(hint)
		defer keepBody(bp)
		body, err := a.AppendJSON((*bp)[:0])
		if err != nil {
			return err
		}
		*bp = append(body, '\n')
		return writeBytes(w, r, status, "application/json; charset=utf-8", *bp)
	}
	if m, ok := v.(json.Marshaler); ok {
		// A value that marshals itself (an issue list) already gives
		// compact JSON; the encoder would only scan those bytes again to
		// compact them, which costs more than marshalling them did.
		body, err := m.MarshalJSON()
		if err != nil {
			return err
		}
		return writeBytes(w, r, status, "application/json; charset=utf-8", append(body, '\n'))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	return writeBytes(w, r, status, "application/json; charset=utf-8", buf.Bytes())
}

// jsonAppender is a value that appends its own compact JSON (an issue
// list, a detail), as json.Marshaler but into a buffer the caller gives.
type jsonAppender interface {
	AppendJSON(b []byte) ([]byte, error)
}

// bodyBuffers keeps buffers answers are written into, two of each size:
// for an agent's list of 50 and for the owner's backlog of thousands.
// Channels, not a sync.Pool: a pool hands a buffer put back on one
// processor to the next request on that processor only, and a backlog of
// the large desk (5 MB) got a buffer sized for a short list about as
// often as not, and made one anew. maxKeptBody bounds what is kept, so
// that no larger answer pins its size.
var bodyBuffers = [2]chan *[]byte{make(chan *[]byte, 2), make(chan *[]byte, 2)}

const (
	smallBody   = 256 << 10 // the largest a buffer of the first kind holds
	maxKeptBody = 8 << 20
)

// takeBody returns a kept buffer for an answer of about hint bytes, or a
// new one. An answer of unknown size (0: an issue's detail, hundreds of kB
// for a busy one) takes a long answer's buffer.
func takeBody(hint int) *[]byte {
	if hint == 0 {
		hint = maxKeptBody
	}
	select {
	case b := <-bodyBuffers[bodyKind(hint)]:
		return b
	default:
		return new([]byte)
	}
}

// keepBody keeps b for a later answer of its size, unless it is too large
// or two of its kind are kept already.
func keepBody(b *[]byte) {
	if cap(*b) > maxKeptBody {
		return
	}
	select {
	case bodyBuffers[bodyKind(cap(*b))] <- b:
	default:
	}
}

// bodyKind is which of bodyBuffers keeps buffers for size bytes.
func bodyKind(size int) int {
	if size > smallBody {
		return 1
	}
	return 0
}

func writeBytes(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", contentType)
	read := r.Method == http.MethodGet || r.Method == http.MethodHead
	if read && status == http.StatusOK {
		etag := bodyTag(body)
		h.Set("ETag", etag)
		h.Set("Cache-Control", "private, no-cache")
		if etagMatches(r.Header.Get("If-None-Match"), etag) {
			w.WriteHeader(http.StatusNotModified)
			return nil
		}
	} else {
		h.Set("Cache-Control", "no-store")
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, err := w.Write(body)
		return err
	}
	return nil
}

// tagSeed keys the ETags of answers. A tag must change when the answer
// does, for as long as a page keeps it; it need not outlive the server (a
// server started again gives new tags, and a page reads each view once
// more). So a fast keyed hash serves: SHA-256 of a 400 kB list was an
// eighth of the time the server spent on it.
var tagSeed = maphash.MakeSeed()

// bodyTag is the ETag of an answer: its length and its 64-bit hash.
func bodyTag(body []byte) string {
	b := make([]byte, 0, 36)
	b = append(b, '"')
	b = strconv.AppendUint(b, uint64(len(body)), 16)
	b = append(b, '-')
	b = strconv.AppendUint(b, maphash.Bytes(tagSeed, body), 16)
	return string(append(b, '"'))
}

// etagMatches reads an If-None-Match list: tags separated by commas, weak
// ones (W/) compared by their value, "*" matching anything.
func etagMatches(header, etag string) bool {
	for _, t := range strings.Split(header, ",") {
		t = strings.TrimSpace(t)
		t = strings.TrimPrefix(t, "W/")
		if t == "*" || t == etag {
			return true
		}
	}
	return false
}

// readBody reads a request body up to the limit.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return nil, desk.Errorf(desk.Invalid, "request body over %d MB", limit>>20)
	}
	if err != nil {
		return nil, desk.Errorf(desk.Invalid, "could not read the request body: %v", err)
	}
	return body, nil
}

// readObject reads a JSON object body; an empty body is an empty object.
func readObject(r *http.Request) (map[string]json.RawMessage, error) {
	body, err := readBody(r, desk.MaxRequestBody)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		return map[string]json.RawMessage{}, nil
	}
	return desk.DecodeObject(body)
}

// str reads an optional string member of a JSON object.
func str(m map[string]json.RawMessage, key string, limit int) (string, error) {
	raw, ok := m[key]
	if !ok {
		return "", nil
	}
	return desk.DecodeString(key, raw, limit)
}

// query returns a query parameter: the last value of a repeated key wins
// and blank values count as absent.
func query(r *http.Request, key string) string {
	vals := r.URL.Query()[key]
	for i := len(vals) - 1; i >= 0; i-- {
		if v := strings.TrimSpace(vals[i]); v != "" {
			return v
		}
	}
	return ""
}

// queryInt reads a whole-number query parameter.
func queryInt(r *http.Request, key string, def int) (int, error) {
	v := query(r, key)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, desk.Errorf(desk.Invalid, "%s: %q is not a whole number", key, v)
	}
	return n, nil
}

func queryBool(r *http.Request, key string) bool {
	switch strings.ToLower(query(r, key)) {
	case "1", "true", "yes", "on":
		return true
	}
	return false
}
