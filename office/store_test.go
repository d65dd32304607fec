package office_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"desk/office"
	"desk/office/officetest"
)

// folders remembers each folder backend's folder and what was announced
// on it, for the suite.
type folders struct {
	mu        sync.Mutex
	dir       map[office.Backend]string
	announced map[string][]officetest.Announcement
}

func (fs *folders) open(dir string) office.Backend {
	var b office.Backend = office.NewFolder(dir, func(_ context.Context, doc office.Doc, rev int64) {
		fs.mu.Lock()
		defer fs.mu.Unlock()
		fs.announced[dir] = append(fs.announced[dir], officetest.Announcement{Doc: doc, Revision: rev})
	})
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.dir[b] = dir
	return b
}

// The suite every office backend passes, on the data folder: another
// handle is another backend on the same folder, as another process holds.
func TestFolderBackend(t *testing.T) {
	fs := &folders{dir: map[office.Backend]string{}, announced: map[string][]officetest.Announcement{}}
	officetest.Run(t, officetest.Backend{
		New:     func(t *testing.T) office.Backend { return fs.open(t.TempDir()) },
		Another: func(t *testing.T, b office.Backend) office.Backend { return fs.open(fs.dir[b]) },
		Announced: func(t *testing.T, b office.Backend) []officetest.Announcement {
			fs.mu.Lock()
			defer fs.mu.Unlock()
			return fs.announced[fs.dir[b]]
		},
	})
}

func TestTheFolderKeepsFilesAPersonCanRead(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := office.NewStore(dir)
	if _, err := s.Layout(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, office.LayoutName)); !os.IsNotExist(err) {
		t.Fatalf("reading the default office wrote a file: %v", err)
	}
	saved, err := s.Save(ctx, office.Default())
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, office.LayoutName))
	if err != nil {
		t.Fatal(err)
	}
	l, err := office.Decode(b)
	if err != nil || l.Revision != saved.Revision || !strings.HasSuffix(string(b), "}\n") {
		t.Errorf("office.json: revision %v, %v, ends %q", l, err, b[len(b)-2:])
	}
}

func TestABrokenSavedFileIsNamedNotHalfDrawn(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, office.LayoutName), []byte(`{"version":1,"cols":2}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := office.NewStore(dir).Layout(context.Background())
	if err == nil || !strings.Contains(err.Error(), "office.json is not a valid layout") {
		t.Errorf("error %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, office.SeatsName), []byte(`[1,2`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = office.NewStore(dir).Seats(context.Background())
	if err == nil || !strings.Contains(err.Error(), "office-seats.json is not a list of seat choices") {
		t.Errorf("error %v", err)
	}
}
