package desk

import (
	"fmt"
	"strings"
)

// IssueDefaults is a rule for the fields a new issue takes when whoever
// files it leaves them out. DefaultIssue is the rule of every surface; MCP's
// create_issue and import_checks file under AgentIssue instead.
type IssueDefaults struct {
	// Kind and Priority are taken when the filer names none.
	Kind, Priority string
	// Source is taken when the filer names none and is not the owner or
	// the game; the owner's issues are the owner's, the game's the game's.
	Source string
	// Status is the first status of every kind but a check.
	Status string
	// CheckStatus is the first status of a check, unless the game files
	// it: a game's check is a report like any other and starts in Status.
	CheckStatus string
}

// DefaultIssue is the store's rule for a new issue, the data model's defaults:
// a bug at p2 that starts reported, or a check that waits for the owner.
// The CLI, HTTP and the importers file under it; NewIssue applies it.
var DefaultIssue = IssueDefaults{
	Kind: KindBug, Priority: "p2", Source: SourceAgent,
	Status: StatusReported, CheckStatus: StatusToCheck,
}

// AgentIssue is the rule for an issue an agent files through MCP: by
// default a check for the owner, from source agent, and any other kind of
// work already open.
var AgentIssue = IssueDefaults{
	Kind: KindCheck, Priority: "p2", Source: SourceAgent,
	Status: StatusOpen, CheckStatus: StatusToCheck,
}

// SourceFor gives the source of a new issue that names none, filed by
// author.
func (d IssueDefaults) SourceFor(author string) string {
	switch {
	case IsOwner(author):
		return SourceOwner
	case strings.EqualFold(strings.TrimSpace(author), SourceGame):
		return SourceGame
	}
	return d.Source
}

// StatusFor gives the first status of a new issue that names none. A check
// that would go to the owner (to_check) but that author, who is not the
// owner, cannot hand over yet (see HandoverProblem) starts in auto_check
// instead, where its author verifies it first.
func (d IssueDefaults) StatusFor(is *Issue, p *Project, author string) string {
	status := d.Status
	if is.Kind == KindCheck && is.Source != SourceGame {
		status = d.CheckStatus
	}
	if status == StatusToCheck && !IsOwner(author) && HandoverProblem(is, p) != nil {
		return StatusAutoCheck
	}
	return status
}

// StatusHelp describes the first-status half of the rule in one line, for
// help texts: what StatusFor decides.
func (d IssueDefaults) StatusHelp() string {
	s := d.Status
	if d.CheckStatus != d.Status {
		s += fmt.Sprintf("; %s for a %s not from the %s", d.CheckStatus, KindCheck, SourceGame)
		if d.CheckStatus == StatusToCheck {
			s += fmt.Sprintf(", %s while anyone but the %s cannot hand it over yet", StatusAutoCheck, OwnerActor)
		}
	}
	return s
}
