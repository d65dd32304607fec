package code

import (
	"strings"

	"desk"
)

// ChangeColumns are the columns of a change's row that ScanChange reads,
// in its order, as every store's code tables name them (c is the table of
// changes).
const ChangeColumns = `c.id, c.tree, c.parents, c.author, c.time, c.message, c.intents, c.generation`

// LogColumns are the columns of a log entry that ScanLog reads after
// ChangeColumns (l is the log).
const LogColumns = `l.seq, l.change, l.submitted, l.rebased, l.landed_by, l.landed_at`

// Scanner is a row of a query: database/sql's and pgx's alike.
type Scanner interface{ Scan(dest ...any) error }

// ScanChange reads a change's row in the order of ChangeColumns, then the
// extra columns after it into extra.
func ScanChange(sc Scanner, extra ...any) (*ChangeRow, error) {
	var (
		r                 ChangeRow
		id, tree, parents []byte
		at, intents       string
	)
	if err := sc.Scan(append([]any{&id, &tree, &parents, &r.Author, &at, &r.Message, &intents, &r.Generation}, extra...)...); err != nil {
		return nil, err
	}
	r.ID, r.Tree = IDOf(id), IDOf(tree)
	for len(parents) >= len(ID{}) {
		r.Parents = append(r.Parents, IDOf(parents[:len(ID{})]))
		parents = parents[len(ID{}):]
	}
	r.Time, _ = desk.ParseTime(at)
	r.Intents = []string{}
	if intents != "" {
		r.Intents = strings.Split(intents, " ")
	}
	return &r, nil
}

// ScanLog reads a log entry in the order of ChangeColumns and LogColumns.
func ScanLog(sc Scanner) (*LogEntry, error) {
	var (
		e                 LogEntry
		change, submitted []byte
		at                string
	)
	row, err := ScanChange(sc, &e.Seq, &change, &submitted, &e.Rebased, &e.LandedBy, &at)
	if err != nil {
		return nil, err
	}
	e.Row = *row
	e.Change, e.Submitted = IDOf(change), IDOf(submitted)
	e.LandedAt, _ = desk.ParseTime(at)
	return &e, nil
}

// IDOf is the id a column holds as its 32 bytes.
func IDOf(b []byte) ID {
	var id ID
	copy(id[:], b)
	return id
}

// Landing is what the issues a landed change names get in their
// timelines: the repository, the log number, the change and the first
// line of its message.
func (e *LogEntry) Landing(repo *Repo) desk.Landing {
	return desk.Landing{
		Repo: repo.Slug(), Seq: e.Seq, Change: e.Change.String(), Submitted: e.Submitted.String(), Rebased: e.Rebased,
		Message: firstLine(e.Row.Message), Author: e.Row.Author, LandedBy: e.LandedBy, LandedAt: desk.FormatTime(e.LandedAt),
	}
}

func firstLine(s string) string {
	s = strings.TrimLeft(s, "\n")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
