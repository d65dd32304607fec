package agent

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// TranscriptFormat tells the Watcher where a client keeps its session
// transcripts and how to read them.
type TranscriptFormat struct {
	// Dirs lists the folders, under the user's home, whose *.jsonl files may
	// hold sessions active at now. It may read the disk (to list project
	// folders) and returns folders that do not exist without complaint.
	Dirs func(home string, now time.Time) []string
	// Parser returns a parser for one transcript file.
	Parser func(path string) TranscriptParser
}

// TranscriptParser reads one transcript file's records in order and keeps
// what one record teaches it for the next (the session id, the folder).
type TranscriptParser interface {
	// Parse maps one record (one line, no newline) to events. Records that
	// say nothing about state give none; an error means the line is not a
	// record at all.
	Parse(line []byte) ([]Event, error)
}

// Watcher follows the transcripts of every registered client that has them,
// for sessions whose hooks are not installed. It adopts a transcript when
// it was written to recently, reads only the bytes appended since the
// previous poll, and returns Events with Source transcript for a Tracker to
// apply (which drops them for sessions whose hooks report). A Watcher is
// for one goroutine.
type Watcher struct {
	Home        string           // the user's home folder
	Now         func() time.Time // the clock
	AdoptWithin time.Duration    // a transcript written to this recently is adopted, and one quiet longer dropped
	ScanEvery   time.Duration    // how often the folders are listed for new transcripts
	ReadMax     int              // bytes read per transcript per poll, so that a huge backlog cannot stall a poll
	Backlog     int64            // bytes read back from the end of a transcript when it is adopted

	// Malformed counts lines that were not records; Skipped lines over MaxLine.
	Malformed, Skipped int

	formats  []namedFormat
	tails    map[string]*watched
	offsets  map[string]int64 // where dropped transcripts were left, to resume there
	lastScan time.Time
}

type namedFormat struct {
	client string
	*TranscriptFormat
}

type watched struct {
	client string
	tail   *Tail
	parser TranscriptParser
}

// NewWatcher returns a Watcher of the transcripts under home of every
// client registered with a TranscriptFormat, with the reference's timings:
// adopt what was written in the last 10 minutes, list folders every 3
// seconds, read at most 64 KB per file per poll, 256 KB back on adoption.
func NewWatcher(home string) *Watcher {
	w := &Watcher{
		Home: home, Now: time.Now,
		AdoptWithin: 10 * time.Minute, ScanEvery: 3 * time.Second,
		ReadMax: 64 << 10, Backlog: 256 << 10,
		tails: map[string]*watched{}, offsets: map[string]int64{},
	}
	for _, name := range Clients() {
		if c, _ := Lookup(name); c.Transcripts != nil {
			w.formats = append(w.formats, namedFormat{name, c.Transcripts})
		}
	}
	return w
}

// Poll lists the transcript folders when a scan is due, then reads what each
// followed transcript gained. Call it every half second or so. Its error
// joins the I/O errors of this poll; the events it returns are good either
// way.
func (w *Watcher) Poll() ([]Event, error) {
	now := w.Now()
	var errs []error
	if w.lastScan.IsZero() || now.Sub(w.lastScan) >= w.ScanEvery {
		w.lastScan = now
		errs = append(errs, w.scan(now)...)
	}
	var out []Event
	paths := make([]string, 0, len(w.tails))
	for p := range w.tails {
		paths = append(paths, p)
	}
	slices.Sort(paths) // a stable order keeps tests and logs repeatable
	for _, p := range paths {
		wt := w.tails[p]
		skipped := wt.tail.Skipped
		lines, err := wt.tail.Read(w.ReadMax)
		w.Skipped += wt.tail.Skipped - skipped
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			delete(w.tails, p)
			continue
		}
		for _, line := range lines {
			evs, err := wt.parser.Parse(line)
			if err != nil {
				w.Malformed++
				continue
			}
			for _, e := range evs {
				e.Client, e.Source = wt.client, SourceTranscript
				if e.Transcript == "" {
					e.Transcript = p
				}
				out = append(out, e)
			}
		}
		if len(lines) == 0 && now.Sub(wt.tail.ModTime) > w.AdoptWithin {
			w.remember(p, wt.tail.Offset)
			delete(w.tails, p)
		}
	}
	return out, errors.Join(errs...)
}

// scan adopts transcripts written to within AdoptWithin.
func (w *Watcher) scan(now time.Time) []error {
	var errs []error
	for _, f := range w.formats {
		for _, dir := range f.Dirs(w.Home, now) {
			entries, err := os.ReadDir(dir)
			if err != nil {
				if !errors.Is(err, fs.ErrNotExist) {
					errs = append(errs, err)
				}
				continue
			}
			for _, e := range entries {
				if e.IsDir() || !strings.HasSuffix(e.Name(), ".jsonl") {
					continue
				}
				p := filepath.Join(dir, e.Name())
				if w.tails[p] != nil {
					continue
				}
				info, err := e.Info()
				if err != nil || now.Sub(info.ModTime()) > w.AdoptWithin {
					continue
				}
				off, seen := w.offsets[p]
				if !seen {
					off = max(0, info.Size()-w.Backlog)
				}
				w.tails[p] = &watched{client: f.client, tail: NewTail(p, off), parser: f.Parser(p)}
			}
		}
	}
	return errs
}

// remember keeps where a dropped transcript was left; the map is bounded by
// starting over, which at worst re-reads a backlog.
func (w *Watcher) remember(path string, off int64) {
	if len(w.offsets) >= 4096 {
		clear(w.offsets)
	}
	w.offsets[path] = off
}

// Watching returns the transcripts followed now, for diagnostics.
func (w *Watcher) Watching() []string {
	out := make([]string, 0, len(w.tails))
	for p := range w.tails {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}
