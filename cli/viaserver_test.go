package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"desk/serverfile"
)

// TestReadsGoThroughARunningServer checks that list and show answer the
// same with and without a server on the folder, and that with one they
// come from it: only the server adds what a build path is on this machine.
func TestReadsGoThroughARunningServer(t *testing.T) {
	e := projectEnv(t)
	e.ok("add", "--title", "Lava tips", "--kind", "check", "--command", "/goto 1 2 3", "--author", "owner")
	e.ok("add", "--title", "Crane floats", "--area", "harbor")
	e.ok("build", "set", "--path", deskBin, "--commit", "abc")
	e.ok("status", "MG-1", "to_check", "--author", "owner")
	local := map[string]string{}
	reads := [][]string{{"list", "--json"}, {"list", "--json", "--q", "lava"}, {"list"}, {"show", "MG-1"}}
	for _, args := range reads {
		local[strings.Join(args, " ")] = e.ok(args...)
	}
	localShow := e.ok("show", "MG-1", "--json")

	e.ok("serve", "--detach", "--port", "0")
	info, err := serverfile.Read(e.data)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.run("stop") })
	for _, args := range reads {
		key := strings.Join(args, " ")
		got := e.ok(args...)
		if strings.Contains(key, "json") {
			var a, b any
			json.Unmarshal([]byte(local[key]), &a)
			json.Unmarshal([]byte(got), &b)
			if !reflect.DeepEqual(a, b) {
				t.Errorf("%s differs through the server:\nlocal  %s\nserver %s", key, local[key], got)
			}
		} else if got != local[key] {
			t.Errorf("%s differs through the server:\nlocal  %s\nserver %s", key, local[key], got)
		}
	}
	served := e.ok("show", "MG-1", "--json")
	if !strings.Contains(localShow, `"local":null`) || !strings.Contains(served, `"local":{"exists":true`) {
		t.Fatalf("show did not go through the server:\n%s", served)
	}
	e.fails(4, "MG-9", "show", "MG-9")

	// A server.json left by a server that died is passed over.
	e.ok("stop")
	stale := serverfile.Info{PID: 999999, URL: info.URL, Port: info.Port}
	if err := serverfile.Write(e.data, stale); err != nil {
		t.Fatal(err)
	}
	if got := e.ok("list"); got != local["list"] {
		t.Fatalf("with a stale server.json: %s", got)
	}
	os.Remove(filepath.Join(e.data, serverfile.InfoName))
}
