package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"path"
	"regexp"
	"strings"
	"testing"
	"time"

	"desk"
)

func testComments(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("tips"), Status: ptr("to_check")}, "owner")
	t.Run("VerdictMovesStatus", func(t *testing.T) {
		c, d, err := db.AddComment(ctx, is.ID, desk.CommentInput{Author: "owner", Text: "still square", Verdict: "failed"})
		if err != nil {
			t.Fatal(err)
		}
		if *c.Verdict != "failed" || d.Status != "failed" || *d.LastVerdict != "failed" || d.CommentCount != 1 {
			t.Fatalf("comment %+v issue %s %v %d", c, d.Status, d.LastVerdict, d.CommentCount)
		}
		_, d, err = db.AddComment(ctx, is.ID, desk.CommentInput{Author: "owner", Verdict: "passed"})
		if err != nil || d.Status != "passed" || d.ClosedAt == nil {
			t.Fatalf("passed: %v %s", err, d.Status)
		}
	})
	t.Run("ErrAgentVerdictPassed", func(t *testing.T) {
		_, _, err := db.AddComment(ctx, is.ID, desk.CommentInput{Author: "claude", Text: "works", Verdict: "passed"})
		wantCode(t, err, desk.Forbidden)
	})
	t.Run("ErrEmpty", func(t *testing.T) {
		_, _, err := db.AddComment(ctx, is.ID, desk.CommentInput{Author: "claude", Text: "  "})
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ErrBadVerdict", func(t *testing.T) {
		_, _, err := db.AddComment(ctx, is.ID, desk.CommentInput{Author: "owner", Verdict: "meh"})
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ErrTooLong", func(t *testing.T) {
		_, _, err := db.AddComment(ctx, is.ID, desk.CommentInput{Author: "owner", Text: strings.Repeat("x", desk.MaxCommentText+1)})
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ErrUnknownIssue", func(t *testing.T) {
		_, _, err := db.AddComment(ctx, "MG-99", desk.CommentInput{Text: "x"})
		wantCode(t, err, desk.NotFound)
	})
}

func testAttachments(t *testing.T, be *Backend) {
	ctx := context.Background()
	db := be.Open(t)
	be.SetClock(db, fixedClock(time.Date(2026, 9, 30, 12, 0, 0, 0, time.UTC)))
	MustProject(t, db)
	is := MustIssue(t, db, desk.IssueFields{Title: ptr("shots")}, "owner")
	t.Run("ImageTypeComesFromTheBytes", func(t *testing.T) {
		as, err := db.AddAttachments(ctx, is.ID, nil, []desk.AttachmentInput{
			{Filename: "shot.jpg", Mime: "image/jpeg", Data: tinyPNG},
			{Filename: "../../etc/evil.html", Mime: "image/png", Data: []byte("<script>alert(1)</script>")},
		}, "owner")
		if err != nil {
			t.Fatal(err)
		}
		if as[0].Mime != "image/png" || !as[0].IsImage {
			t.Errorf("sniffed %q", as[0].Mime)
		}
		if as[1].Mime == "image/png" || as[1].IsImage || as[1].Filename != "evil.html" {
			t.Errorf("a claimed image type was trusted: %+v", as[1])
		}
		if !regexp.MustCompile(`^attachments/mygame/2026-09/[0-9a-f]{32}\.jpg$`).MatchString(as[0].Path) {
			t.Errorf("stored at %q", as[0].Path)
		}
		if path.Base(as[1].Path) == "evil.html" {
			t.Errorf("stored under the client's name")
		}
	})
	t.Run("StreamsTheBytes", func(t *testing.T) {
		d, _ := db.Issue(ctx, is.ID)
		_, f, err := db.OpenAttachment(ctx, d.Attachments[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		if !bytes.Equal(b, tinyPNG) {
			t.Fatal("bytes differ")
		}
		if d.AttachmentCount != 2 {
			t.Fatalf("attachment_count %d", d.AttachmentCount)
		}
	})
	t.Run("CommentAttachment", func(t *testing.T) {
		c, d, err := db.AddComment(ctx, is.ID, desk.CommentInput{Author: "owner", Attachments: []desk.AttachmentInput{{Filename: "x.png", Data: tinyPNG}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(c.Attachments) != 1 || *c.Attachments[0].CommentID != c.ID || d.AttachmentCount != 3 {
			t.Fatalf("%+v", c.Attachments)
		}
	})
	t.Run("ErrTooLarge", func(t *testing.T) {
		big := make([]byte, desk.MaxAttachment+1)
		copy(big, tinyPNG)
		_, err := db.AddAttachments(ctx, is.ID, nil, []desk.AttachmentInput{{Filename: "big.png", Data: big}}, "owner")
		wantCode(t, err, desk.Invalid)
	})
	t.Run("ErrCommentOfAnotherIssue", func(t *testing.T) {
		other := MustIssue(t, db, desk.IssueFields{Title: ptr("other")}, "owner")
		c, _, _ := db.AddComment(ctx, other.ID, desk.CommentInput{Text: "hi"})
		_, err := db.AddAttachments(ctx, is.ID, &c.ID, []desk.AttachmentInput{{Filename: "a.png", Data: tinyPNG}}, "owner")
		wantCode(t, err, desk.NotFound)
	})
	t.Run("Delete", func(t *testing.T) {
		d, _ := db.Issue(ctx, is.ID)
		id := d.Attachments[0].ID
		if err := db.DeleteAttachment(ctx, id, "owner"); err != nil {
			t.Fatal(err)
		}
		_, _, err := db.OpenAttachment(ctx, id)
		wantCode(t, err, desk.NotFound)
		d, _ = db.Issue(ctx, is.ID)
		if d.Activity[len(d.Activity)-1].Action != "detached" {
			t.Fatal("no detached entry")
		}
	})
}

// AddComment answers with the comment and the issue from the transaction
// that wrote them; they must be what a later read gives.
func testAddCommentAnswersWhatIsStored(t *testing.T, be *Backend) {
	db, mk := twoProjects(t, be)
	ctx := context.Background()
	id := mk("Broken bridge", "check", "agent", "agent")
	png := append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 16)...)
	for _, in := range []desk.CommentInput{
		{Author: "claude", Text: "  fixed in 3f2a, spaces kept  "},
		{Author: "owner", Text: "still falls through", Verdict: "Failed"},
		{Author: "owner", Text: "see the shot", Attachments: []desk.AttachmentInput{{Filename: "shot.png", Data: png}}},
		{Author: "owner", Verdict: "passed"},
	} {
		got, gotIssue, err := db.AddComment(ctx, id, in)
		if err != nil {
			t.Fatal(err)
		}
		d, err := db.Issue(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := d.Comments[len(d.Comments)-1]
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		if string(g) != string(w) {
			t.Errorf("comment %+v:\nanswered %s\nstored   %s", in, g, w)
		}
		gi, _ := json.Marshal(gotIssue)
		wi, _ := json.Marshal(&d.Issue)
		if string(gi) != string(wi) {
			t.Errorf("comment %+v, the issue:\nanswered %s\nstored   %s", in, gi, wi)
		}
	}
}
