package web_test

import (
	"bytes"
	"context"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"desk"
)

var updateScreenshot = flag.Bool("update-screenshot", false, "write the README's screenshot to docs/desk.png")

// TestScreenshotOfTheDesk takes the README's picture of the desk: the
// sample project with a check open, as the owner sees it. It always checks
// that the page renders; with -update-screenshot it also writes the file:
//
//	go test ./web -run TestScreenshotOfTheDesk -update-screenshot
func TestScreenshotOfTheDesk(t *testing.T) {
	d, s := startSample(t)
	ctx := context.Background()
	// A short conversation, so the timeline shows what a check looks like.
	if _, _, err := d.DB.AddComment(ctx, s.Check, desk.CommentInput{Author: "claude", Text: "Rounded the tips with a half-disc cap; the ridge shot shows both flows."}); err != nil {
		t.Fatal(err)
	}
	p := openPage(t, d, "/#/mygame/"+s.Check, pageOptions{width: 1440, height: 900})
	p.waitDetail(s.Check)
	p.waitRow(s.Report)
	// The owner sent the first place to the game, and the game took it.
	p.click(`.command:nth-child(1) .button.primary`)
	p.waitFor("the command queued", `document.querySelector('.send-state')?.textContent === 'Waiting for the game…'`)
	if _, err := d.DB.NextCommand(ctx, "mygame", "game"); err != nil {
		t.Fatal(err)
	}
	p.waitFor("the pickup", `document.querySelector('.send-state')?.textContent.startsWith('Picked up by game')`)
	p.waitFor("the toasts gone", `document.getElementById('toasts').children.length === 0`)
	// Let the highlight of the rows that just changed fade.
	time.Sleep(2800 * time.Millisecond)
	eval[bool](p, `(() => { document.activeElement?.blur(); return true; })()`)
	shot, err := chromedp.Run(p.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if b := img.Bounds(); b.Dx() != 1440 || b.Dy() != 900 {
		t.Errorf("screenshot is %v", b)
	}
	if *updateScreenshot {
		out := filepath.Join("..", "docs", "desk.png")
		if err := os.WriteFile(out, shot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s (%d bytes)", out, len(shot))
	}
}
