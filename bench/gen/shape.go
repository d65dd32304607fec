package gen

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Shape is how big a generated desk is. Every count is exact: a desk of a
// shape holds exactly that many rows of each kind.
type Shape struct {
	// Name identifies the shape in cache folders and reports.
	Name string `json:"name"`
	// Projects is the number of projects (at most len(projectNames)).
	Projects int `json:"projects"`
	// Issues is the number of issues over all projects.
	Issues int `json:"issues"`
	// MainIssues of them are in the main project, slug "mygame".
	MainIssues int `json:"main_issues"`
	// Comments is the number of comments over all issues.
	Comments int `json:"comments"`
	// RichComments is the number of comments of the busiest issue, which
	// also has the most attachments: the issue a detail benchmark opens.
	RichComments int `json:"rich_comments"`
	// Attachments is the number of attached files (real, tiny images).
	Attachments int `json:"attachments"`
	// Activity is the number of timeline entries other than comments.
	Activity int `json:"activity"`
	// Handoffs is the number of handoff versions over all projects.
	Handoffs int `json:"handoffs"`
}

// PairDesk is the shape of the desk Pair Desk's published load figures were
// measured on: 9 projects, 2,737 issues (2,055 in one project), 20,876
// comments (531 on one issue), 6,228 attachments, 38,053 activity entries
// and 177 handoff versions.
var PairDesk = Shape{
	Name: "pairdesk", Projects: 9, Issues: 2737, MainIssues: 2055, Comments: 20876, RichComments: 531,
	Attachments: 6228, Activity: 38053, Handoffs: 177,
}

// Core is the shape of the store's own benchmarks: 2,000 issues, 20,000
// comments, 40,000 activity entries and 200 handoff versions, with one
// issue of 500 comments.
var Core = Shape{
	Name: "core", Projects: 9, Issues: 2000, MainIssues: 1500, Comments: 20000, RichComments: 500,
	Attachments: 4500, Activity: 40000, Handoffs: 200,
}

// Large is the PairDesk shape grown to 100,000 issues and 1,000,000
// comments, the size the scaled targets are set for.
var Large = func() Shape {
	s := PairDesk.Scale(100000.0 / float64(PairDesk.Issues))
	s.Name, s.Issues, s.Comments = "large", 100000, 1000000
	s.MainIssues = int(math.Round(100000 * float64(PairDesk.MainIssues) / float64(PairDesk.Issues)))
	return s
}()

// Shapes are the named shapes, for command lines.
var Shapes = map[string]Shape{"pairdesk": PairDesk, "core": Core, "large": Large}

// Scale multiplies every count but the projects and the busiest issue's
// comments by x. Scale(1) is the shape itself.
func (s Shape) Scale(x float64) Shape {
	if x == 1 {
		return s
	}
	m := func(n int) int { return int(math.Round(float64(n) * x)) }
	out := s
	out.Name = s.Name + "-x" + strings.TrimRight(strings.TrimRight(strconv.FormatFloat(x, 'f', 3, 64), "0"), ".")
	out.Issues, out.MainIssues, out.Comments = m(s.Issues), m(s.MainIssues), m(s.Comments)
	out.Attachments, out.Activity, out.Handoffs = m(s.Attachments), m(s.Activity), m(s.Handoffs)
	return out
}

// Validate reports a shape the generator cannot honour exactly.
func (s Shape) Validate() error {
	switch {
	case s.Name == "" || strings.ContainsAny(s.Name, `/\ `):
		return fmt.Errorf("shape: name %q must be a plain word", s.Name)
	case s.Projects < 1 || s.Projects > len(projectNames):
		return fmt.Errorf("shape %s: projects must be 1 to %d", s.Name, len(projectNames))
	case s.Issues < 20*s.Projects:
		return fmt.Errorf("shape %s: at least 20 issues per project", s.Name)
	case s.MainIssues < 1 || s.MainIssues > s.Issues || (s.Projects > 1 && s.MainIssues > s.Issues-(s.Projects-1)*10):
		return fmt.Errorf("shape %s: main_issues must leave at least 10 issues to every other project", s.Name)
	case s.RichComments < 1 || s.Comments < s.RichComments+s.Issues/2:
		return fmt.Errorf("shape %s: comments must be at least rich_comments plus half the issues", s.Name)
	case s.Activity < 6*s.Issues:
		return fmt.Errorf("shape %s: activity must be at least 6 per issue", s.Name)
	case s.Attachments < 0:
		return fmt.Errorf("shape %s: attachments must not be negative", s.Name)
	case s.Handoffs < s.Projects:
		return fmt.Errorf("shape %s: at least one handoff version per project", s.Name)
	}
	return nil
}
