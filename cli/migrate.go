package cli

import (
	"context"
	"fmt"

	"desk"
	"desk/folder"
	"desk/office"
	"desk/postgres"
	"desk/teammove"
)

func init() {
	Register(&Command{Name: "migrate", Summary: "copy this desk into a team store (--to postgres://... --objects s3://...)", Run: runMigrate})
}

// runMigrate copies the local desk into a team store: its records into
// the database at --to, its attachments into the object store of
// --objects (or the S3_ variables), verified table by table. Run again,
// it adds what changed since.
func runMigrate(ctx context.Context, c *Context, args []string) error {
	fs := newFlags("migrate", c)
	to := fs.String("to", "", "the team store's database (postgres://...; default DATABASE_URL)")
	objects := fs.String("objects", "", "the team store's object store (s3://BUCKET?endpoint=...&region=...; default the S3_ variables)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := noArgs(fs, "migrate"); err != nil {
		return err
	}
	dbURL, ok := teamMode(c, *to)
	if !ok {
		return desk.Errorf(desk.Invalid, "migrate: no team database given").WithHint("desk migrate --to postgres://USER@HOST/DB --objects 's3://BUCKET?endpoint=URL'")
	}
	if *objects == "" && c.Getenv("S3_BUCKET") == "" {
		return desk.Errorf(desk.Invalid, "migrate: no object store given for the attachments").WithHint("add --objects 's3://BUCKET?endpoint=URL&region=REGION', or set S3_BUCKET and S3_ENDPOINT")
	}
	local, err := openStore(ctx, c, false)
	if err != nil {
		return err
	}
	defer local.Close()
	blobs, desc, err := bucketObjects(ctx, c, *objects)
	if err != nil {
		return fmt.Errorf("the object store: %w", err)
	}
	team, err := postgres.Open(ctx, dbURL, postgres.Options{Blobs: blobs})
	if err != nil {
		return err
	}
	defer team.Close()
	rep, err := teammove.Move(ctx, teammove.Source{DB: local.ReadDB(), Blobs: folder.New(local.Dir()), Office: office.NewFolder(local.Dir(), nil)}, team)
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c.Stdout, rep)
	}
	rows, written := 0, 0
	for _, t := range rep.Tables {
		rows += t.Rows
		written += t.Written
	}
	fmt.Fprintf(c.Stdout, "Copied %s into %s (objects %s): %d table(s), %d row(s) checked by count and checksum, %d written by this run, %d object(s) stored\n",
		local.Dir(), postgres.Redact(dbURL), desc, len(rep.Tables), rows, written, rep.Objects)
	return nil
}
