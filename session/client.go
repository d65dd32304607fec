package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"desk"
)

// Client talks to one session's holder over its socket. It is what the
// command line and the server use; it does not touch the store.
type Client struct {
	c  *conn
	id string
}

// DialTimeout bounds connecting to a holder: it is a local socket, so a
// holder that does not answer at once is not there.
const DialTimeout = 2 * time.Second

// Dial connects to the holder of session id in data folder dataDir.
// ErrNoHolder (wrapped) says no holder listens.
func Dial(ctx context.Context, dataDir, id string) (*Client, error) {
	ctx, cancel := context.WithTimeout(ctx, DialTimeout)
	defer cancel()
	c, err := dial(ctx, dataDir, id)
	if err != nil {
		return nil, err
	}
	return &Client{c: newConn(c), id: id}, nil
}

// Close closes the connection; the session keeps running.
func (c *Client) Close() error { return c.c.close() }

// request sends one request and reads its reply, which must be of kind
// want. A refusal comes back as the holder's *desk.Error.
func (c *Client) request(ctx context.Context, kind byte, payload []byte, want byte) ([]byte, error) {
	if d, ok := ctx.Deadline(); ok {
		c.c.c.SetDeadline(d)
		defer c.c.c.SetDeadline(time.Time{})
	}
	if err := c.c.write(kind, payload); err != nil {
		return nil, err
	}
	for {
		f, err := c.c.read(maxFrame)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, errClosed
			}
			return nil, err
		}
		switch f.kind {
		case want:
			return f.data, nil
		case msgError:
			return nil, replyError(f.data)
		case msgExit:
			if want == msgOK && kind == msgStop {
				return f.data, nil
			}
		}
		// Events of a watch or an attach on the same connection are not
		// the reply; a client that wants them uses Stream.
	}
}

func replyError(b []byte) error {
	var e errorReply
	json.Unmarshal(b, &e)
	code := e.Code
	if code == "" {
		code = desk.Internal
	}
	return &desk.Error{Code: code, Message: e.Error}
}

func (c *Client) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	if _, ok := ctx.Deadline(); ok {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, 10*time.Second)
}

// Info asks the holder what it runs.
func (c *Client) Info(ctx context.Context) (*Info, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	b, err := c.request(ctx, msgInfo, nil, msgInfoText)
	if err != nil {
		return nil, err
	}
	var in Info
	return &in, json.Unmarshal(b, &in)
}

// Screen returns the screen as text.
func (c *Client) Screen(ctx context.Context) (*Text, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	b, err := c.request(ctx, msgScreen, nil, msgText)
	if err != nil {
		return nil, err
	}
	var t Text
	return &t, json.Unmarshal(b, &t)
}

// Ansi returns the sequence that redraws the screen.
func (c *Client) Ansi(ctx context.Context) ([]byte, error) {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	return c.request(ctx, msgAnsi, nil, msgAnsiText)
}

// Input writes bytes to the program's input as if typed, and returns once
// the holder has written them.
func (c *Client) Input(ctx context.Context, b []byte) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	if err := c.c.write(msgInput, b); err != nil {
		return err
	}
	// The info reply comes after the input is written: the holder answers
	// a connection's requests in order.
	_, err := c.request(ctx, msgInfo, nil, msgInfoText)
	return err
}

// Keys sends named keys ("enter", "ctrl-c"), encoded by the holder for the
// program's current key mode.
func (c *Client) Keys(ctx context.Context, names []string) error {
	if _, err := EncodeKeys(names, false); err != nil {
		return err
	}
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	_, err := c.request(ctx, msgKeys, mustJSON(names), msgOK)
	return err
}

// Resize sets the terminal's size.
func (c *Client) Resize(ctx context.Context, cols, rows int) error {
	if err := validSize(cols, rows); err != nil {
		return err
	}
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	_, err := c.request(ctx, msgResize, mustJSON(size{cols, rows}), msgOK)
	return err
}

// Stop hangs up the program (kill: kills it at once); the holder kills it
// StopGrace later if it is still there.
func (c *Client) Stop(ctx context.Context, kill bool) error {
	ctx, cancel := c.ctx(ctx)
	defer cancel()
	_, err := c.request(ctx, msgStop, mustJSON(stopRequest{Kill: kill}), msgOK)
	return err
}

// Event is one message of a Stream.
type Event struct {
	// Output is terminal output; Snapshot marks the redraw sequence that
	// opens an attach.
	Output   []byte
	Snapshot bool
	// Size is set when the terminal's size is announced or changes.
	Size *Size
	// Exit is set when the program ended; nothing follows.
	Exit *Exit
	// Info is set when the holder's description changed (a fallback ran).
	Info *Info
}

// Size is a terminal's size.
type Size struct {
	Cols int `json:"cols"`
	Rows int `json:"rows"`
}

// Stream is an attached or watching connection.
type Stream struct {
	c *Client
}

// Attach makes this connection a viewer: the terminal's size and a
// snapshot come first, then every byte of output. cols and rows (0 for
// both to keep the size) become the terminal's size.
func (c *Client) Attach(cols, rows int) (*Stream, error) {
	if cols != 0 || rows != 0 {
		if err := validSize(cols, rows); err != nil {
			return nil, err
		}
	}
	if err := c.c.write(msgAttach, mustJSON(size{cols, rows})); err != nil {
		return nil, err
	}
	return &Stream{c: c}, nil
}

// Watch subscribes to the session's end and size changes, without output.
func (c *Client) Watch() (*Stream, error) {
	if err := c.c.write(msgWatch, []byte("{}")); err != nil {
		return nil, err
	}
	return &Stream{c: c}, nil
}

// Next returns the next event. io.EOF means the holder closed the
// connection (it ended, or was killed).
func (s *Stream) Next() (Event, error) {
	for {
		f, err := s.c.c.read(maxFrame)
		if err != nil {
			return Event{}, err
		}
		switch f.kind {
		case msgOutput:
			return Event{Output: f.data}, nil
		case msgSnapshot:
			return Event{Output: f.data, Snapshot: true}, nil
		case msgSize:
			var sz Size
			if err := json.Unmarshal(f.data, &sz); err != nil {
				return Event{}, err
			}
			return Event{Size: &sz}, nil
		case msgExit:
			var e Exit
			if err := json.Unmarshal(f.data, &e); err != nil {
				return Event{}, err
			}
			return Event{Exit: &e}, nil
		case msgInfoText:
			var in Info
			if err := json.Unmarshal(f.data, &in); err != nil {
				return Event{}, err
			}
			return Event{Info: &in}, nil
		case msgError:
			return Event{}, replyError(f.data)
		case msgOK, msgText, msgAnsiText:
			// Replies to requests sent on this connection.
		default:
			return Event{}, fmt.Errorf("unknown frame %q from the holder", f.kind)
		}
	}
}

// Input writes terminal input (from an attached viewer: the size follows
// whoever types).
func (s *Stream) Input(b []byte) error { return s.c.c.write(msgInput, b) }

// Resize sets this viewer's size, and the terminal's.
func (s *Stream) Resize(cols, rows int) error {
	if err := validSize(cols, rows); err != nil {
		return err
	}
	return s.c.c.write(msgResize, mustJSON(size{cols, rows}))
}

// Close ends the stream; the session keeps running.
func (s *Stream) Close() error { return s.c.Close() }
