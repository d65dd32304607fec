package gen

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"time"

	"desk"
	"desk/sqlite"
)

// write stores the model in the empty data folder dir through the store's
// bulk load: one transaction, every issue first, then every timeline row
// in time order (so row ids follow time, as on a desk in use), and the
// search index built once at the end. The store's clock is held at the
// generated "now" and file names come from the seed, so the folder is the
// same byte for byte every time.
func (m *model) write(ctx context.Context, dir string) error {
	// A cache that holds the whole load keeps one large transaction from
	// writing pages twice.
	db, err := sqlite.Open(ctx, dir, sqlite.Options{CacheKiB: 1 << 20})
	if err != nil {
		return err
	}
	db.Now = func() time.Time { return time.UnixMilli(deskEnd).UTC() }
	_, err = db.Load(ctx, sqlite.LoadOptions{RebuildSearchIndex: true, Names: newRNG(m.seed, 0x66696c65)}, func(l *sqlite.Loader) error {
		w := &writer{l: l, ids: map[*project]int64{}}
		if err := w.projects(m); err != nil {
			return err
		}
		if err := w.issues(m.issues); err != nil {
			return err
		}
		for _, e := range m.events {
			if err := w.event(e); err != nil {
				return err
			}
		}
		return nil
	})
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	return err
}

// Read fills p with the generator's bytes, so that an rng can stand in
// for crypto/rand where a load draws names.
func (r *rng) Read(p []byte) (int, error) {
	var b [8]byte
	for i := 0; i < len(p); i += 8 {
		binary.LittleEndian.PutUint64(b[:], r.next())
		copy(p[i:], b[:])
	}
	return len(p), nil
}

// writer turns the model's rows into the loader's calls.
type writer struct {
	l   *sqlite.Loader
	ids map[*project]int64
}

func jsonText(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only plain values are generated
	}
	return b
}

func keyOf(is *issue) *string {
	if is == nil {
		return nil
	}
	k := is.key()
	return &k
}

func (w *writer) projects(m *model) error {
	for _, p := range m.projects {
		lp := sqlite.LoadProject{Project: desk.Project{Slug: p.slug, Name: p.name, Prefix: p.prefix,
			CreatedAt: stamp(p.created), DefaultSeed: p.defaultSeed, BuildsEnabled: p.builds}}
		if p.lead != "" {
			lead := p.lead
			lp.Lead = &lead
		}
		if n := p.buildAt(deskEnd); n > 0 {
			lp.Build, lp.BuildsCount = p.build(n), n
		}
		id, err := w.l.Project(lp)
		if err != nil {
			return err
		}
		w.ids[p] = id
	}
	return nil
}

func (w *writer) issues(issues []*issue) error {
	for _, is := range issues {
		d := &desk.Issue{
			Number: is.number, Title: is.title, Body: is.body, Kind: is.kind, Status: is.status, Priority: is.priority,
			Area: is.areaName, Tags: is.tags, Location: is.loc, Source: is.source, ExternalRef: is.externalRef,
			Size: is.size, Milestone: is.milestone, Build: is.build, Plan: is.plan,
			CreatedAt: stamp(is.created), UpdatedAt: stamp(is.updated),
			Parent: keyOf(is.parent), MergedInto: keyOf(is.merged),
		}
		if is.closed != 0 {
			c := stamp(is.closed)
			d.ClosedAt = &c
		}
		id, err := w.l.Issue(w.ids[is.proj], d)
		if err != nil {
			return err
		}
		if id != is.rowid {
			// Handoff texts and merge details were written with these ids.
			return desk.Errorf(desk.Internal, "issue %s got row %d, not %d: load into an empty desk", is.key(), id, is.rowid)
		}
	}
	return nil
}

// event writes one timeline row with its files and its game command.
func (w *writer) event(e *event) error {
	ts := stamp(e.at)
	if e.kind == evHandoff {
		_, err := w.l.Handoff(w.ids[e.proj], &desk.Handoff{Version: e.ver, Markdown: e.text, Author: e.actor, Note: e.note, CreatedAt: ts})
		return err
	}
	from := keyOf(e.from)
	if e.kind == evComment {
		c := &desk.Comment{Author: e.actor, Text: e.text, CreatedAt: ts, MergedFrom: from}
		if e.verdict != "" {
			v := e.verdict
			c.Verdict = &v
		}
		id, err := w.l.Comment(e.on.rowid, c)
		if err != nil {
			return err
		}
		for _, f := range e.files {
			if err := w.file(e, f, &id); err != nil {
				return err
			}
		}
		return nil
	}
	for _, f := range e.files {
		if err := w.file(e, f, nil); err != nil {
			return err
		}
		e.detail["attachment"] = f.rowid
	}
	if c := e.cmd; c != nil {
		if e.action == desk.ActCommandSent {
			in := &desk.Command{Command: c.text, CreatedBy: e.actor, CreatedAt: ts}
			if c.delivered != 0 {
				at, client := stamp(c.delivered), c.client
				in.DeliveredAt, in.Client = &at, &client
			}
			id, err := w.l.Command(w.ids[e.on.proj], e.on.rowid, in)
			if err != nil {
				return err
			}
			c.rowid = id
		}
		e.detail["command_id"] = c.rowid
	}
	_, err := w.l.Activity(e.on.rowid, &desk.Activity{Actor: e.actor, Action: e.action, Detail: jsonText(e.detail), CreatedAt: ts, MergedFrom: from})
	return err
}

func (w *writer) file(e *event, f *file, commentID *int64) error {
	id, err := w.l.Attachment(e.on.rowid, &desk.Attachment{Filename: f.name, Mime: f.mime, CommentID: commentID,
		CreatedAt: stamp(e.at), MergedFrom: keyOf(e.from)}, bytes.NewReader(f.data))
	if err != nil {
		return err
	}
	f.rowid = id
	return nil
}
