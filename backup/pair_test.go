package backup_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"desk/backup"
	"desk/pair"
	"desk/pair/pairtest"
	"desk/sqlite"
)

// A pair's patch files travel with the backup, and a restore into another
// folder gives the patches their files there: the writer verifies a
// sealed patch against its seal after the old folder is gone.
func TestBackupKeepsThePairsPatchFiles(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	db := fill(t, dir)
	p, err := pairtest.Fill(ctx, &pair.Service{Store: db, PatchRoot: pair.PatchRootIn(dir)}, "mygame", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(t.TempDir(), "desk.zip")
	m, err := backup.Create(ctx, dir, zipPath)
	if err != nil {
		t.Fatal(err)
	}
	var listed []string
	for _, f := range m.Files {
		if strings.HasPrefix(f.Path, "pairs/") {
			listed = append(listed, f.Path)
		}
	}
	if len(listed) != 3 {
		t.Errorf("the backup holds the patch files %v, want the pair's 3", listed)
	}
	db.Close()
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}

	into := filepath.Join(t.TempDir(), "restored")
	if _, err := backup.Restore(ctx, zipPath, into, backup.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	rdb, err := sqlite.Open(ctx, into, sqlite.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	svc := &pair.Service{Store: rdb, PatchRoot: pair.PatchRootIn(into)}
	st, err := svc.PairState(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range st.Patches {
		if !strings.HasPrefix(pt.Path, pair.PatchRootIn(into)+string(filepath.Separator)) {
			t.Errorf("patch #%d is at %s, outside the restored folder", pt.N, pt.Path)
		}
		if _, err := os.Stat(pt.Path); err != nil {
			t.Errorf("patch #%d: %v", pt.N, err)
		}
	}
	var sealed *pair.Patch
	for i := range st.Patches {
		if st.Patches[i].State == pair.PatchSealed {
			sealed = &st.Patches[i]
		}
	}
	if sealed == nil {
		t.Fatalf("no sealed patch among %+v", st.Patches)
	}
	got, err := svc.Verify(ctx, pair.Caller{Pair: p.ID, Role: "opencode"}, pair.PatchRef{N: sealed.N})
	if err != nil {
		t.Fatalf("verifying restored patch #%d: %v", sealed.N, err)
	}
	if got.Patch.State != pair.PatchVerified {
		t.Errorf("restored patch #%d verifies as %s", sealed.N, got.Patch.State)
	}
}
