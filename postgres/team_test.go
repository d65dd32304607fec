package postgres_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// call sends a request to a replica with token ("" for none).
func (r *replica) call(t *testing.T, token, method, path string, body any) (int, []byte, http.Header) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = strings.NewReader(string(b))
	}
	req, _ := http.NewRequest(method, r.url+path, rd)
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b, resp.Header
}

// The team server's first start makes the admin and shows its token once;
// every API route but the health needs a token, whatever the client's
// address; the page asks its person to sign in; rights hold per project;
// and a revoked token stops on both replicas within 2 seconds.
func TestTeamServerNeedsTokens(t *testing.T) {
	url := newSchema(t)
	a := startReplica(t, url, nil, "")
	b := startReplica(t, url, nil, "")

	fi, err := os.Stat(filepath.Join(a.data, "team-admin-token"))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("team-admin-token: %v, %v; want mode 0600", fi, err)
	}
	waitFor(t, "a to print the admin's token", func() bool { return strings.Contains(a.stdout.String(), a.admin) })
	if !strings.Contains(a.stdout.String(), "Authorization: Bearer <token>") {
		t.Errorf("a does not say what it requires:\n%s", a.stdout.String())
	}
	if _, err := os.Stat(filepath.Join(b.data, "team-admin-token")); err == nil || strings.Contains(b.stdout.String(), "first start") {
		t.Errorf("the second start made or showed a token again:\n%s", b.stdout.String())
	}
	if strings.Contains(a.stderr.String(), a.admin) {
		t.Error("the admin's token is in the log")
	}

	t.Run("NoToken", func(t *testing.T) {
		if code, body, _ := a.call(t, "", "GET", "/api/health", nil); code != 200 {
			t.Errorf("health without a token: %d %s", code, body)
		}
		for _, p := range []string{"/api/projects", "/api/events", "/api/agents", "/api/identities", "/v1/repos"} {
			code, body, h := a.call(t, "", "GET", p, nil)
			if code != 401 || !strings.Contains(string(body), "Bearer") || h.Get("WWW-Authenticate") == "" {
				t.Errorf("GET %s without a token: %d %s", p, code, body)
			}
		}
		if code, body, _ := a.call(t, "desk_wrong", "GET", "/api/projects", nil); code != 401 || !strings.Contains(string(body), "unknown or revoked") {
			t.Errorf("a wrong token: %d %s", code, body)
		}
		code, body, _ := a.call(t, "", "GET", "/", nil)
		if code != 200 || !strings.Contains(string(body), "Sign in") || strings.Contains(string(body), "desk-token") {
			t.Errorf("the page without a token: %d %.300s", code, body)
		}
		if code, body, _ := a.call(t, "", "GET", "/js/signin.js", nil); code != 200 || !strings.Contains(string(body), "/api/auth/device/code") {
			t.Errorf("the sign-in script: %d", code)
		}
	})

	admin := a.admin
	mustCall := func(r *replica, token, method, path string, body any, want int) map[string]any {
		t.Helper()
		code, out, _ := r.call(t, token, method, path, body)
		if code != want {
			t.Fatalf("%s %s: %d %s (want %d)", method, path, code, out, want)
		}
		var m map[string]any
		json.Unmarshal(out, &m)
		return m
	}
	mustCall(a, admin, "POST", "/api/projects", map[string]any{"slug": "mygame", "name": "MyGame", "prefix": "MG"}, 201)
	mustCall(a, admin, "POST", "/api/projects", map[string]any{"slug": "other", "name": "Other", "prefix": "OT"}, 201)
	mustCall(a, admin, "POST", "/api/projects/other/issues", map[string]any{"title": "secret"}, 201)
	made := mustCall(a, admin, "POST", "/api/identities", map[string]any{"name": "bot", "kind": "agent"}, 201)
	bot, _ := made["token"].(string)
	if !strings.HasPrefix(bot, "desk_") {
		t.Fatalf("POST /api/identities = %v", made)
	}
	mustCall(b, admin, "POST", "/api/grants", map[string]any{"identity": "bot", "target": "mygame", "right": "write"}, 201)

	t.Run("RightsPerProject", func(t *testing.T) {
		var ps struct{ Projects []struct{ Slug string } }
		_, body, _ := b.call(t, bot, "GET", "/api/projects", nil)
		json.Unmarshal(body, &ps)
		if len(ps.Projects) != 1 || ps.Projects[0].Slug != "mygame" {
			t.Errorf("bot lists %s; want mygame alone", body)
		}
		mustCall(b, bot, "POST", "/api/projects/mygame/issues", map[string]any{"title": "from the bot"}, 201)
		mustCall(b, bot, "POST", "/api/issues/MG-1/comments", map[string]any{"text": "on it", "author": "bot"}, 201)
		for _, c := range []struct{ method, path string }{
			{"GET", "/api/projects/other/issues"},
			{"GET", "/api/issues/OT-1"},
			{"POST", "/api/projects/other/issues"},
			{"POST", "/api/projects"},
			{"POST", "/api/identities"},
			{"GET", "/api/identities"},
		} {
			code, body, _ := b.call(t, bot, c.method, c.path, map[string]any{"title": "x", "name": "x", "slug": "x"})
			if code != 403 {
				t.Errorf("bot %s %s: %d %s; want 403", c.method, c.path, code, body)
			}
		}
		// An agent never speaks as the owner, whose name passes checks.
		if code, body, _ := b.call(t, bot, "PATCH", "/api/issues/MG-1", map[string]any{"status": "passed", "actor": "owner"}); code != 403 || !strings.Contains(string(body), "never as the owner") {
			t.Errorf("bot passing a check as the owner: %d %s", code, body)
		}
		code, body, _ := b.call(t, bot, "GET", "/api/projects/other/issues", nil)
		if !strings.Contains(string(body), "desk grant bot other read") {
			t.Errorf("the refusal names no remedy: %d %s", code, body)
		}
	})

	t.Run("LiveStreamShowsReadableProjects", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", b.url+"/api/events", nil)
		req.Header.Set("Authorization", "Bearer "+bot)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() && sc.Text() != "event: hello" {
		}
		mustCall(a, admin, "POST", "/api/projects/other/issues", map[string]any{"title": "still secret"}, 201)
		mustCall(a, admin, "POST", "/api/projects/mygame/issues", map[string]any{"title": "seen"}, 201)
		for sc.Scan() {
			l := sc.Text()
			if strings.Contains(l, `"project":"other"`) {
				t.Fatalf("bot's stream shows a project it may not read: %s", l)
			}
			if strings.Contains(l, `"project":"mygame"`) {
				return
			}
		}
		t.Fatal("the stream ended before the change bot may read")
	})

	t.Run("RevokedWithin2sOnEveryReplica", func(t *testing.T) {
		m := mustCall(a, bot, "POST", "/api/tokens", map[string]any{"label": "laptop"}, 201)
		second, _ := m["token"].(string)
		id := int64(m["id"].(float64))
		for _, r := range []*replica{a, b} {
			mustCall(r, second, "GET", "/api/projects/mygame/issues", nil, 200) // in each replica's cache now
		}
		var list struct {
			Tokens []map[string]any
		}
		_, body, _ := a.call(t, bot, "GET", "/api/tokens", nil)
		json.Unmarshal(body, &list)
		if len(list.Tokens) != 2 || strings.Contains(string(body), second) || strings.Contains(string(body), "desk_") {
			t.Fatalf("the token list: %s", body)
		}
		// Another identity's token is not the bot's to revoke.
		if code, _, _ := a.call(t, bot, "DELETE", "/api/tokens/1", nil); code != 404 {
			t.Errorf("bot revoking the admin's token: %d", code)
		}
		mustCall(a, admin, "DELETE", "/api/tokens/"+itoa(id), nil, 200)
		revoked := time.Now()
		for _, r := range []*replica{b, a} {
			for {
				code, _, _ := r.call(t, second, "GET", "/api/projects/mygame/issues", nil)
				if code == 401 {
					break
				}
				if time.Since(revoked) > 2*time.Second {
					t.Fatalf("%s still takes the revoked token after 2 s (%d)", r.url, code)
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		t.Logf("the revoked token stopped on both replicas after %v", time.Since(revoked).Round(time.Millisecond))
		mustCall(b, bot, "GET", "/api/projects/mygame/issues", nil, 200) // its other token still works
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// waitFor polls cond for up to 10 seconds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// runDesk runs the desk binary with env added and returns its exit code
// and output.
func runDesk(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(deskBinary(t), args...)
	cmd.Env = append(append(os.Environ(), "HOME="+t.TempDir(), "XDG_CONFIG_HOME="), env...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

var tokenLine = regexp.MustCompile(`(?m)^(desk_[A-Za-z0-9_-]{20,})$`)

// The identity commands run against a team server through its API with an
// admin's token, or straight on its database; a token is printed once and
// never listed; a member who is no admin is refused.
func TestTeamAdminCommands(t *testing.T) {
	url := newSchema(t)
	a := startReplica(t, url, nil, "")
	asAdmin := []string{"DESK_TOKEN=" + a.admin}
	must := func(env []string, args ...string) string {
		t.Helper()
		code, out, errOut := runDesk(t, env, args...)
		if code != 0 {
			t.Fatalf("desk %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
		}
		return out
	}
	if code, body, _ := a.call(t, a.admin, "POST", "/api/projects", map[string]any{"slug": "mygame", "name": "MyGame", "prefix": "MG"}); code != 201 {
		t.Fatalf("project: %d %s", code, body)
	}
	out := must(asAdmin, "identity", "add", "bob", "--agent", "--server", a.url)
	bob := tokenLine.FindString(out)
	if bob == "" {
		t.Fatalf("identity add printed no token:\n%s", out)
	}
	must(asAdmin, "grant", "bob", "mygame", "write", "--server", a.url)
	if code, body, _ := a.call(t, bob, "POST", "/api/projects/mygame/issues", map[string]any{"title": "by bob"}); code != 201 {
		t.Fatalf("bob's write after the grant: %d %s", code, body)
	}
	out = must(asAdmin, "token", "new", "--identity", "bob", "--label", "ci runner", "--server", a.url)
	ci := tokenLine.FindString(out)
	if ci == "" || ci == bob {
		t.Fatalf("token new: %s", out)
	}
	out = must(asAdmin, "token", "list", "--identity", "bob", "--json", "--server", a.url)
	var list struct {
		Tokens []struct {
			ID    int64
			Label string
		}
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Tokens) != 2 || list.Tokens[0].Label != "ci runner" || strings.Contains(out, "desk_") {
		t.Fatalf("token list: %v\n%s", err, out)
	}
	must(asAdmin, "token", "revoke", strconv.FormatInt(list.Tokens[0].ID, 10), "--server", a.url)
	waitFor(t, "the revoked token to stop", func() bool {
		code, _, _ := a.call(t, ci, "GET", "/api/projects", nil)
		return code == 401
	})
	// bob is no admin: the server refuses him, and says why.
	code, _, errOut := runDesk(t, []string{"DESK_TOKEN=" + bob}, "identity", "add", "eve", "--server", a.url)
	if code != 6 || !strings.Contains(errOut, "admin") {
		t.Errorf("bob adding an identity: exit %d %s", code, errOut)
	}
	must(asAdmin, "revoke-grant", "bob", "mygame", "write", "--server", a.url)
	waitFor(t, "the right to go", func() bool {
		code, _, _ := a.call(t, bob, "POST", "/api/projects/mygame/issues", map[string]any{"title": "x"})
		return code == 403
	})
	if code, _, errOut := runDesk(t, asAdmin, "revoke-grant", "bob", "mygame", "write", "--server", a.url); code != 4 || !strings.Contains(errOut, "holds no write grant") {
		t.Errorf("taking back a right twice: exit %d %s", code, errOut)
	}
	// Straight on the database: the operator's way in when no admin token is at hand.
	out = must(nil, "identity", "list", "--db", url)
	if !strings.Contains(out, "admin") || !strings.Contains(out, "bob") {
		t.Errorf("identity list --db:\n%s", out)
	}
	out = must(nil, "token", "new", "--db", url, "--label", "recovery")
	fresh := tokenLine.FindString(out)
	if code, body, _ := a.call(t, fresh, "GET", "/api/identities", nil); code != 200 {
		t.Errorf("the admin's new token from --db: %d %s", code, body)
	}
	if code, _, errOut := runDesk(t, nil, "token", "list", "--db", url, "--server", a.url); code != 2 || !strings.Contains(errOut, "not both") {
		t.Errorf("--db with --server: exit %d %s", code, errOut)
	}
	if code, _, errOut := runDesk(t, nil, "identity", "list", "--server", a.url); code != 6 || !strings.Contains(errOut, "desk login") {
		t.Errorf("no token at all: exit %d %s", code, errOut)
	}
}
