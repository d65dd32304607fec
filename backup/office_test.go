package backup_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"desk/backup"
	"desk/office"
)

func TestBackupKeepsTheOfficeAndRestoreChecksIt(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	fill(t, dir)
	s := office.NewStore(dir)
	l := office.Default()
	l.Colors[l.Cols+1] = "#ff00aa"
	saved, err := s.Save(ctx, l)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Choose(ctx, "a-session", "chair-11", time.Now()); err != nil {
		t.Fatal(err)
	}
	zipPath := filepath.Join(t.TempDir(), "desk.zip")
	if _, err := backup.Create(ctx, dir, zipPath); err != nil {
		t.Fatal(err)
	}
	into := filepath.Join(t.TempDir(), "restored")
	if _, err := backup.Restore(ctx, zipPath, into, backup.RestoreOptions{}); err != nil {
		t.Fatal(err)
	}
	r := office.NewStore(into)
	got, err := r.Layout(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got.Revision != saved.Revision || got.Colors[l.Cols+1] != "#ff00aa" {
		t.Errorf("restored layout: revision %d, colour %q", got.Revision, got.Colors[l.Cols+1])
	}
	seats, err := r.Seats(ctx)
	if err != nil || len(seats.Choices) != 1 || seats.Choices[0].Seat != "chair-11" {
		t.Errorf("restored seats %+v %v", seats, err)
	}

	// A backup whose layout breaks the rules is refused before anything moves.
	if err := os.WriteFile(filepath.Join(dir, office.LayoutName), []byte(`{"version":1,"cols":2,"rows":1,"tiles":[2]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(t.TempDir(), "bad.zip")
	if _, err := backup.Create(ctx, dir, bad); err != nil {
		t.Fatal(err)
	}
	_, err = backup.Restore(ctx, bad, filepath.Join(t.TempDir(), "never"), backup.RestoreOptions{})
	if err == nil || !strings.Contains(err.Error(), "office.json is not a valid layout") {
		t.Errorf("restoring a broken layout: %v", err)
	}
}
