package desk

import (
	"strconv"
	"strings"
	"time"
)

// The rules of comments, handoffs, builds and game commands, shared by
// every store.

// NormalizeComment checks a new comment: who may give its verdict, its
// length, and that it says something.
func NormalizeComment(in *CommentInput) error {
	if err := CheckAuthor(in.Author); err != nil {
		return err
	}
	in.Author = CleanActor(in.Author, OwnerActor)
	in.Verdict = strings.ToLower(strings.TrimSpace(in.Verdict))
	if err := CheckVerdict(in.Author, in.Verdict); err != nil {
		return err
	}
	if len(in.Text) > MaxCommentText {
		return Errorf(Invalid, "text: longer than %d characters", MaxCommentText)
	}
	if strings.TrimSpace(in.Text) == "" && in.Verdict == "" && len(in.Attachments) == 0 {
		return Errorf(Invalid, "text: a comment needs text, a verdict or an attachment")
	}
	return nil
}

// CommentAction is the feed action of a comment: "verdict" for one with a
// verdict, else "comment".
func CommentAction(verdict string) string {
	if verdict != "" {
		return "verdict"
	}
	return "comment"
}

// VerdictStatus is the status a verdict moves an issue in status to ("":
// none, it is there already); the move's reason is ReasonVerdict.
func VerdictStatus(status, verdict string) string {
	if verdict == "" || status == verdict {
		return ""
	}
	return verdict
}

// CheckAttachments cleans the files' names, decides their types from their
// bytes and enforces the size cap.
func CheckAttachments(files []AttachmentInput, limit int) ([]AttachmentInput, error) {
	out := make([]AttachmentInput, len(files))
	for i, f := range files {
		if len(f.Data) == 0 {
			return nil, Errorf(Invalid, "attachments[%d]: the file %q is empty", i, f.Filename)
		}
		if len(f.Data) > limit {
			return nil, Errorf(Invalid, "attachments[%d]: %q is %d bytes; the limit is %d MB", i, f.Filename, len(f.Data), limit>>20)
		}
		f.Filename = CleanFilename(f.Filename)
		f.Mime = AttachmentMime(f.Filename, f.Mime, f.Data)
		out[i] = f
	}
	return out, nil
}

// AttachmentURL is where the API serves an attachment's bytes.
func AttachmentURL(id int64) string { return "/api/attachments/" + strconv.FormatInt(id, 10) }

// NormalizeHandoffNote checks a handoff version's note.
func NormalizeHandoffNote(note string) (string, error) {
	note = strings.TrimSpace(note)
	if len(note) > MaxHandoffNote {
		return "", Errorf(Invalid, "note: longer than %d characters", MaxHandoffNote)
	}
	return note, nil
}

// NextHandoff decides the text of a new handoff version from the latest
// one's: the edit's result, with its line ends made plain and checked. It
// reports false when the text is the latest's, and no version is saved.
func NextHandoff(latest string, edit func(string) (string, error)) (string, bool, error) {
	md, err := edit(latest)
	if err != nil {
		return "", false, err
	}
	md = strings.ReplaceAll(md, "\r\n", "\n")
	if strings.TrimSpace(md) == "" {
		return "", false, Errorf(Invalid, "markdown: the handoff is empty; write its sections (%s)", strings.Join(HandoffSections, ", "))
	}
	if len(md) > MaxHandoff {
		return "", false, Errorf(Invalid, "markdown: longer than %d characters", MaxHandoff)
	}
	return md, md != latest, nil
}

// HandoffSectionEdit returns the edit, for NextHandoff, that replaces one
// section, and the note of the version it makes.
func HandoffSectionEdit(section, text string) (edit func(string) (string, error), note string, err error) {
	name, err := CanonicalSection(section)
	if err != nil {
		return nil, "", err
	}
	return func(old string) (string, error) { return ReplaceHandoffSection(old, name, text) }, "updated " + name, nil
}

// HandoffDiffRange decides the versions a diff compares: to 0 is the
// latest; from 0 is the one before to. latest is the newest version (0:
// none yet).
func HandoffDiffRange(slug string, from, to, latest int) (int, int, error) {
	if to == 0 {
		to = latest
	}
	if to == 0 {
		return 0, 0, Errorf(NotFound, "%s has no handoff yet", slug)
	}
	if from == 0 {
		from = to - 1
	}
	return from, to, nil
}

// NormalizeBuildInput checks a build publication.
func NormalizeBuildInput(in *BuildInput) error {
	in.Path = strings.TrimSpace(in.Path)
	in.Commit = strings.TrimSpace(in.Commit)
	in.Label = CollapseSpace(in.Label)
	in.Author = CleanActor(in.Author, OwnerActor)
	switch {
	case in.Path == "":
		return Errorf(Invalid, "path: required; the player executable, build folder or version the owner plays")
	case len(in.Path) > MaxBuildPath:
		return Errorf(Invalid, "path: longer than %d characters", MaxBuildPath)
	case len(in.Commit) > MaxCommit:
		return Errorf(Invalid, "commit: longer than %d characters", MaxCommit)
	case len(in.Label) > MaxBuildLabel:
		return Errorf(Invalid, "label: longer than %d characters", MaxBuildLabel)
	}
	if in.BuiltAt != "" {
		t, err := ParseTime(in.BuiltAt)
		if err != nil {
			return Errorf(Invalid, "built_at: %s", ErrorMessage(err))
		}
		in.BuiltAt = FormatTime(t)
	}
	return nil
}

// SameBuild reports whether publishing in would publish cur again.
func SameBuild(cur *Build, in BuildInput) bool {
	return cur != nil && cur.Path == in.Path && cur.Commit == in.Commit &&
		(in.Label == "" || cur.Label == in.Label) && (in.BuiltAt == "" || cur.BuiltAt == in.BuiltAt)
}

// NewBuild is the build that in publishes as the project's count-th+1.
func NewBuild(in BuildInput, count int, now string) *Build {
	b := &Build{Number: count + 1, Label: in.Label, Path: in.Path, Commit: in.Commit, BuiltAt: in.BuiltAt, SetAt: now, SetBy: in.Author}
	if b.Label == "" {
		b.Label = "build " + strconv.Itoa(b.Number)
	}
	if b.BuiltAt == "" {
		b.BuiltAt = now
	}
	return b
}

// NeedsBuildStamp reports whether an issue waiting in to_check gets build b
// stamped (it has not got it yet).
func NeedsBuildStamp(is *Issue, b *Build) bool {
	return is.Build == nil || is.Build.Number != b.Number
}

// BuildStampDetail is the detail of the "build" timeline entry of an issue
// stamped with b; previous is the build that was current before.
func BuildStampDetail(b *Build, previous *BuildRef) map[string]any {
	detail := map[string]any{"label": b.Label, "number": b.Number, "path": b.Path}
	if b.Commit != "" {
		detail["commit"] = b.Commit
	}
	if previous != nil {
		detail["previous"] = previous.Label
	}
	return detail
}

// ErrNoBuilds refuses to clear the build of a project that publishes none.
func ErrNoBuilds(slug string) error {
	return Errorf(Conflict, "%s publishes no builds; nothing to clear", slug)
}

// NormalizeCommandInput checks a command to queue.
func NormalizeCommandInput(in *CommandInput) error {
	in.Author = CleanActor(in.Author, OwnerActor)
	in.Command = strings.TrimSpace(in.Command)
	if len(in.Command) > MaxCommand {
		return Errorf(Invalid, "command: longer than %d characters", MaxCommand)
	}
	return nil
}

// CheckCommandProject refuses an issue's command queued for another project
// (slug "" takes the issue's).
func CheckCommandProject(is *Issue, slug string) error {
	if slug != "" && is.Project != slug {
		return Errorf(Invalid, "issue: %s belongs to project %s, not %s", is.ID, is.Project, slug)
	}
	return nil
}

// CommandText decides the text a queued command sends: in's own, or the
// issue's command number in.At (the first by default) with its seed.
func CommandText(in CommandInput, is *Issue) (string, error) {
	if in.Command != "" {
		return in.Command, nil
	}
	if is == nil {
		return "", Errorf(Invalid, "command: give the command text, or an issue whose command to send")
	}
	cmds := is.Location.SeededCommands()
	if len(cmds) == 0 {
		return "", Errorf(Invalid, "%s has no location command to send; add one with set_location", is.ID)
	}
	at := in.At
	if at == 0 {
		at = 1
	}
	if at < 1 || at > len(cmds) {
		return "", Errorf(Invalid, "at: %s has commands 1 to %d", is.ID, len(cmds))
	}
	return cmds[at-1].Command, nil
}

// CommandExpiry is when a command queued at now stops waiting.
func CommandExpiry(now time.Time) string { return FormatTime(now.Add(CommandTTL)) }

// GameClient is the name of a game that picks up commands without naming
// itself.
const GameClient = "game"

// CommandsLimit bounds a list of recent commands (default 20, at most 200).
func CommandsLimit(limit int) int {
	if limit <= 0 {
		limit = 20
	}
	return min(limit, 200)
}

// ChangesLimit bounds a read of the feed (default 1000, at most 10,000).
func ChangesLimit(limit int) int {
	if limit <= 0 || limit > 10000 {
		return 1000
	}
	return limit
}
