package gen

import (
	"time"

	"desk"
)

// The generated desk's history runs from deskStart to deskEnd; deskEnd is
// "now" for the generated data, so every game command has long expired or
// been delivered and every time is in the past. The clock is fixed: the
// same seed gives the same times.
var (
	deskStart = time.Date(2025, 3, 3, 8, 0, 0, 0, time.UTC).UnixMilli()
	deskEnd   = time.Date(2026, 2, 27, 18, 0, 0, 0, time.UTC).UnixMilli()
)

const (
	minute = int64(60 * 1000)
	hour   = 60 * minute
	day    = 24 * hour
)

func stamp(ms int64) string { return desk.FormatTime(time.UnixMilli(ms)) }

// project is a generated project.
type project struct {
	index              int
	slug, name, prefix string
	builds             bool
	buildEvery         int64 // ms between published builds
	defaultSeed        *int64
	lead               string
	created            int64
	issues             []*issue // in number order
	areas              []area
}

// buildAt is the build that was current at time t (0: none yet).
func (p *project) buildAt(t int64) int {
	if !p.builds || t < p.created+day {
		return 0
	}
	return int((t-p.created-day)/p.buildEvery) + 1
}

func (p *project) buildRef(n int) *desk.BuildRef {
	if n == 0 {
		return nil
	}
	b := p.build(n)
	return b.Ref()
}

func (p *project) build(n int) *desk.Build {
	at := p.created + day + int64(n-1)*p.buildEvery
	label := buildLabel(n)
	return &desk.Build{
		Number: n, Label: label,
		Path:    "/home/dev/builds/" + p.slug + "/" + label + "/" + p.name + ".x86_64",
		Commit:  hexOf(uint64(p.index)<<32|uint64(n), 10),
		BuiltAt: stamp(at - 20*minute), SetAt: stamp(at), SetBy: "claude",
	}
}

func buildLabel(n int) string {
	return "0." + itoa(4+n/60) + "." + itoa(n%60)
}

// issue is a generated issue with its final state.
type issue struct {
	proj   *project
	index  int   // creation order over the whole desk; row id - 1
	number int   // in its project
	rng    *rng  // its own stream
	rowid  int64 // index + 1

	title, body, kind, status, priority, areaName string
	subject, problem, context                     string
	tags                                          []string
	loc                                           desk.Location
	source, externalRef, size, milestone          string
	build                                         *desk.BuildRef
	plan                                          desk.Plan
	parent, merged                                *issue // merged: the target it was merged into

	created, updated, closed int64 // closed 0: not done

	rich bool // the busiest issue

	// Budgets and counts, filled in stages.
	issueAttachments int // files on the issue itself, each with an "attached" entry
	extraComments    int
	extraActivity    int
	storyComments    int
	storyActivity    int
}

// key returns the issue's id, e.g. MG-12.
func (is *issue) key() string { return desk.IssueKey(is.proj.prefix, is.number) }

// event kinds of the timeline.
type eventKind uint8

const (
	evComment eventKind = iota
	evActivity
	evHandoff
)

// event is one row of the timeline: a comment, an activity entry (with the
// attachment or game command it describes) or a handoff version.
type event struct {
	at   int64
	seq  int // the order events were made in, to break ties of at
	kind eventKind

	on   *issue // the issue the row belongs to now (a merge target for moved rows)
	from *issue // merged_from: the issue it was written on, when merged since

	actor   string
	text    string // comment text or handoff markdown
	verdict string
	action  string
	detail  map[string]any // activity detail; "@attachment" and "@command_id" are filled in when written

	files []*file  // a comment's files, or the one file of an "attached" entry
	cmd   *gameCmd // the command of command_sent and command_delivered
	proj  *project // handoffs
	note  string   // handoff note
	ver   int      // handoff version

	// glued events belong to the write of the event before them and share
	// its time (plus offset): a verdict's status change, a command's pickup.
	glued  bool
	offset int64

	planSet     bool   // a plan written whole
	planStep    int    // 1-based step of a plan entry
	buildStamp  bool   // a build published while the issue waited in to_check
	mergeSource bool   // the merged_into entry of a duplicate
	pair        *event // a command's pickup, placed right after its sending
}

// file is an attachment's bytes and name.
type file struct {
	name, mime string
	data       []byte
	rowid      int64 // set once written
}

// gameCmd is a command sent to the running game.
type gameCmd struct {
	text      string
	created   int64
	delivered int64 // 0: expired unanswered
	client    string
	rowid     int64 // set once written
}
