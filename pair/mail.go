package pair

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	"desk"
)

// SendAnswer answers pair_send and pair_deliver.
type SendAnswer struct {
	Letters []int64  `json:"letters"` // one per recipient
	To      []string `json:"to"`
	// Delivery says what pair_deliver did in the peer's terminal.
	Delivery []Delivery `json:"delivery,omitempty"`
}

// Delivery is what happened to a letter's pointer in one recipient's
// terminal.
type Delivery struct {
	To       string `json:"to"`
	Typed    bool   `json:"typed"`
	Deferred bool   `json:"deferred,omitempty"`
	Why      string `json:"why,omitempty"`
}

// Send puts a letter in the mailboxes of to (default: every peer).
func (s *Service) Send(ctx context.Context, c Caller, body string, to []string) (*SendAnswer, error) {
	return s.send(ctx, c, "pair_send", body, to, false)
}

func (s *Service) send(ctx context.Context, c Caller, tool, body string, to []string, deferred bool) (*SendAnswer, error) {
	if strings.TrimSpace(body) == "" {
		return nil, s.refused(ctx, c, tool, refuse(RuleEmpty, invalid, "%s needs a body", tool).WithHint("write the letter in body"))
	}
	if len(body) > MaxMessage {
		return nil, s.refused(ctx, c, tool, tooLarge("the letter", len(body), MaxMessage,
			"put the long part in a note (pair_note) and send a short letter pointing at it"))
	}
	var out *SendAnswer
	err := s.act(ctx, c, tool, func(k *call) error {
		recipients, err := k.recipients(to)
		if err != nil {
			return err
		}
		if err := k.withinBudget(EventLetter, k.p.Budget.Messages, "letters"); err != nil {
			return err
		}
		e, err := k.log(EventLetter, body, map[string]any{"to": recipients})
		if err != nil {
			return err
		}
		out = &SendAnswer{To: recipients}
		for _, r := range recipients {
			l := &Letter{From: k.role, To: r, Body: body, Event: e.ID, Deferred: deferred}
			if err := k.tx.Send(l); err != nil {
				return err
			}
			out.Letters = append(out.Letters, l.ID)
		}
		return nil
	})
	return out, err
}

// recipients checks a letter's addressees; none means every peer.
func (k *call) recipients(to []string) ([]string, error) {
	if len(to) == 0 {
		peers := k.p.peers(k.role)
		if len(peers) == 0 {
			return nil, refuse(RuleNotMember, conflict, "pair %s has no other member to write to", k.p.ID).
				WithHint("swap a critic in with desk pair swap")
		}
		return peers, nil
	}
	var out []string
	for _, r := range to {
		r = strings.TrimSpace(r)
		m := k.p.member(r)
		switch {
		case r == k.role:
			return nil, refuse(RuleNotMember, invalid, "a letter to yourself (%s)", r).WithHint("keep it as a note with pair_note")
		case m == nil || m.LeftAt != nil:
			return nil, refuse(RuleNotMember, invalid, "%q is not a member of pair %s (members: %s)", clip(r, 40), k.p.ID, strings.Join(k.p.liveRoles(), ", ")).
				WithHint("leave to out to write to every peer")
		}
		if !slices.Contains(out, r) {
			out = append(out, r)
		}
	}
	return out, nil
}

// Deliver puts the letter in the mailboxes, like Send, and types a
// one-line pointer to it into each recipient's managed session when its
// composer is visible (a bracketed paste, then Enter). The mailbox always
// holds the letter; a pointer that cannot be typed now is left for the
// supervisor.
func (s *Service) Deliver(ctx context.Context, c Caller, body string, to []string) (*SendAnswer, error) {
	out, err := s.send(ctx, c, "pair_deliver", body, to, true)
	if err != nil {
		return nil, err
	}
	var sessions map[string]string
	err = s.Store.View(ctx, c.Pair, func(tx ReadTx) error {
		sessions = map[string]string{}
		for _, m := range tx.Pair().Members {
			sessions[m.Role] = m.Session
		}
		return nil
	})
	if err != nil {
		return out, nil // the letters are in; delivery is best effort
	}
	for i, r := range out.To {
		d := s.typePointer(ctx, sessions[r], pointer(c.Role, out.Letters[i]))
		d.To = r
		if d.Typed {
			_ = s.Store.Update(ctx, c.Pair, func(tx Tx) error {
				if err := tx.Delivered(out.Letters[i]); err != nil {
					return err
				}
				return tx.Log(&Event{Role: c.Role, Kind: EventDelivered, Text: "pointer typed into " + r + "'s terminal",
					Detail: map[string]any{"letter": out.Letters[i], "to": r}})
			})
		}
		out.Delivery = append(out.Delivery, d)
	}
	return out, nil
}

// pointer is the line typed into a peer's terminal for a letter.
func pointer(from string, letter int64) string {
	return fmt.Sprintf("[desk pair] letter #%d from %s is in your mailbox: read it with pair_read", letter, from)
}

// typePointer types line into a session when its composer is visible.
func (s *Service) typePointer(ctx context.Context, session, line string) Delivery {
	switch {
	case s.Terminals == nil:
		return Delivery{Deferred: true, Why: "no managed sessions here: the letter waits in the mailbox"}
	case session == "":
		return Delivery{Deferred: true, Why: "the peer was started by hand, not as a managed session: the letter waits in the mailbox"}
	}
	screen, err := s.Terminals.Screen(ctx, session)
	if err != nil {
		return Delivery{Deferred: true, Why: "its terminal could not be read: " + err.Error()}
	}
	if !ComposerVisible(screen) {
		return Delivery{Deferred: true, Why: "its composer is not visible (busy, or a prompt is open): the supervisor types the pointer later"}
	}
	if err := s.Terminals.Type(ctx, session, line); err != nil {
		return Delivery{Deferred: true, Why: "typing failed: " + err.Error()}
	}
	if err := s.Terminals.Keys(ctx, session, KeyEnter); err != nil {
		return Delivery{Deferred: true, Why: "pressing Enter failed: " + err.Error()}
	}
	return Delivery{Typed: true}
}

// ReadAnswer answers pair_read.
type ReadAnswer struct {
	Letters []Letter `json:"letters"`
	// AckToken acknowledges this batch; pass it to the next pair_read.
	AckToken string `json:"ack_token,omitempty"`
	// MustAck says the letters stay unread until AckToken is passed back.
	MustAck bool `json:"must_ack"`
	// LettersBehind counts unread letters beyond this batch.
	LettersBehind int    `json:"letters_behind"`
	Acked         int64  `json:"acked,omitempty"` // the last letter the passed token acknowledged
	Waited        string `json:"waited,omitempty"`
	Note          string `json:"note,omitempty"`
}

// ReadInput is pair_read's arguments.
type ReadInput struct {
	AckToken    string
	WaitSeconds float64
	Limit       int
}

// Read limits.
const (
	MaxWait          = 60 // seconds
	DefaultReadLimit = 20
	MaxReadLimit     = 100
)

// Read hands out the caller's unread letters in a batch that stays unread
// until its ack token comes back: passing the token of the last batch
// acknowledges it and reads the next one in the same call. With
// WaitSeconds and nothing unread, it blocks until a letter arrives,
// at most MaxWait seconds.
func (s *Service) Read(ctx context.Context, c Caller, in ReadInput) (*ReadAnswer, error) {
	out := &ReadAnswer{Letters: []Letter{}}
	if in.WaitSeconds < 0 {
		return nil, s.refused(ctx, c, "pair_read", refuse(RuleEmpty, invalid, "wait_seconds must not be negative").WithHint("give 0 to 60 seconds"))
	}
	if in.Limit <= 0 {
		in.Limit = DefaultReadLimit
	}
	in.Limit = min(in.Limit, MaxReadLimit)
	wait := time.Duration(in.WaitSeconds * float64(time.Second))
	if in.WaitSeconds > MaxWait {
		wait = MaxWait * time.Second
		out.Note = fmt.Sprintf("wait_seconds is capped at %d: waited at most %d seconds", MaxWait, MaxWait)
	}
	token := strings.TrimSpace(in.AckToken)
	if token != "" {
		err := s.act(ctx, c, "pair_read", func(k *call) error {
			if token != k.m.AckToken || k.m.AckToken == "" {
				return staleAck(k.p, k.role, token)
			}
			k.m.Acked, k.m.AckToken, k.m.AckUpTo = k.m.AckUpTo, "", 0
			out.Acked = k.m.Acked
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	deadline := s.now().Add(wait)
	for {
		var seq int64
		var batch []Letter
		err := s.look(ctx, c, "pair_read", func(tx ReadTx, p *Pair, m *Member) error {
			var err error
			if seq, err = tx.Seq(); err != nil {
				return err
			}
			batch, err = tx.Letters(p.mailboxes(m.Role), m.Acked, in.Limit)
			return err
		})
		if err != nil {
			return nil, err
		}
		if len(batch) > 0 {
			return out, s.handOut(ctx, c, in.Limit, out)
		}
		left := deadline.Sub(s.now())
		if left <= 0 {
			if wait > 0 {
				out.Waited = fmt.Sprintf("%.0fs: no letter arrived", wait.Seconds())
			}
			return out, nil
		}
		if err := s.waitFeed(ctx, seq, left); err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, err
		}
	}
}

// handOut gives the caller its next batch with an ack token, reusing the
// token of a batch handed out before and not acknowledged yet when the
// batch is the same.
func (s *Service) handOut(ctx context.Context, c Caller, limit int, out *ReadAnswer) error {
	return s.act(ctx, c, "pair_read", func(k *call) error {
		boxes := k.p.mailboxes(k.role)
		batch, err := k.tx.Letters(boxes, k.m.Acked, limit)
		if err != nil {
			return err
		}
		out.Letters = batch
		if len(batch) == 0 {
			return nil
		}
		last := batch[len(batch)-1].ID
		if k.m.AckToken == "" || k.m.AckUpTo != last {
			k.m.AckToken, k.m.AckUpTo = newToken(), last
		}
		out.AckToken, out.MustAck = k.m.AckToken, true
		behind, err := k.tx.CountLetters(boxes, last)
		out.LettersBehind = behind
		return err
	})
}

// staleAck explains why a token is refused: another member's, or not the
// one of the caller's last batch.
func staleAck(p *Pair, role, token string) error {
	for _, m := range p.Members {
		if m.Role != role && m.AckToken != "" && m.AckToken == token {
			return refuse(RuleStaleAck, invalid, "this ack_token belongs to %s, not to %s", m.Role, role).
				WithHint("pass the ack_token of your own last pair_read, or call pair_read without one")
		}
	}
	return refuse(RuleStaleAck, invalid, "this ack_token is not the one of your last batch: it was used already, or a newer batch replaced it").
		WithHint("call pair_read without ack_token to get your unread letters and a fresh token")
}

func newToken() string {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return "ack_" + hex.EncodeToString(b[:])
}

// waitFeed blocks until the change feed moves past seq with a pair row,
// for at most d.
func (s *Service) waitFeed(ctx context.Context, seq int64, d time.Duration) error {
	wctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	moved := make(chan struct{}, 1)
	go func() {
		_ = s.Store.Watch(wctx, seq, func(cs []*desk.Change) {
			for _, ch := range cs {
				if ch.Type == desk.ChangePair {
					select {
					case moved <- struct{}{}:
					default:
					}
					return
				}
			}
		})
	}()
	select {
	case <-moved:
		return nil
	case <-wctx.Done():
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return nil
	}
}

// PingAnswer is pair_ping's three fields.
type PingAnswer struct {
	Role   string `json:"role"`
	Writer string `json:"writer"`
	Unread int    `json:"unread"`
}

// Ping records the caller as seen and answers with its role, the writer
// and its unread count: the cheapest liveness call.
func (s *Service) Ping(ctx context.Context, c Caller) (*PingAnswer, error) {
	var out *PingAnswer
	err := s.act(ctx, c, "pair_ping", func(k *call) error {
		n, err := k.tx.CountLetters(k.p.mailboxes(k.role), k.m.Acked)
		out = &PingAnswer{Role: k.role, Writer: k.p.Writer, Unread: n}
		return err
	})
	return out, err
}
