package credential_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"desk"
	"desk/credential"
)

func TestStore(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	getenv := func(k string) string { return env[k] }
	p, err := credential.Path(getenv)
	if err != nil || p != filepath.Join(home, ".config", "desk", "credentials.json") {
		t.Fatalf("Path = %q, %v", p, err)
	}
	env["XDG_CONFIG_HOME"] = filepath.Join(home, "xdg")
	if p, _ = credential.Path(getenv); p != filepath.Join(home, "xdg", "desk", "credentials.json") {
		t.Fatalf("Path with XDG_CONFIG_HOME = %q", p)
	}
	s := credential.Open(p)
	if _, err := s.Default(); desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("Default with no login = %v, want not found", err)
	}
	if err := s.Save(credential.Credential{Server: "HTTP://127.0.0.1:8765/", Token: " desk_a \n"}); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(credential.Credential{Server: "desk.example.com", Token: "desk_b"}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(p)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("the file: %v, %v; want mode 0600", fi, err)
	}
	c, err := s.Get("http://127.0.0.1:8765")
	if err != nil || c.Token != "desk_a" || c.Server != "http://127.0.0.1:8765" {
		t.Fatalf("Get = %+v, %v", c, err)
	}
	if d, err := s.Default(); err != nil || d.Server != "https://desk.example.com" {
		t.Fatalf("Default = %+v, %v; want the newest login", d, err)
	}
	if strings.Contains(c.Describe(), c.Token) {
		t.Fatal("Describe names the token")
	}
	if list, _ := s.List(); len(list) != 2 {
		t.Fatalf("List = %v", list)
	}
	if ok, err := s.Remove("https://desk.example.com"); !ok || err != nil {
		t.Fatalf("Remove = %v, %v", ok, err)
	}
	if _, err := s.Get("https://desk.example.com"); desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("Get after Remove = %v", err)
	}
	for _, bad := range []string{"", "ftp://x", "http://user:pw@host", "http://host/?q=1", "http://"} {
		if _, err := credential.NormalizeServer(bad); desk.ErrorCode(err) != desk.Invalid {
			t.Errorf("NormalizeServer(%q) = %v, want invalid", bad, err)
		}
	}
	if err := s.Save(credential.Credential{Server: "http://h", Token: "  "}); desk.ErrorCode(err) != desk.Invalid {
		t.Fatalf("Save of an empty token = %v", err)
	}
	// A file others can read is refused, not used.
	os.Chmod(p, 0o644)
	if _, err := s.Get("http://127.0.0.1:8765"); desk.ErrorCode(err) != desk.Forbidden || !strings.Contains(err.Error(), "other users") {
		t.Fatalf("Get from a file others can read = %v", err)
	}
}
