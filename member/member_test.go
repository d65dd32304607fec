package member_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"desk"
	"desk/credential"
	"desk/member"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestResolve(t *testing.T) {
	home, data, repo := t.TempDir(), t.TempDir(), t.TempDir()
	vars := map[string]string{"HOME": home}
	t.Run("LocalFolder", func(t *testing.T) {
		if got, err := member.Resolve(env(vars), data, t.TempDir()); got != nil || err != nil {
			t.Fatalf("an unlinked folder = %+v, %v; want the local desk", got, err)
		}
	})
	if _, err := member.LinkFolder(repo, "mygame", "https://Desk.Example.com/"); err != nil {
		t.Fatal(err)
	}
	t.Run("NoLogin", func(t *testing.T) {
		_, err := member.Resolve(env(vars), data, filepath.Join(repo))
		if desk.ErrorCode(err) != desk.Forbidden || !strings.Contains(desk.ErrorMessage(err), "desk login https://desk.example.com") {
			t.Fatalf("a linked folder with no login = %v", err)
		}
	})
	t.Run("Login", func(t *testing.T) {
		store, _ := credential.OpenDefault(env(vars))
		if err := store.Save(credential.Credential{Server: "https://desk.example.com", Token: "desk_x"}); err != nil {
			t.Fatal(err)
		}
		sub := filepath.Join(repo, "src")
		os.Mkdir(sub, 0o755)
		got, err := member.Resolve(env(vars), data, sub)
		if err != nil || got.Server != "https://desk.example.com" || got.Token != "desk_x" || got.Project != "mygame" {
			t.Fatalf("a subfolder of a linked repo = %+v, %v", got, err)
		}
	})
	t.Run("Environment", func(t *testing.T) {
		got, err := member.Resolve(env(map[string]string{"HOME": home, "DESK_SERVER": "http://127.0.0.1:9", "DESK_TOKEN": "desk_ci"}), data, t.TempDir())
		if err != nil || got.Server != "http://127.0.0.1:9" || got.Token != "desk_ci" || got.Project != "" {
			t.Fatalf("DESK_SERVER = %+v, %v", got, err)
		}
	})
}

func TestLinkFolderKeepsTheMarkersOtherKeys(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, member.MarkerName), []byte(`{"project": "old", "store": "server"}`), 0o644)
	if _, err := member.LinkFolder(dir, "mygame", "desk.example.com"); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, member.MarkerName))
	for _, want := range []string{`"store": "server"`, `"project": "mygame"`, `"server": "https://desk.example.com"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("the marker lacks %s:\n%s", want, b)
		}
	}
	os.WriteFile(filepath.Join(dir, member.MarkerName), []byte(`not json`), 0o644)
	if _, err := member.LinkFolder(dir, "mygame", "desk.example.com"); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("a marker that is not JSON = %v", err)
	}
	if _, err := member.LinkFolder(dir, "mygame", "ftp://x"); desk.ErrorCode(err) != desk.Invalid {
		t.Errorf("a server that is no URL = %v", err)
	}
}
