package desk

import (
	"strings"
	"unicode"
)

// Project is one game or app on the desk. Its issues are numbered with its
// prefix (MG-1, MG-2, ...); numbers are never reused.
type Project struct {
	Slug          string         `json:"slug"`
	Name          string         `json:"name"`
	Prefix        string         `json:"prefix"`
	CreatedAt     string         `json:"created_at"`
	IssueCount    int            `json:"issue_count"` // numbers handed out, deleted issues included
	DefaultSeed   *int64         `json:"default_seed"`
	Notify        Notify         `json:"notify"`
	Lead          *string        `json:"lead"`
	Build         *Build         `json:"build"`
	BuildsEnabled bool           `json:"builds_enabled"`
	Counts        map[string]int `json:"counts"` // issues by status, merged ones left out
}

// ProjectDetail is a project with what its overview shows.
type ProjectDetail struct {
	Project
	Areas      []string `json:"areas"` // most used first
	Tags       []string `json:"tags"`  // most used first
	LastChange string   `json:"last_change"`
}

// Notify chooses which owner events reach the project's agent sessions.
type Notify struct {
	Comments bool `json:"comments"`
	Verdicts bool `json:"verdicts"`
	Reports  bool `json:"reports"`
	Status   bool `json:"status"`
}

// DefaultNotify has every event on.
var DefaultNotify = Notify{true, true, true, true}

// Enabled reports whether event (one of NotifyEvents) is on.
func (n Notify) Enabled(event string) bool {
	switch event {
	case "comments":
		return n.Comments
	case "verdicts":
		return n.Verdicts
	case "reports":
		return n.Reports
	case "status":
		return n.Status
	}
	return false
}

// Names lists the events that are on, in NotifyEvents order.
func (n Notify) Names() []string {
	var out []string
	for _, e := range NotifyEvents {
		if n.Enabled(e) {
			out = append(out, e)
		}
	}
	return out
}

// ParseNotify reads a notify setting written as a comma separated list of
// event names, or "none" for no events.
func ParseNotify(s string) (Notify, error) {
	var n Notify
	s = strings.TrimSpace(strings.ToLower(s))
	if s == "none" || s == "" {
		return n, nil
	}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		switch part {
		case "comments":
			n.Comments = true
		case "verdicts":
			n.Verdicts = true
		case "reports":
			n.Reports = true
		case "status":
			n.Status = true
		default:
			return n, Errorf(Invalid, "notify: %q is not one of %s (or none)", part, strings.Join(NotifyEvents, ", "))
		}
	}
	return n, nil
}

// NewProject is the input that creates a project.
type NewProject struct {
	Slug   string
	Name   string
	Prefix string
}

// ProjectUpdate changes a project's settings; nil fields stay as they are.
type ProjectUpdate struct {
	Name        *string
	DefaultSeed **int64 // a nil *int64 clears the seed
	Notify      *NotifyPatch
	Lead        **string // a nil *string clears the lead
}

// NotifyPatch changes some notify events; nil fields stay as they are.
type NotifyPatch struct {
	Comments, Verdicts, Reports, Status *bool
}

// Apply returns n with the patch applied.
func (p NotifyPatch) Apply(n Notify) Notify {
	set := func(dst *bool, v *bool) {
		if v != nil {
			*dst = *v
		}
	}
	set(&n.Comments, p.Comments)
	set(&n.Verdicts, p.Verdicts)
	set(&n.Reports, p.Reports)
	set(&n.Status, p.Status)
	return n
}

var (
	slugPattern   = LazyRegexp(`^[a-z0-9][a-z0-9-]{0,39}$`)
	prefixPattern = LazyRegexp(`^[A-Z][A-Z0-9]{0,7}$`)
)

// ValidSlug reports whether slug is a project slug: 1-40 lower-case letters,
// digits or '-', starting with a letter or digit.
func ValidSlug(slug string) bool { return slugPattern().MatchString(slug) }

// Normalize fills the name and prefix a new project leaves out and checks
// every field.
func (p *NewProject) Normalize() error {
	p.Slug = strings.TrimSpace(p.Slug)
	p.Name = CollapseSpace(p.Name)
	p.Prefix = strings.ToUpper(strings.TrimSpace(p.Prefix))
	if !slugPattern().MatchString(p.Slug) {
		return Errorf(Invalid, "slug: %q must be 1-40 lower-case letters, digits or '-', starting with a letter or digit, e.g. mygame", p.Slug)
	}
	if p.Name == "" {
		p.Name = p.Slug
	}
	if len(p.Name) > MaxName {
		return Errorf(Invalid, "name: longer than %d characters", MaxName)
	}
	if p.Prefix == "" {
		p.Prefix = DefaultPrefix(p.Name, p.Slug)
	}
	if !prefixPattern().MatchString(p.Prefix) {
		return Errorf(Invalid, "prefix: %q must be 1-8 upper-case letters or digits, starting with a letter, e.g. MG", p.Prefix)
	}
	return nil
}

// DefaultPrefix derives a prefix from the first two letters or digits of the
// name (or of the slug when the name has none), starting with a letter.
func DefaultPrefix(name, slug string) string {
	pick := func(s string) string {
		var b strings.Builder
		for _, r := range s {
			if r > unicode.MaxASCII || !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
				continue
			}
			if b.Len() == 0 && !unicode.IsLetter(r) {
				continue
			}
			b.WriteRune(unicode.ToUpper(r))
			if b.Len() == 2 {
				break
			}
		}
		return b.String()
	}
	if p := pick(name); p != "" {
		return p
	}
	if p := pick(slug); p != "" {
		return p
	}
	return "P"
}

// ValidLead checks a lead client name; "" and "none" mean no lead.
func ValidLead(lead string) (string, error) {
	lead = strings.ToLower(strings.TrimSpace(lead))
	if lead == "" || lead == "none" {
		return "", nil
	}
	if lead == "opencode" {
		return "", Errorf(Invalid, "lead: opencode cannot lead, it reads the desk only at session start; pick one of %s", strings.Join(LeadClients, ", "))
	}
	if err := checkEnum("lead", lead, LeadClients); err != nil {
		return "", err
	}
	return lead, nil
}

// CollapseSpace trims s and folds every run of white space into one space.
func CollapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
