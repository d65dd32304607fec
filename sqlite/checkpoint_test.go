package sqlite

import (
	"context"
	"os"
	"strings"
	"testing"

	"desk"
)

// A long-lived store turns SQLite's in-commit checkpoint off and copies the
// WAL into the database in the background, every checkpointEvery commits;
// a one-shot store leaves it to SQLite.
func TestCheckpointsRunBesideTheWrites(t *testing.T) {
	ctx := context.Background()
	db := testStore(t, "Lava")
	var auto int
	if err := db.write.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil || auto != 0 {
		t.Fatalf("the write connection's wal_autocheckpoint is %d (%v), want 0", auto, err)
	}
	size := func() int64 {
		fi, err := os.Stat(db.Path())
		if err != nil {
			t.Fatal(err)
		}
		return fi.Size()
	}
	before := size()
	text := strings.Repeat("the lava glows and hisses ", 100)
	for range 2 * checkpointEvery {
		if _, _, err := db.AddComment(ctx, "MG-1", desk.CommentInput{Text: text}); err != nil {
			t.Fatal(err)
		}
	}
	db.checkpoints.wait()
	if after := size(); after <= before {
		t.Fatalf("the database file stayed at %d bytes after %d commits: no checkpoint ran", after, 2*checkpointEvery)
	}

	one, err := Open(ctx, db.Dir(), Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close()
	if one.checkpoints != nil {
		t.Fatal("a one-shot store runs background checkpoints")
	}
	if err := one.write.QueryRowContext(ctx, `PRAGMA wal_autocheckpoint`).Scan(&auto); err != nil || auto != 1000 {
		t.Fatalf("a one-shot store's wal_autocheckpoint is %d (%v), want SQLite's 1000", auto, err)
	}
}
