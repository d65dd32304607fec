package web_test

import (
	"os"
	"testing"
	"time"

	"desk/internal/testdesk"
)

// TestDemoDesk serves a desk with the sample data for a person to look at:
//
//	DESK_WEB_DEMO=10m go test ./web -run TestDemoDesk -v
//
// It prints the address and serves for the given time. Without the
// variable it does nothing.
func TestDemoDesk(t *testing.T) {
	d, err := time.ParseDuration(os.Getenv("DESK_WEB_DEMO"))
	if err != nil || d <= 0 {
		t.Skip("set DESK_WEB_DEMO=10m to serve a demo desk")
	}
	desk := testdesk.Start(t)
	seedSample(t, desk.DB)
	if os.Getenv("DESK_WEB_DEMO_LARGE") != "" {
		seedLarge(t, desk.DB, "mygame", 2000)
	}
	t.Logf("demo desk at %s/ (data in %s) for %v", desk.URL, desk.DataDir, d)
	time.Sleep(d)
}
