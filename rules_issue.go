package desk

import (
	"encoding/json"
	"strings"
)

// The rules of an issue's writes, shared by every store: a store reads the
// issue and its project, calls these to decide what the write does, and
// persists the result with the timeline entries they describe. Nothing
// here touches storage.

// CleanActor trims an actor name, caps its length and falls back to def.
func CleanActor(actor, def string) string {
	actor = CollapseSpace(actor)
	if actor == "" {
		return def
	}
	// Cut at a character, not a byte, so that the name stays valid text.
	if n := 0; len(actor) > MaxAuthor {
		for i := range actor {
			if n == MaxAuthor {
				return actor[:i]
			}
			n++
		}
	}
	return actor
}

// NewIssue decides a new issue of project p from the fields given (which
// Normalize has checked): the defaults of what is left out, its world seed,
// its first status and the build it is stamped with. Number and the key
// come from number; the store sets the times and row links. It returns the
// issue and the detail of its "created" timeline entry.
func NewIssue(p *Project, number int, f IssueFields, author string, agent bool) (*Issue, map[string]any, error) {
	if f.Title == nil {
		return nil, nil, Errorf(Invalid, "title: required")
	}
	str := func(v *string, def string) string {
		if v == nil {
			return def
		}
		return *v
	}
	is := &Issue{Project: p.Slug, Number: number, ID: IssueKey(p.Prefix, number)}
	is.Title = *f.Title
	is.Body = str(f.Body, "")
	def := DefaultIssue
	if agent {
		def = AgentIssue
	}
	is.Kind = str(f.Kind, def.Kind)
	is.Priority = str(f.Priority, def.Priority)
	is.Source = str(f.Source, def.SourceFor(author))
	is.Area = str(f.Area, "")
	is.ExternalRef = str(f.ExternalRef, "")
	is.Size = str(f.Size, "")
	is.Milestone = str(f.Milestone, "")
	is.Tags = []string{}
	if f.Tags != nil {
		is.Tags = *f.Tags
	}
	is.Location = f.ApplyLocation(Location{})
	if is.Location.Seed == nil && f.Seed == nil && p.DefaultSeed != nil && (is.Source == SourceAgent || is.Kind == KindCheck) {
		// Agent issues and checks land in the owner's default world; game
		// reports keep what the game sent.
		is.Location.Seed = p.DefaultSeed
	}
	switch {
	case f.Status != nil:
		is.Status = *f.Status
		if err := CheckStatusChange(author, is.Status); err != nil {
			return nil, nil, err
		}
		if is.Status == StatusToCheck && !IsOwner(author) {
			if err := HandoverProblem(is, p); err != nil {
				return nil, nil, err
			}
		}
	default:
		is.Status = def.StatusFor(is, p, author)
	}
	if is.Status == StatusToCheck && p.Build != nil {
		is.Build = p.Build.Ref()
	}
	detail := map[string]any{"status": is.Status}
	if is.Build != nil {
		detail["build"] = is.Build.Label
	}
	return is, detail, nil
}

// IssueEdit is what an edit of an issue's fields changed: the names of the
// fields, in order, and the detail of its "edited" timeline entry (nil
// when nothing changed).
type IssueEdit struct {
	Fields          []string
	Detail          map[string]any
	LocationChanged bool
}

// EditIssue applies the fields of an edit (not its status or parent,
// which have rules of their own) to is and says what changed. The owner's
// original words are kept in the detail the first time an agent rewrites
// an owner's report; ownerOriginalKept says whether an earlier edit kept
// them already.
func EditIssue(is *Issue, f IssueFields, actor string, ownerOriginalKept func() (bool, error)) (*IssueEdit, error) {
	old := *is
	changes := map[string]any{}
	e := &IssueEdit{}
	change := func(name string, from, to any) {
		e.Fields = append(e.Fields, name)
		changes[name] = map[string]any{"from": from, "to": to}
	}
	setStr := func(name string, dst *string, v *string) {
		if v != nil && *v != *dst {
			change(name, *dst, *v)
			*dst = *v
		}
	}
	setStr("title", &is.Title, f.Title)
	setStr("body", &is.Body, f.Body)
	setStr("kind", &is.Kind, f.Kind)
	setStr("priority", &is.Priority, f.Priority)
	setStr("area", &is.Area, f.Area)
	setStr("source", &is.Source, f.Source)
	setStr("external_ref", &is.ExternalRef, f.ExternalRef)
	setStr("size", &is.Size, f.Size)
	setStr("milestone", &is.Milestone, f.Milestone)
	if f.Tags != nil && strings.Join(*f.Tags, "\x00") != strings.Join(is.Tags, "\x00") {
		change("tags", is.Tags, *f.Tags)
		is.Tags = *f.Tags
	}
	if f.TouchesLocation() {
		loc := f.ApplyLocation(is.Location)
		if JSONText(loc) != JSONText(is.Location) {
			change("location", is.Location, loc)
			is.Location = loc
			e.LocationChanged = true
		}
	}
	if len(e.Fields) == 0 {
		return e, nil
	}
	e.Detail = map[string]any{"fields": e.Fields, "changes": changes}
	if (f.Title != nil || f.Body != nil) && (changes["title"] != nil || changes["body"] != nil) &&
		!IsOwner(actor) && old.Source == SourceOwner {
		kept, err := ownerOriginalKept()
		if err != nil {
			return nil, err
		}
		if !kept {
			// The owner's own words stay readable after an agent
			// clarifies a terse report.
			e.Detail["owner_original"] = map[string]string{"title": old.Title, "body": old.Body}
		}
	}
	return e, nil
}

// OwnerOriginalMarker is text that only the detail of an edit that kept
// the owner's original words holds, for a store to look for.
const OwnerOriginalMarker = `"owner_original"`

// ChangeStatus applies every rule of a status change to is: only the owner
// passes; an agent hands over (to_check) only what the owner can check,
// unless reason says a rule moved it; reaching to_check stamps p's current
// build; done statuses set closed_at (now), kept from an earlier done one.
// It returns the detail of the "status" timeline entry.
func ChangeStatus(is *Issue, p *Project, to, actor, reason, now string) (map[string]any, error) {
	if err := CheckStatusChange(actor, to); err != nil {
		return nil, err
	}
	if to == StatusToCheck && !IsOwner(actor) && reason == "" {
		if err := HandoverProblem(is, p); err != nil {
			return nil, err
		}
	}
	from := is.Status
	detail := map[string]any{"from": from, "to": to}
	if reason != "" {
		detail["reason"] = reason
	}
	var closed *string
	if IsDone(to) {
		c := now
		if is.ClosedAt != nil && IsDone(from) {
			c = *is.ClosedAt
		}
		closed = &c
	}
	if to == StatusToCheck && p.Build != nil {
		is.Build = p.Build.Ref()
		detail["build"] = is.Build.Label
	}
	is.Status, is.ClosedAt = to, closed
	return detail, nil
}

// NormalizeStatus reads a status as a client sends it.
func NormalizeStatus(status string) (string, error) {
	status = strings.ToLower(strings.TrimSpace(status))
	return status, CheckEnum("status", status, Statuses)
}

// JSONText renders v as stored JSON text.
func JSONText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}
