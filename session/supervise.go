package session

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"desk"
	"desk/agent"
)

// Supervisor is the server's side of the sessions: at start it finds
// every holder (the running records and the sockets) and watches each,
// so that a session whose program ends, or whose holder is killed,
// reads exited within moments; it picks up sessions the command line
// launches, and captures each session's resume id. It never owns a
// holder: stopping the server leaves every session running.
type Supervisor struct {
	M   *Manager
	Log *slog.Logger
	// Agent returns the live agent session whose hooks carry a managed
	// session's id (live.Service.ByLaunch); nil when agents are not tracked.
	Agent func(id string) (agent.Session, bool)
	// Tick is how often records are swept and resume ids looked for
	// (default 500 ms, which keeps a lost holder's record under 2 s).
	Tick time.Duration

	mu      sync.Mutex
	watched map[string]bool
	known   map[string]bool
	looked  map[string]time.Time // when a resume id was last looked for outside the hooks

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// Start sweeps once (so that the first answers are right) and starts the
// watching.
func (s *Supervisor) Start(ctx context.Context) error {
	if s.Log == nil {
		s.Log = slog.New(slog.DiscardHandler)
	}
	if s.Tick <= 0 {
		s.Tick = 500 * time.Millisecond
	}
	s.watched, s.known, s.looked = map[string]bool{}, map[string]bool{}, map[string]time.Time{}
	s.ctx, s.cancel = context.WithCancel(context.Background())
	s.restoreOrphans(ctx)
	if err := s.sweep(ctx); err != nil {
		return err
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		t := time.NewTicker(s.Tick)
		defer t.Stop()
		for {
			select {
			case <-s.ctx.Done():
				return
			case <-t.C:
			}
			if err := s.sweep(s.ctx); err != nil && s.ctx.Err() == nil {
				s.Log.Warn("sweep sessions", "err", err)
			}
			s.capture(s.ctx)
		}
	}()
	return nil
}

// Close stops watching; the holders and their programs keep running.
func (s *Supervisor) Close() error {
	if s.cancel != nil {
		s.cancel()
		s.wg.Wait()
	}
	return nil
}

// Managed reports whether id is a managed session's id.
func (s *Supervisor) Managed(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.known[id] {
		return true
	}
	if _, err := s.M.Store.Session(context.Background(), id); err == nil {
		s.known[id] = true
		return true
	}
	return false
}

// Notice watches a session at once (a launch through the server), rather
// than at the next sweep.
func (s *Supervisor) Notice(id string) {
	s.mu.Lock()
	s.known[id] = true
	s.mu.Unlock()
	if sess, err := s.M.Store.Session(s.ctx, id); err == nil && sess.State == desk.SessionRunning {
		s.watch(sess)
	}
}

// sweep watches every running record not watched yet, and ends those
// whose holder is gone.
func (s *Supervisor) sweep(ctx context.Context) error {
	list, err := s.M.Store.Sessions(ctx, desk.SessionFilter{})
	if err != nil {
		return err
	}
	for _, sess := range list {
		s.mu.Lock()
		s.known[sess.ID] = true
		busy := s.watched[sess.ID]
		s.mu.Unlock()
		if !busy {
			s.watch(sess)
		}
	}
	return nil
}

// watch follows one holder until its program ends or it is lost, then
// records the end.
func (s *Supervisor) watch(sess *desk.Session) {
	s.mu.Lock()
	if s.watched[sess.ID] {
		s.mu.Unlock()
		return
	}
	s.watched[sess.ID] = true
	s.mu.Unlock()
	c, err := Dial(s.ctx, s.M.DataDir, sess.ID)
	if err != nil {
		defer s.unwatch(sess.ID)
		if errors.Is(err, ErrNoHolder) {
			if _, err := s.M.Reconcile(s.ctx, sess); err != nil && s.ctx.Err() == nil {
				s.Log.Warn("record a lost holder", "session", sess.ID, "err", err)
			}
		}
		return
	}
	st, err := c.Watch()
	if err != nil {
		c.Close()
		s.unwatch(sess.ID)
		return
	}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer s.unwatch(sess.ID)
		stop := context.AfterFunc(s.ctx, func() { c.Close() })
		defer stop()
		var exit *Exit
		for {
			ev, err := st.Next()
			if err != nil {
				break
			}
			if ev.Exit != nil {
				exit = ev.Exit
				break
			}
			if ev.Info != nil && ev.Info.Note != "" {
				note := ev.Info.Note
				s.M.Store.UpdateSession(s.ctx, sess.ID, desk.SessionUpdate{Note: &note})
			}
		}
		c.Close()
		if s.ctx.Err() != nil {
			return // the server stops; the session does not
		}
		if exit == nil {
			exit = s.M.ReadExit(sess.ID)
		}
		if exit == nil {
			s.Log.Warn("a session's holder is gone", "session", sess.ID)
		}
		if _, err := s.M.Ended(s.ctx, sess.ID, exit); err != nil && s.ctx.Err() == nil {
			s.Log.Warn("record a session's end", "session", sess.ID, "err", err)
		}
	}()
}

func (s *Supervisor) unwatch(id string) {
	s.mu.Lock()
	delete(s.watched, id)
	s.mu.Unlock()
}

// restoreOrphans gives a record back to every live holder whose record is
// missing or says it ended: a store restored from a backup, a record
// marked lost by mistake. The holder's socket is the truth.
func (s *Supervisor) restoreOrphans(ctx context.Context) {
	entries, err := os.ReadDir(Dir(s.M.DataDir))
	if err != nil {
		return
	}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".sock")
		if !ok {
			continue
		}
		rec, err := s.M.Store.Session(ctx, id)
		if err == nil && rec.State == desk.SessionRunning {
			continue
		}
		c, derr := Dial(ctx, s.M.DataDir, id)
		if derr != nil {
			if errors.Is(derr, ErrNoHolder) {
				removeSocket(s.M.DataDir, id) // a socket its holder left behind
			}
			continue
		}
		info, ierr := c.Info(ctx)
		c.Close()
		if ierr != nil || info.Exit != nil {
			continue
		}
		running, pid := desk.SessionRunning, info.PID
		switch {
		case err == nil:
			reason := ""
			var noCode *int
			zero := time.Time{}
			_, err = s.M.Store.UpdateSession(ctx, id, desk.SessionUpdate{State: &running, PID: &pid, ExitReason: &reason,
				ExitCode: &noCode, EndedAt: &zero, IfState: desk.SessionExited})
		case desk.ErrorCode(err) == desk.NotFound:
			err = s.M.Store.CreateSession(ctx, recordOf(id, info))
		}
		if err != nil {
			s.Log.Warn("restore a session's record from its holder", "session", id, "err", err)
		} else {
			s.Log.Info("restored a session's record from its holder", "session", id)
		}
	}
}

// recordOf rebuilds a record from what a holder keeps of it.
func recordOf(id string, info *Info) *desk.Session {
	var v desk.SessionView
	json.Unmarshal(info.Record, &v)
	s := &desk.Session{ID: id, Kind: v.Kind, Name: v.Name, Cwd: v.Cwd, Command: v.Command, Args: v.Args, PID: info.PID,
		State: desk.SessionRunning, Generation: v.Generation, Bypass: v.Bypass, Hooks: v.Hooks}
	if s.Kind == "" {
		s.Kind = "custom"
	}
	if v.Project != nil {
		s.Project = *v.Project
	}
	if v.ResumeID != nil {
		s.ResumeID = *v.ResumeID
	}
	if v.Profile != nil {
		s.Profile = *v.Profile
	}
	s.StartedAt, _ = desk.ParseTime(info.StartedAt)
	if s.Generation == 0 {
		s.Generation = 1
	}
	return s
}

// lookEvery is how often a resume id is looked for outside the hooks:
// listing opencode's sessions starts a process.
const lookEvery = 10 * time.Second

// capture records the resume id of every running session that has a new
// one: from the hooks' provider session id (which follows /clear), from
// Codex's session records, from opencode's session list.
func (s *Supervisor) capture(ctx context.Context) {
	list, err := s.M.Store.Sessions(ctx, desk.SessionFilter{})
	if err != nil {
		return
	}
	for _, sess := range list {
		l, err := agent.LauncherFor(sess.Kind)
		if err != nil || l.Resume == nil {
			continue
		}
		if s.Agent != nil {
			if a, ok := s.Agent(sess.ID); ok && a.Generation >= sess.Generation {
				if ok, err := s.M.SetResumeID(ctx, sess, a.ProviderID); ok {
					s.Log.Info("captured a resume id from the hooks", "session", sess.ID, "resume", a.ProviderID)
					continue
				} else if err != nil {
					s.Log.Warn("record a resume id", "session", sess.ID, "err", err)
				}
			}
		}
		if sess.ResumeID != "" || (l.Capture != agent.CaptureCodex && l.Capture != agent.CaptureOpencode) {
			continue
		}
		s.mu.Lock()
		due := time.Since(s.looked[sess.ID]) >= lookEvery
		if due {
			s.looked[sess.ID] = time.Now()
		}
		s.mu.Unlock()
		if !due {
			continue
		}
		var id string
		switch l.Capture {
		case agent.CaptureCodex:
			id = codexSession(s.codexHome(sess), sess.Cwd, sess.StartedAt)
		case agent.CaptureOpencode:
			id = opencodeSession(ctx, sess.Command, s.M.environ(), sess.Cwd, sess.StartedAt)
		}
		if id != "" {
			if ok, _ := s.M.SetResumeID(ctx, sess, id); ok {
				s.Log.Info("captured a resume id", "session", sess.ID, "resume", id, "from", l.Capture)
			}
		}
	}
}

func (s *Supervisor) codexHome(sess *desk.Session) string {
	if sess.Profile != "" {
		return filepath.Join(s.M.DataDir, "profiles", sess.Profile)
	}
	if v := s.M.getenv("CODEX_HOME"); v != "" {
		return v
	}
	return filepath.Join(s.M.getenv("HOME"), ".codex")
}

// codexSession finds the Codex session a launch in cwd at started began:
// Codex writes each session's records to
// <CODEX_HOME>/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl, whose first
// line is the session's meta (its id, folder and start).
func codexSession(home, cwd string, started time.Time) string {
	best, bestAt := "", time.Time{}
	for _, day := range []time.Time{started.Local(), started.Local().Add(24 * time.Hour)} {
		dir := filepath.Join(home, "sessions", day.Format("2006"), day.Format("01"), day.Format("02"))
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), "rollout-") || !strings.HasSuffix(e.Name(), ".jsonl") {
				continue
			}
			id, at, where := codexMeta(filepath.Join(dir, e.Name()))
			if id == "" || where != cwd || at.Before(started.Add(-2*time.Second)) {
				continue
			}
			if best == "" || at.Before(bestAt) {
				best, bestAt = id, at
			}
		}
	}
	return best
}

func codexMeta(path string) (id string, at time.Time, cwd string) {
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer f.Close()
	line, err := bufio.NewReader(io.LimitReader(f, 1<<20)).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return
	}
	var meta struct {
		Type    string `json:"type"`
		Payload struct {
			ID        string `json:"id"`
			Cwd       string `json:"cwd"`
			Timestamp string `json:"timestamp"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &meta) != nil || meta.Type != "session_meta" {
		return
	}
	at, _ = time.Parse(time.RFC3339Nano, meta.Payload.Timestamp)
	return meta.Payload.ID, at, meta.Payload.Cwd
}

// opencodeSession asks opencode for its sessions in cwd and returns the
// one created first after started.
func opencodeSession(ctx context.Context, command, env []string, cwd string, started time.Time) string {
	if len(command) == 0 {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, command[0], "session", "list", "--format", "json")
	cmd.Dir, cmd.Env = cwd, env
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	var list []struct {
		ID        string `json:"id"`
		Directory string `json:"directory"`
		Created   int64  `json:"created"`
		Time      struct {
			Created int64 `json:"created"`
		} `json:"time"`
	}
	if json.Unmarshal(out, &list) != nil {
		return ""
	}
	best, bestAt := "", int64(0)
	from := started.Add(-2 * time.Second).UnixMilli()
	for _, s := range list {
		at := s.Time.Created
		if at == 0 {
			at = s.Created
		}
		if s.Directory != "" && s.Directory != cwd || at < from {
			continue
		}
		if best == "" || at < bestAt {
			best, bestAt = s.ID, at
		}
	}
	return best
}
