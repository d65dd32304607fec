package sqlite_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"desk"
)

func TestDeleteIssueRemovesFiles(t *testing.T) {
	ctx := context.Background()
	db := MustOpen(t)
	MustProject(t, db)
	is, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr("shot")}, desk.CreateOptions{
		Attachments: []desk.AttachmentInput{{Filename: "a.png", Data: tinyPNG}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(db.Dir(), filepath.FromSlash(is.Attachments[0].Path))
	if _, err := os.Stat(path); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteIssue(ctx, is.ID, "owner"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file kept after delete: %v", err)
	}
	_, err = db.Issue(ctx, is.ID)
	wantCode(t, err, desk.NotFound)
}

// tinyPNG is a 1×1 PNG.
var tinyPNG = []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\xdac\xf8\xcf\xc0\xf0\x1f\x00\x05\x00\x01\xff\x89\x99=\x1d\x00\x00\x00\x00IEND\xaeB`\x82")
