package link_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"desk/link"
)

func TestResolve(t *testing.T) {
	data := t.TempDir()
	repo := t.TempDir()
	sub := filepath.Join(repo, "src", "game")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Run("NotLinked", func(t *testing.T) {
		if _, err := link.Resolve(data, sub); !errors.Is(err, link.ErrNotLinked) {
			t.Fatalf("err = %v, want ErrNotLinked", err)
		}
		if _, err := os.Stat(filepath.Join(data, link.FileName)); !os.IsNotExist(err) {
			t.Fatalf("Resolve created %s", link.FileName)
		}
	})
	t.Run("LinkedFolderMatchesSubfolders", func(t *testing.T) {
		if err := link.Write(data, repo, "mygame"); err != nil {
			t.Fatal(err)
		}
		f, err := link.Resolve(data, sub)
		if err != nil || f.Project != "mygame" || f.Marker {
			t.Fatalf("got %+v, %v", f, err)
		}
	})
	t.Run("LongestLinkWins", func(t *testing.T) {
		if err := link.Write(data, filepath.Join(repo, "src"), "tools"); err != nil {
			t.Fatal(err)
		}
		f, err := link.Resolve(data, sub)
		if err != nil || f.Project != "tools" {
			t.Fatalf("got %+v, %v", f, err)
		}
		f, err = link.Resolve(data, repo)
		if err != nil || f.Project != "mygame" {
			t.Fatalf("repo root got %+v, %v", f, err)
		}
	})
	t.Run("PairDeskMarkerIsHonoured", func(t *testing.T) {
		os.WriteFile(filepath.Join(repo, ".pair-desk.json"), []byte(`{"project": "oldname"}`), 0o644)
		f, err := link.Resolve(data, sub)
		if err != nil || f.Project != "oldname" || !f.Marker {
			t.Fatalf("got %+v, %v", f, err)
		}
	})
	t.Run("DeskMarkerWins", func(t *testing.T) {
		os.WriteFile(filepath.Join(repo, ".desk.json"), []byte(`{"project": "marked"}`), 0o644)
		f, err := link.Resolve(data, sub)
		if err != nil || f.Project != "marked" || !f.Marker {
			t.Fatalf("got %+v, %v", f, err)
		}
	})
	t.Run("BadMarkerIsAnError", func(t *testing.T) {
		os.WriteFile(filepath.Join(sub, ".desk.json"), []byte(`{"proj`), 0o644)
		if _, err := link.Resolve(data, sub); err == nil {
			t.Fatal("a broken marker resolved")
		}
	})
	t.Run("Remove", func(t *testing.T) {
		ok, err := link.Remove(data, repo)
		if err != nil || !ok {
			t.Fatalf("remove: %v %v", ok, err)
		}
		links, _ := link.Read(data)
		if _, has := links[repo]; has {
			t.Fatal("link still there")
		}
	})
}
