package desk

import (
	"crypto/rand"
	"encoding/hex"
	"path/filepath"
	"strings"
	"time"
)

// The smaller rules every store shares: where an attachment's bytes go,
// what a timeline entry of a file or a command says, and the refusals of
// writes whose checks need the store's rows.

// AttachmentKey is the object key of a new attachment of project's,
// attached at now: attachments/<project>/<yyyy-mm>/<random><ext>, the
// layout of the data folder. The name is random, so that a key is never
// written twice.
func AttachmentKey(project string, now time.Time, filename string) (string, error) {
	var rnd [16]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return "", err
	}
	ext := strings.ToLower(filepath.Ext(filename))
	if len(ext) > 10 || strings.ContainsAny(ext, " /\\") {
		ext = ""
	}
	return "attachments/" + project + "/" + now.UTC().Format("2006-01") + "/" + hex.EncodeToString(rnd[:]) + ext, nil
}

// AttachedDetail is the detail of an "attached" timeline entry;
// DetachedDetail of a "detached" one.
func AttachedDetail(filename string, id int64) map[string]any {
	return map[string]any{"filename": filename, "attachment": id}
}

// DetachedDetail is the detail of a "detached" timeline entry.
func DetachedDetail(filename string) map[string]any { return map[string]any{"filename": filename} }

// CommandSentDetail is the detail of a "command_sent" timeline entry.
func CommandSentDetail(command string, id int64) map[string]any {
	return map[string]any{"command": command, "command_id": id}
}

// CommandDeliveredDetail is the detail of a "command_delivered" entry.
func CommandDeliveredDetail(command string, id int64, client string) map[string]any {
	return map[string]any{"command": command, "command_id": id, "client": client}
}

// SeedBackfillDetail is the detail of the "edited" entry of an issue that
// BackfillSeed gave the project's default seed.
func SeedBackfillDetail(seed int64) map[string]any {
	return map[string]any{"fields": []string{"seed"}, "changes": map[string]any{"seed": map[string]any{"from": nil, "to": seed}}}
}

// NeedsDefaultSeed reports whether BackfillSeed gives is the project's
// default seed: an agent's issue or a check that has no seed.
func NeedsDefaultSeed(is *Issue) bool {
	return is.Location.Seed == nil && (is.Source == SourceAgent || is.Kind == KindCheck)
}

// ErrNoDefaultSeed refuses a backfill on a project without a default seed.
func ErrNoDefaultSeed(slug string) error {
	return Errorf(Invalid, "project %s has no default seed: set one with --default-seed first", slug)
}

// ErrHoldsMerged refuses to delete an issue that n issues are merged into.
func ErrHoldsMerged(id string, n int) error {
	return Errorf(Conflict, "%s holds %d merged issue(s): unmerge them first", id, n)
}

// ErrNoFiles refuses an attachment call without a file.
var ErrNoFiles = Errorf(Invalid, "attachments: no file given")

// ErrNoComment refuses files for a comment the issue does not have.
func ErrNoComment(id int64, issue string) error {
	return Errorf(NotFound, "comment_id: no comment %d on %s", id, issue)
}

// ErrSlugTaken and ErrPrefixTaken refuse a project whose slug or prefix
// another one has.
func ErrSlugTaken(slug string) error { return Errorf(Conflict, "a project %q exists already", slug) }

// ErrPrefixTaken refuses a project whose prefix another one has.
func ErrPrefixTaken(prefix string) error {
	return Errorf(Conflict, "prefix %s is taken by another project; choose another with --prefix", prefix)
}

// NormalizeProjectName checks a project's new name.
func NormalizeProjectName(name string) (string, error) {
	name = CollapseSpace(name)
	if name == "" || len(name) > MaxName {
		return "", Errorf(Invalid, "name: must be 1 to %d characters", MaxName)
	}
	return name, nil
}

// DeletedChange is the feed row of a deleted issue.
func DeletedChange(is *Issue, actor string) Change {
	key := is.ID
	return Change{Project: is.Project, Issue: &key, Type: ChangeIssue, Action: "deleted", Actor: CleanActor(actor, OwnerActor)}
}
