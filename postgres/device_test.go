package postgres_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	deskhttp "desk/http"
	"desk/identity"
	"desk/postgres"
)

// clock is a time the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// teamServer runs an in-process team server on db, on a free port, with
// the device login on clk.
func teamServer(t *testing.T, db *postgres.DB, clk *clock) string {
	t.Helper()
	ids := identity.New(db.Identities())
	srv := deskhttp.NewServer(db, deskhttp.Options{Addr: "127.0.0.1:0", Team: true, Identities: ids,
		Devices: &identity.Devices{Store: db.Identities(), Identities: ids, Now: clk.now}})
	if err := srv.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv.URL()
}

func post(t *testing.T, base, path, token, contentType, body string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+path, strings.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var m map[string]any
	json.Unmarshal(b, &m)
	return resp.StatusCode, m
}

// The device login of RFC 8628 across two replicas: the code is asked of
// one, approved by a signed-in person on the other, polled on either; a
// poll that comes too soon slows the client down, and a code expires
// after its time, is used once, and a denied one gives no token.
func TestDeviceLoginAcrossReplicas(t *testing.T) {
	ctx := context.Background()
	u := newSchema(t)
	dbA, dbB := open(t, u, t.TempDir()), open(t, u, t.TempDir())
	defer dbA.Close()
	defer dbB.Close()
	clk := &clock{t: time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)}
	a, b := teamServer(t, dbA, clk), teamServer(t, dbB, clk)
	ids := identity.New(dbA.Identities())
	_, ada, err := ids.Add(ctx, "ada", identity.Person)
	if err != nil {
		t.Fatal(err)
	}
	_, agent, _ := ids.Add(ctx, "bot", identity.Agent)
	form := "application/x-www-form-urlencoded"
	grant := "grant_type=" + url.QueryEscape("urn:ietf:params:oauth:grant-type:device_code")
	poll := func(base, device string) (int, map[string]any) {
		return post(t, base, "/api/auth/device/token", "", form, grant+"&device_code="+url.QueryEscape(device))
	}

	code, start := post(t, a, "/api/auth/device/code", "", form, "client_id=desk-page")
	device, _ := start["device_code"].(string)
	user, _ := start["user_code"].(string)
	if code != 200 || device == "" || len(user) != 9 || start["interval"] != float64(5) || start["expires_in"] != float64(600) ||
		!strings.HasSuffix(start["verification_uri_complete"].(string), "/device?user_code="+user) {
		t.Fatalf("device code: %d %v", code, start)
	}
	if code, m := poll(b, device); code != 400 || m["error"] != "authorization_pending" {
		t.Fatalf("first poll: %d %v", code, m)
	}
	if code, m := poll(a, device); code != 400 || m["error"] != "slow_down" || m["interval"] != float64(10) {
		t.Fatalf("a poll too soon: %d %v", code, m)
	}
	clk.add(6 * time.Second)
	if code, m := poll(a, device); code != 400 || m["error"] != "slow_down" {
		t.Fatalf("a poll before the longer interval: %d %v", code, m)
	}
	// The approval needs a signed-in person, as itself unless an admin.
	if code, m := post(t, b, "/api/auth/device/approve", "", "application/json", `{"user_code":"`+user+`"}`); code != 401 {
		t.Fatalf("an approval with no token: %d %v", code, m)
	}
	if code, m := post(t, b, "/api/auth/device/approve", ada, "application/json", `{"user_code":"`+user+`","identity":"bot"}`); code != 403 {
		t.Fatalf("ada signing the device in as bot: %d %v", code, m)
	}
	lower := strings.ToLower(strings.ReplaceAll(user, "-", ""))
	if code, m := post(t, b, "/api/auth/device/approve", ada, "application/json", `{"user_code":"`+lower+`"}`); code != 200 || m["status"] != "approved" {
		t.Fatalf("ada's approval: %d %v", code, m)
	}
	clk.add(16 * time.Second)
	code, got := poll(a, device)
	token, _ := got["access_token"].(string)
	if code != 200 || got["token_type"] != "Bearer" || got["identity"] != "ada" || !strings.HasPrefix(token, "desk_") {
		t.Fatalf("the poll after the approval: %d %v", code, got)
	}
	c, err := ids.Authenticate(ctx, token)
	if err != nil || c.Name != "ada" {
		t.Fatalf("the device's token: %v, %v", c, err)
	}
	clk.add(16 * time.Second)
	if code, m := poll(b, device); code != 400 || m["error"] != "expired_token" {
		t.Fatalf("a second poll of a used code: %d %v", code, m)
	}

	t.Run("Denied", func(t *testing.T) {
		_, start := post(t, b, "/api/auth/device/code", "", "application/json", `{"client_id":"desk-cli"}`)
		if code, m := post(t, a, "/api/auth/device/deny", agent, "application/json", `{"user_code":"`+start["user_code"].(string)+`"}`); code != 200 || m["status"] != "denied" {
			t.Fatalf("deny: %d %v", code, m)
		}
		if code, m := poll(a, start["device_code"].(string)); code != 400 || m["error"] != "access_denied" {
			t.Fatalf("the poll of a denied code: %d %v", code, m)
		}
	})

	t.Run("Expired", func(t *testing.T) {
		_, start := post(t, a, "/api/auth/device/code", "", form, "")
		clk.add(identity.DeviceLoginTTL + time.Second)
		if code, m := post(t, b, "/api/auth/device/approve", ada, "application/json", `{"user_code":"`+start["user_code"].(string)+`"}`); code != 409 || !strings.Contains(m["error"].(string), "expired") {
			t.Fatalf("approving an expired code: %d %v", code, m)
		}
		if code, m := poll(a, start["device_code"].(string)); code != 400 || m["error"] != "expired_token" {
			t.Fatalf("the poll of an expired code: %d %v", code, m)
		}
	})

	t.Run("BadInput", func(t *testing.T) {
		if code, m := poll(a, "desk_nothing"); code != 400 || m["error"] != "expired_token" {
			t.Errorf("an unknown device code: %d %v", code, m)
		}
		if code, m := post(t, a, "/api/auth/device/token", "", form, "grant_type=password&device_code=x"); code != 400 || m["error"] != "unsupported_grant_type" {
			t.Errorf("another grant type: %d %v", code, m)
		}
		if code, m := post(t, a, "/api/auth/device/approve", ada, "application/json", `{"user_code":"AEIOU"}`); code != 400 {
			t.Errorf("a user code that is none: %d %v", code, m)
		}
	})
}
