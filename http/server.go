// Package http serves desk's HTTP API, its live event streams and the web
// page. The API is Pair Desk's, unchanged (paths, parameters, JSON field
// names, status codes), so a game or a script written against it works here.
//
// It is local and safe by default: it listens on 127.0.0.1, answers only
// loopback clients with loopback Host names, refuses other browser origins,
// and acts on the machine (opening or running a build) only for requests
// that carry the token written into the page it serves.
package http

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"

	"desk"
	"desk/code"
	"desk/identity"
	"desk/web"
)

// DefaultPort is the port desk listens on unless told otherwise.
const DefaultPort = 8765

// Store is what the server needs of the store: every service, and a way
// to follow the change feed.
type Store interface {
	desk.Service
	// Watch calls fn with every batch of feed rows committed after seq
	// after, by any process, until ctx ends.
	Watch(ctx context.Context, after int64, fn func([]*desk.Change)) error
}

// Options configure a Server.
type Options struct {
	// Addr is the address to listen on; ":0" style ports pick a free one.
	// The default is 127.0.0.1:8765, or 0.0.0.0:8765 with LAN.
	Addr string
	// LAN accepts clients from other machines: no authentication, for
	// trusted networks only.
	LAN bool
	// Logger receives one line per failed request; nil discards.
	Logger *slog.Logger
	// Assets are the web page's files; nil serves the embedded ones.
	Assets fs.FS
	// Code and Identities serve the code under /v1 (see code.go); with
	// either nil those routes answer 501.
	Code       *code.Service
	Identities *identity.Service
	// Agents is the live picture of the agent sessions (package
	// agent/live); nil turns the agent routes off.
	Agents Agents
	// Health is what GET /api/health checks beyond the version.
	Health Health
	// Observe, when set, is told every request's route pattern, status
	// and time (for the metrics).
	Observe func(route string, status int, d time.Duration)
	// DataDir is the data folder the store runs on, which /api/health
	// names so that the page can show the commands for this desk.
	DataDir string
	// Terminals serves the managed sessions (see sessions.go); nil turns
	// the session routes off.
	Terminals *Terminals
	// Team runs the team server's access rules (see team.go): every API
	// route needs a token of Identities, whatever the client's address.
	Team bool
	// Devices serves the device login on the team server.
	Devices *identity.Devices
}

// Server is desk's HTTP server.
type Server struct {
	store  Store
	opts   Options
	log    *slog.Logger
	token  string // the page token for build open/run
	assets *assets
	hub    *hub
	router *router

	ln      net.Listener
	srv     *http.Server
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	started time.Time

	pairSvc pairsOnce // the pair rules over the store (pairs.go)

	auth     *identity.Cache // the team server's tokens, as last read
	projects projectPrefixes // issue keys' projects, for the team's rights
}

// NewServer returns a server over store. Call Open to start it.
func NewServer(store Store, o Options) *Server {
	if o.Addr == "" {
		host := "127.0.0.1"
		if o.LAN {
			host = "0.0.0.0"
		}
		o.Addr = net.JoinHostPort(host, strconv.Itoa(DefaultPort))
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{store: store, opts: o, log: o.Logger, token: newToken(), started: time.Now()}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	files := o.Assets
	if files == nil {
		sub, err := fs.Sub(web.Static, "static")
		if err != nil {
			panic(err) // the embedded folder is part of the binary
		}
		files = sub
	}
	if o.Identities != nil {
		s.auth = identity.NewCache(o.Identities, 0)
	}
	s.assets = newAssets(files, s.token, o.Code != nil && o.Identities != nil)
	s.hub = newHub()
	s.router = s.routes()
	return s
}

func newToken() string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Open starts listening and serving in the background.
func (s *Server) Open() error {
	if s.opts.Team && (s.opts.Identities == nil || s.opts.Devices == nil) {
		return errors.New("http: a team server needs Identities and Devices")
	}
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return err
	}
	s.ln = ln
	s.srv = &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    1 << 16,
		// A request runs to its end while the server stops (Close):
		// cancelling it would answer a list the page asked for a moment
		// before with an error. Only event streams end with s.ctx.
		BaseContext: func(net.Listener) context.Context { return context.WithoutCancel(s.ctx) },
		ErrorLog:    slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	last, err := s.store.LastSeq(s.ctx)
	if err != nil {
		ln.Close()
		return err
	}
	s.hub.setSeq(last)
	if s.opts.Agents != nil {
		if err := s.opts.Agents.Start(s.ctx); err != nil {
			ln.Close()
			return err
		}
	}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("serve", "err", err)
		}
	}()
	if w, ok := s.store.(interface{ WarmUp(context.Context) error }); ok {
		// The first reads then answer from memory too; a failure here
		// only means they load what they need themselves.
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			w.WarmUp(s.ctx)
		}()
	}
	go func() {
		defer s.wg.Done()
		publish := s.hub.publish
		if f, ok := s.opts.Agents.(feedFollower); ok {
			// The agents' picture takes a batch before the streams do:
			// a page that hears of an agent's change and asks for the
			// agents then sees it.
			publish = func(cs []*desk.Change) {
				f.Follow(s.ctx, cs)
				s.hub.publish(cs)
			}
		}
		err := s.store.Watch(s.ctx, last, publish)
		if err != nil && !errors.Is(err, context.Canceled) {
			s.log.Error("follow the change feed", "err", err)
		}
	}()
	return nil
}

// Addr returns the address the server listens on.
func (s *Server) Addr() net.Addr { return s.ln.Addr() }

// URL returns the server's base URL, e.g. http://127.0.0.1:8765.
func (s *Server) URL() string {
	addr := s.ln.Addr().(*net.TCPAddr)
	host := "127.0.0.1"
	if !addr.IP.IsUnspecified() {
		host = addr.IP.String()
	}
	return "http://" + net.JoinHostPort(host, strconv.Itoa(addr.Port))
}

// Token returns the page token (for tests and the local launcher).
func (s *Server) Token() string { return s.token }

// Close stops the server: live streams end, requests in flight finish.
func (s *Server) Close() error {
	s.cancel()
	var err error
	if s.srv != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		err = s.srv.Shutdown(ctx)
	}
	s.wg.Wait()
	if s.opts.Agents != nil {
		err = errors.Join(err, s.opts.Agents.Close())
	}
	return err
}
