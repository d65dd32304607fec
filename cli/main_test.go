package cli_test

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"desk/internal/deskbin"
	"desk/sqlite"
)

// deskBin is the desk binary the tests run, built once.
var deskBin string

func TestMain(m *testing.M) { deskbin.Main(m, &deskBin) }

// env is a sandbox for the binary: a home, a working folder and a data
// folder of its own, and nothing of the developer's environment that
// would steer desk.
type env struct {
	t     testing.TB
	home  string
	dir   string // the working folder
	data  string
	extra []string // more environment, e.g. DESK_AUTHOR=owner
	stdin string
}

func newEnv(t testing.TB) *env {
	t.Helper()
	root := t.TempDir()
	e := &env{t: t, home: filepath.Join(root, "home"), dir: filepath.Join(root, "work"), data: filepath.Join(root, "data")}
	for _, d := range []string{e.home, e.dir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	return e
}

// result is what one run of the binary did.
type result struct {
	out, err string
	code     int
}

// run runs desk with --data first.
func (e *env) run(args ...string) result {
	e.t.Helper()
	return e.runRaw(append([]string{"--data", e.data}, args...)...)
}

// runRaw runs desk with exactly args.
func (e *env) runRaw(args ...string) result {
	e.t.Helper()
	cmd := exec.Command(deskBin, args...)
	cmd.Dir = e.dir
	cmd.Env = append([]string{"HOME=" + e.home, "PATH=" + os.Getenv("PATH"), "TMPDIR=" + os.TempDir()}, e.extra...)
	cmd.Stdin = strings.NewReader(e.stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		e.t.Fatalf("run desk %v: %v", args, err)
	}
	return result{out: out.String(), err: errb.String(), code: code}
}

// ok runs desk and fails the test unless it succeeds.
func (e *env) ok(args ...string) string {
	e.t.Helper()
	r := e.run(args...)
	if r.code != 0 {
		e.t.Fatalf("desk %s: exit %d: %s%s", strings.Join(args, " "), r.code, r.err, r.out)
	}
	return r.out
}

// okJSON runs desk with --json and decodes its output into v.
func (e *env) okJSON(v any, args ...string) {
	e.t.Helper()
	out := e.ok(append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		e.t.Fatalf("desk %s --json: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// fails runs desk and checks that it fails with code and one line on
// stderr that contains want.
func (e *env) fails(code int, want string, args ...string) result {
	e.t.Helper()
	r := e.run(args...)
	if r.code != code {
		e.t.Fatalf("desk %s: exit %d, want %d (stderr %q, stdout %q)", strings.Join(args, " "), r.code, code, r.err, r.out)
	}
	if strings.Count(r.err, "\n") != 1 || !strings.HasPrefix(r.err, "desk: ") {
		e.t.Fatalf("desk %s: want one error line, got %q", strings.Join(args, " "), r.err)
	}
	if !strings.Contains(r.err, want) {
		e.t.Fatalf("desk %s: error %q does not say %q", strings.Join(args, " "), r.err, want)
	}
	return r
}

// write writes a file in the working folder and returns its path.
func (e *env) write(name string, data []byte) string {
	e.t.Helper()
	p := filepath.Join(e.dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(p, data, 0o600); err != nil {
		e.t.Fatal(err)
	}
	return p
}

// state is the logical content of a data folder: every table's rows and
// every file, for "nothing changed" checks that do not depend on how
// SQLite lays out its pages.
func state(t testing.TB, data string) string {
	t.Helper()
	var b strings.Builder
	if _, err := os.Stat(filepath.Join(data, sqlite.FileName)); err == nil {
		db, err := sqlite.Open(context.Background(), data, sqlite.Options{NoCreate: true})
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString(tableDump(t, db.Path()))
		db.Close()
	}
	var files []string
	filepath.Walk(data, func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() && !strings.HasPrefix(filepath.Base(p), sqlite.FileName) {
			rel, _ := filepath.Rel(data, p)
			body, _ := os.ReadFile(p)
			files = append(files, fmt.Sprintf("%s %x", rel, body))
		}
		return nil
	})
	sort.Strings(files)
	b.WriteString(strings.Join(files, "\n"))
	return b.String()
}

// tableDump renders every row of desk's tables.
func tableDump(t testing.TB, path string) string {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var b strings.Builder
	for _, table := range []string{"projects", "issues", "comments", "attachments", "activity", "commands", "handoffs", "changes"} {
		rows, err := db.Query(`SELECT * FROM ` + table + ` ORDER BY rowid`)
		if err != nil {
			t.Fatal(err)
		}
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]any, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err := rows.Scan(ptrs...); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&b, "%s %v\n", table, vals)
		}
		rows.Close()
	}
	return b.String()
}
