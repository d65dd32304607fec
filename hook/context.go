package hook

import (
	"context"
	"errors"
	"math"

	"desk"
	"desk/link"
	"desk/notify"
	"desk/sqlite"
)

// errSilent ends a hook that has nothing to say; it is not a failure.
var errSilent = errors.New("nothing to tell")

// session is what both context hooks work out first: the project of the
// session's folder and an open store. A folder linked to no project, or a
// data folder with no desk, ends the hook in silence.
type session struct {
	env     *Env
	in      *Input
	client  string
	project string // slug
	db      *sqlite.DB
}

func openSession(ctx context.Context, env *Env, client string, in *Input) (*session, error) {
	found, err := link.Resolve(env.DataDir, env.folder(in))
	if err != nil {
		return nil, errSilent
	}
	// A hook reads through one connection with a small page cache, and
	// never creates a data folder or a desk.
	db, err := sqlite.OpenRead(ctx, env.DataDir, 1024)
	if err != nil {
		return nil, errSilent
	}
	return &session{env: env, in: in, client: notify.ClientName(client), project: found.Project, db: db}, nil
}

func (s *session) close() { s.db.Close() }

// SessionStart tells a new session where its project stands: one summary
// line, what to read first, the current build, the handoff's Next step and
// Traps, and who hears the owner when it is another client. It starts the
// session's notification cursor, so its first prompt hears only what
// happens from now on; a session that already has one (resumed, cleared,
// compacted) keeps it. In a work folder whose open change touches the
// same paths as the open changes of other folders, it adds their warning
// lines, whether or not the folder is linked to a project.
func SessionStart(ctx context.Context, env *Env, client string, in *Input) (*Reply, error) {
	s, err := openSession(ctx, env, client, in)
	if err != nil {
		return withOverlaps(nil, workOverlaps(ctx, env, in, nil)), silence(err)
	}
	defer s.close()
	r, err := s.start(ctx)
	if err != nil {
		return r, err
	}
	return withOverlaps(r, workOverlaps(ctx, env, in, s.db)), nil
}

func (s *session) start(ctx context.Context) (*Reply, error) {
	b, err := s.db.Brief(ctx, s.project)
	if err != nil {
		return nil, err
	}
	a := notify.NewAudience(s.client, notify.IsDelegated(s.env.Getenv), b.Project)
	if a.HearsOwner() {
		err := notify.UpdateCursors(s.env.DataDir, s.env.Now(), func(c *notify.Cursors) (bool, error) {
			// A session that resumes, clears or compacts keeps its cursor:
			// what the owner did since its last prompt is still to be told.
			if s.in.Session == "" || c.Session(s.in.Session, s.project) == nil {
				c.Set(s.in.Session, s.project, b.Seq, s.env.Now())
			}
			return true, nil
		})
		if err != nil {
			return nil, err
		}
	}
	text := notify.SessionContext(b, a)
	if line, err := s.claimsLine(ctx); err != nil {
		return nil, err
	} else if line != "" && !a.Delegated {
		text += "\n" + line
	}
	return &Reply{Event: eventSessionStart, Line: notify.SummaryLine(b.Project), Context: text}, nil
}

// PromptSubmit tells a session, before its next turn, what the owner did
// since it last looked: at most notify.MaxBlockLines lines, newest first,
// each event once. It stays quiet in a delegated job, in a session of a
// client that is not the project's lead, and while a live channel serves
// the session. A session with no cursor yet (its session-start hook did not
// run) starts one and hears from the next prompt on; Antigravity, whose
// session-start hook may not fire, gets the session-start context instead.
func PromptSubmit(ctx context.Context, env *Env, client string, in *Input) (*Reply, error) {
	if notify.IsDelegated(env.Getenv) {
		return nil, nil
	}
	s, err := openSession(ctx, env, client, in)
	if err != nil {
		return nil, silence(err)
	}
	defer s.close()
	now := env.Now()
	channel := notify.ChannelLive(env.DataDir, s.project, in.Session, now)
	var reply *Reply
	var fresh bool
	err = notify.UpdateCursors(env.DataDir, now, func(c *notify.Cursors) (bool, error) {
		after := int64(math.MaxInt64)
		cur := c.Lookup(in.Session, s.project)
		if cur != nil {
			after = cur.Seq
		}
		// Antigravity's session-start hook may never fire: a conversation
		// it has not seen yet starts here, with the session-start context.
		if s.client == "antigravity" && in.Session != "" && c.Session(in.Session, s.project) == nil {
			fresh = true
			return false, nil
		}
		ev, err := s.db.OwnerEvents(ctx, s.project, after, notify.MaxBlockEvents)
		if err != nil {
			return false, err
		}
		if !notify.NewAudience(s.client, false, ev.Project).HearsOwner() {
			return false, nil
		}
		if cur != nil && !channel {
			if text := notify.Block(ev.Project.Name, ev, now); text != "" {
				reply = &Reply{Event: eventPrompt, Context: text}
			}
		}
		// Most prompts find the desk as they left it: their cursor is
		// rewritten only when it moves, or once an hour to be remembered.
		if sc := c.Session(in.Session, s.project); sc != nil && sc.Seq == ev.Last && !notify.Stale(sc, now) {
			return false, nil
		}
		c.Set(in.Session, s.project, ev.Last, now)
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	if fresh {
		r, err := s.start(ctx)
		if r != nil {
			r.Event, r.Line = eventPrompt, ""
		}
		return r, err
	}
	return reply, nil
}

// silence turns the expected reasons for saying nothing into no error.
func silence(err error) error {
	if errors.Is(err, errSilent) || desk.ErrorCode(err) == desk.NotFound {
		return nil
	}
	return err
}
