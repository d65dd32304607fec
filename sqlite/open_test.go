package sqlite

import (
	"context"
	"testing"

	"desk"
)

// Opening a desk whose schema is current reads with one connection: the
// write connection is opened only when a write comes, since every
// connection parses the whole schema as it opens.
func TestOpeningACurrentDeskConnectsTheWriterOnlyToWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	for _, o := range []Options{{NoCreate: true}, {Readers: 1, OneShot: true}} {
		db, err := Open(ctx, dir, o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Issues(ctx, "mygame", desk.IssueFilter{}); err != nil {
			t.Fatal(err)
		}
		if n := db.write.Stats().OpenConnections; n != 0 {
			t.Errorf("%+v: %d write connections open after a read; want 0", o, n)
		}
		title := "Lava tips"
		if _, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: &title}, desk.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if n := db.write.Stats().OpenConnections; n != 1 {
			t.Errorf("%+v: %d write connections open after a write; want 1", o, n)
		}
		db.Close()
	}
}
