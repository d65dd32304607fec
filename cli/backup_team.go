package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"desk"
	"desk/backup"
	"desk/folder"
	"desk/office"
	"desk/postgres"
	"desk/sqlite"
	"desk/teammove"
)

// A team store's backup is the backup of the local desk it exports to,
// the same zip and manifest as the embedded desk's; its restore restores
// that desk into a scratch folder and moves it into the team store. So
// one format, one check and one restore serve both.

// openTeamStore opens the team store of --db and --objects (or the S3_
// variables) for a backup or a restore.
func openTeamStore(ctx context.Context, c *Context, dbURL, objects string) (*postgres.DB, error) {
	if objects == "" && c.Getenv("S3_BUCKET") == "" {
		return nil, desk.Errorf(desk.Invalid, "--db needs the team store's object store too").
			WithHint("add --objects 's3://BUCKET?endpoint=URL&region=REGION', or set S3_BUCKET and S3_ENDPOINT")
	}
	blobs, _, err := bucketObjects(ctx, c, objects)
	if err != nil {
		return nil, fmt.Errorf("the object store: %w", err)
	}
	return postgres.Open(ctx, dbURL, postgres.Options{Blobs: blobs})
}

// backupTeam writes the team store's backup to path.
func backupTeam(ctx context.Context, c *Context, dbURL, objects, path string) (*backup.Manifest, error) {
	team, err := openTeamStore(ctx, c, dbURL, objects)
	if err != nil {
		return nil, err
	}
	defer team.Close()
	scratch, err := os.MkdirTemp("", "desk-team-backup-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(scratch)
	local, err := sqlite.Open(ctx, scratch, sqlite.Options{})
	if err != nil {
		return nil, err
	}
	_, err = teammove.Export(ctx, team, teammove.Source{DB: local.WriteDB(), Blobs: folder.New(scratch), Office: office.NewFolder(scratch, nil)})
	if cerr := local.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, fmt.Errorf("export the team store: %w", err)
	}
	return backup.Create(ctx, scratch, path)
}

// restoreTeam restores the backup at zipPath into an empty team store.
func restoreTeam(ctx context.Context, c *Context, dbURL, objects, zipPath string) (*backup.Result, *teammove.Report, error) {
	team, err := openTeamStore(ctx, c, dbURL, objects)
	if err != nil {
		return nil, nil, err
	}
	defer team.Close()
	var n int
	if err := team.Pool().QueryRow(ctx, `SELECT count(*) FROM projects`).Scan(&n); err != nil {
		return nil, nil, err
	}
	if n > 0 {
		return nil, nil, desk.Errorf(desk.Conflict, "the team store at %s holds %d project(s): a restore goes into an empty one", postgres.Redact(dbURL), n).
			WithHint("create a new database and restore there, then point the replicas at it")
	}
	scratch, err := os.MkdirTemp("", "desk-team-restore-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(scratch)
	dir := filepath.Join(scratch, "desk")
	res, err := backup.Restore(ctx, zipPath, dir, backup.RestoreOptions{})
	if err != nil {
		return nil, nil, err
	}
	local, err := sqlite.Open(ctx, dir, sqlite.Options{NoCreate: true})
	if err != nil {
		return nil, nil, err
	}
	defer local.Close()
	rep, err := teammove.Move(ctx, teammove.Source{DB: local.ReadDB(), Blobs: folder.New(dir), Office: office.NewFolder(dir, nil)}, team)
	if err != nil {
		return nil, nil, fmt.Errorf("move the restored desk into the team store: %w", err)
	}
	return res, rep, nil
}
