package hook

import (
	"context"
	"path/filepath"
	"strings"

	"desk/code"
	"desk/code/folderstore"
	"desk/sqlite"
)

// workOverlaps returns the warning lines of the open changes of other work
// folders that touch the paths of this session's work folder's open
// change: what an agent must know before it edits those files again. A
// folder that is no work folder of this desk's repositories says nothing.
func workOverlaps(ctx context.Context, env *Env, in *Input, db *sqlite.DB) []string {
	w, _, err := code.FindWork(env.folder(in))
	if err != nil || w == nil || w.Repo == "" || w.Workspace == "" {
		return nil
	}
	if db == nil {
		if db, err = sqlite.OpenRead(ctx, env.DataDir, 1024); err != nil {
			return nil
		}
		defer db.Close()
	}
	// Open changes are rows alone: no object is read.
	svc := code.NewService(db.Code(), folderstore.New(filepath.Join(env.DataDir, "code")))
	owner, name, err := code.ParseSlug(w.Repo)
	if err != nil {
		return nil
	}
	repo, err := db.Code().Repo(ctx, owner, name)
	if err != nil {
		return nil
	}
	overlaps, err := svc.Repository(repo).OpenChangesOf(ctx, w.Workspace)
	if err != nil {
		return nil
	}
	var lines []string
	for _, o := range overlaps {
		lines = append(lines, o.Warning)
	}
	return lines
}

// withOverlaps adds the overlap warnings to a session-start reply.
func withOverlaps(r *Reply, lines []string) *Reply {
	if len(lines) == 0 {
		return r
	}
	text := "Open changes of other work folders touch the files of this folder's open change:\n" + strings.Join(lines, "\n")
	if r == nil {
		return &Reply{Event: eventSessionStart, Context: text}
	}
	if r.Context != "" {
		text = r.Context + "\n\n" + text
	}
	r.Context = text
	return r
}
