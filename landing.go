package desk

import (
	"encoding/json"
	"strconv"
)

// ActLanded is the timeline entry an issue gets when a change that names
// it in its intents lands on main.
const ActLanded = "landed"

// Landing is a change landed on main for an issue, as the issue lists it.
// It is also the detail of the "landed" timeline entry.
type Landing struct {
	Repo      string `json:"repo"`      // owner/name
	Seq       int64  `json:"seq"`       // the landing's number in the repository's log
	Change    string `json:"change"`    // the change main moved to
	Submitted string `json:"submitted"` // the change its author sent
	Rebased   bool   `json:"rebased"`   // the landing made a new change on a moved main
	Message   string `json:"message"`   // the first line of the change's message
	Author    string `json:"author"`
	LandedBy  string `json:"landed_by"`
	LandedAt  string `json:"landed_at"`
}

// ChangeCode is the feed row of the code of a repository, its project the
// project the repository is linked to: a landing on main (action
// ActLanded, its ID the landing's number in the repository's log) or an
// open change a work folder sent (action ActSent, its ID the repository's
// row).
const ChangeCode = "code"

// ActSent is the action of the feed row of an open change a work folder
// sent: the overlaps of its repository may have changed.
const ActSent = "sent"

// LandingsOf returns the landings an issue's timeline records, oldest
// first: never nil, so an issue with none lists [].
func LandingsOf(acts []*Activity) []Landing {
	out := []Landing{}
	for _, a := range acts {
		if a.Action != ActLanded {
			continue
		}
		var l Landing
		if json.Unmarshal(a.Detail, &l) == nil {
			out = append(out, l)
		}
	}
	return out
}

// appendJSON appends the landing as encoding/json writes it.
func (l *Landing) appendJSON(b []byte) []byte {
	b = append(b, `{"repo":`...)
	b = appendString(b, l.Repo)
	b = append(b, `,"seq":`...)
	b = strconv.AppendInt(b, l.Seq, 10)
	b = appendField(b, "change", l.Change)
	b = appendField(b, "submitted", l.Submitted)
	b = append(b, `,"rebased":`...)
	b = strconv.AppendBool(b, l.Rebased)
	b = appendField(b, "message", l.Message)
	b = appendField(b, "author", l.Author)
	b = appendField(b, "landed_by", l.LandedBy)
	b = appendField(b, "landed_at", l.LandedAt)
	return append(b, '}')
}
