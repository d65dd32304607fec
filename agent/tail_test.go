package agent_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"desk/agent"
)

func appendFile(tb testing.TB, path, s string) {
	tb.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := f.WriteString(s); err != nil {
		tb.Fatal(err)
	}
	f.Close()
}

func readLines(tb testing.TB, tl *agent.Tail, max int) []string {
	tb.Helper()
	lines, err := tl.Read(max)
	if err != nil {
		tb.Fatal(err)
	}
	var out []string
	for _, l := range lines {
		out = append(out, string(l))
	}
	return out
}

func TestTailReturnsOnlyCompleteNewLines(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	appendFile(t, p, "{\"a\":1}\n{\"b\":")
	tl := agent.NewTail(p, 0)
	if got := readLines(t, tl, 1<<16); !slices.Equal(got, []string{`{"a":1}`}) {
		t.Fatalf("first read = %q", got)
	}
	if got := readLines(t, tl, 1<<16); got != nil {
		t.Fatalf("nothing new, got %q", got)
	}
	appendFile(t, p, "2}\n\n{\"c\":3}\n")
	if got := readLines(t, tl, 1<<16); !slices.Equal(got, []string{`{"b":2}`, `{"c":3}`}) {
		t.Fatalf("second read = %q", got)
	}
}

func TestTailReadsAtMostMaxBytesAPoll(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	appendFile(t, p, "aaaaaaaa\nbbbbbbbb\ncccccccc\n")
	tl := agent.NewTail(p, 0)
	if got := readLines(t, tl, 12); !slices.Equal(got, []string{"aaaaaaaa"}) {
		t.Fatalf("first = %q", got)
	}
	if got := readLines(t, tl, 12); !slices.Equal(got, []string{"bbbbbbbb"}) {
		t.Fatalf("second = %q", got)
	}
	if got := readLines(t, tl, 12); !slices.Equal(got, []string{"cccccccc"}) {
		t.Fatalf("third = %q", got)
	}
}

func TestTailStartsOverWhenTheFileShrinks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	appendFile(t, p, "old line one\nold line two\n")
	tl := agent.NewTail(p, 0)
	readLines(t, tl, 1<<16)
	os.WriteFile(p, []byte("new\n"), 0o644)
	if got := readLines(t, tl, 1<<16); !slices.Equal(got, []string{"new"}) {
		t.Fatalf("after truncation = %q", got)
	}
}

func TestTailDropsTheLineItStartsInside(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	appendFile(t, p, "first\nsecond\n")
	if got := readLines(t, agent.NewTail(p, 3), 1<<16); !slices.Equal(got, []string{"second"}) {
		t.Fatalf("mid-line start = %q", got)
	}
	if got := readLines(t, agent.NewTail(p, 6), 1<<16); !slices.Equal(got, []string{"second"}) {
		t.Fatalf("line start = %q", got)
	}
}

func TestTailSkipsLinesOverMaxLine(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.jsonl")
	appendFile(t, p, "before\n"+strings.Repeat("x", agent.MaxLine+10))
	tl := agent.NewTail(p, 0)
	var got []string
	for range 100 {
		got = append(got, readLines(t, tl, 1<<20)...)
	}
	appendFile(t, p, "yyy\nafter\n")
	got = append(got, readLines(t, tl, 1<<20)...)
	if !slices.Equal(got, []string{"before", "after"}) || tl.Skipped != 1 {
		t.Fatalf("lines = %q, skipped %d", got, tl.Skipped)
	}
}

func TestTailOfAMissingFileFails(t *testing.T) {
	if _, err := agent.NewTail(filepath.Join(t.TempDir(), "nope"), 0).Read(10); !os.IsNotExist(err) {
		t.Fatalf("err = %v", err)
	}
}
