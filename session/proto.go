package session

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
)

// The holder's socket speaks frames: one byte of type, four bytes of
// payload length (big-endian), the payload. Control payloads are JSON;
// terminal bytes go as they are. See docs/sessions.md.
//
// Requests, client to holder:
const (
	msgAttach = 'A' // {cols, rows}: snapshot, then the live stream
	msgWatch  = 'W' // {}: Info now, then exit, size and info events; no output
	msgInput  = 'I' // terminal input, as typed
	msgKeys   = 'K' // ["enter", "ctrl-c", ...]: named keys, encoded by the holder
	msgResize = 'R' // {cols, rows}
	msgScreen = 'S' // {}: the screen as text
	msgAnsi   = 'Y' // {}: the screen's redraw sequence
	msgInfo   = 'N' // {}: what the holder runs, and how
	msgStop   = 'X' // {kill}: hang up, then kill after StopGrace
)

// Replies and events, holder to client:
const (
	msgOutput   = 'o' // terminal output
	msgSnapshot = 'p' // the redraw sequence that opens an attach (after a size)
	msgSize     = 'z' // {cols, rows}: the terminal's size, before a snapshot and on every change
	msgExit     = 'e' // Exit: the program ended; nothing follows
	msgText     = 's' // Text
	msgAnsiText = 'y' // the redraw sequence
	msgInfoText = 'n' // Info
	msgOK       = 'k' // {}: a request that changes something was done
	msgError    = 'x' // {"error": "..."}
)

// maxFrame bounds a frame's payload: a snapshot with a full history of
// wide coloured lines fits, a corrupt length is refused.
const maxFrame = 64 << 20

// maxRequest bounds what a client may send in one frame.
const maxRequest = 1 << 20

// frame is one message.
type frame struct {
	kind byte
	data []byte
}

// conn is one end of a socket connection: frames are written whole by
// any goroutine and read by one.
type conn struct {
	c  net.Conn
	r  *bufio.Reader
	mu sync.Mutex // serialises writes
}

func newConn(c net.Conn) *conn { return &conn{c: c, r: bufio.NewReaderSize(c, 64<<10)} }

// write sends one frame.
func (c *conn) write(kind byte, data []byte) error {
	var hdr [5]byte
	hdr[0] = kind
	binary.BigEndian.PutUint32(hdr[1:], uint32(len(data)))
	c.mu.Lock()
	defer c.mu.Unlock()
	bufs := net.Buffers{hdr[:], data}
	_, err := bufs.WriteTo(c.c)
	return err
}

// writeJSON sends one frame with v as its JSON payload.
func (c *conn) writeJSON(kind byte, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return c.write(kind, b)
}

// read reads one frame of at most limit bytes.
func (c *conn) read(limit int) (frame, error) {
	var hdr [5]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		return frame{}, err
	}
	n := binary.BigEndian.Uint32(hdr[1:])
	if int64(n) > int64(limit) {
		return frame{}, fmt.Errorf("a frame of %d bytes is over the %d byte limit", n, limit)
	}
	data := make([]byte, n)
	if _, err := io.ReadFull(c.r, data); err != nil {
		return frame{}, err
	}
	return frame{kind: hdr[0], data: data}, nil
}

func (c *conn) close() error { return c.c.Close() }

// size is a terminal size on the wire.
type size struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// stopRequest asks the holder to end the program.
type stopRequest struct {
	Kill bool `json:"kill"`
}

// errorReply is a refusal on the wire.
type errorReply struct {
	Error string `json:"error"`
	Code  string `json:"code,omitempty"`
}

// errClosed is returned by reads on a connection the holder closed.
var errClosed = errors.New("the holder closed the connection")
