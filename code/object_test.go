package code_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"desk"
	"desk/code"
)

func TestBlobIDIsFramedSHA256(t *testing.T) {
	// printf 'blob 6\0hello\n' | sha256sum
	if got := code.Hash(code.Blob, []byte("hello\n")).String(); got != "2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4" {
		t.Fatalf("blob id = %s", got)
	}
	// printf 'tree 0\0' | sha256sum
	if got := code.EmptyTree.String(); got != "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321" {
		t.Fatalf("empty tree id = %s", got)
	}
}

func TestParseID(t *testing.T) {
	id := code.Hash(code.Blob, []byte("x"))
	if p, err := code.ParseID(id.String()); err != nil || p != id {
		t.Fatalf("ParseID(String()) = %v, %v", p, err)
	}
	for _, bad := range []string{"", "abc", strings.ToUpper(id.String()), id.String()[:63] + "g", id.String() + "0"} {
		if _, err := code.ParseID(bad); desk.ErrorCode(err) != desk.Invalid {
			t.Errorf("ParseID(%q) = %v, want invalid", bad, err)
		}
	}
}

func TestTreeCanonical(t *testing.T) {
	f := code.Hash(code.Blob, []byte("f"))
	sub, _ := code.EncodeTree([]code.Entry{{Name: "x", Mode: code.ModeFile, ID: f}})
	subID := code.Hash(code.Tree, sub)
	entries := []code.Entry{
		{Name: "a", Mode: code.ModeDir, ID: subID},
		{Name: "a.txt", Mode: code.ModeFile, ID: f},
		{Name: "b", Mode: code.ModeExec, ID: f},
		{Name: "link", Mode: code.ModeLink, ID: f},
	}
	one, err := code.EncodeTree(entries)
	if err != nil {
		t.Fatal(err)
	}
	rev := []code.Entry{entries[3], entries[2], entries[1], entries[0]}
	two, _ := code.EncodeTree(rev)
	if !bytes.Equal(one, two) {
		t.Fatal("the order entries come in changes the tree's bytes")
	}
	dec, err := code.DecodeTree(one)
	if err != nil {
		t.Fatal(err)
	}
	// git's order: the file a.txt sorts before the folder a ("a/").
	if names := []string{dec.Entries[0].Name, dec.Entries[1].Name}; names[0] != "a.txt" || names[1] != "a" {
		t.Fatalf("order = %v, want git's (a.txt before the folder a)", names)
	}
	if e, ok := dec.Find("a"); !ok || e.Mode != code.ModeDir {
		t.Fatalf("Find(a) = %v, %v", e, ok)
	}
	if _, ok := dec.Find("zz"); ok {
		t.Fatal("Find of a missing name found it")
	}
	// Reordered bytes are refused.
	swapped := append(append([]byte{}, one[len("40000 a\x00")+32:]...), one[:len("40000 a\x00")+32]...)
	if _, err := code.DecodeTree(swapped); err == nil {
		t.Fatal("a tree out of order decoded")
	}
}

func TestTreeRefusals(t *testing.T) {
	f := code.Hash(code.Blob, []byte("f"))
	sub, _ := code.EncodeTree([]code.Entry{{Name: "x", Mode: code.ModeFile, ID: f}})
	cases := map[string][]code.Entry{
		"empty name":      {{Name: "", Mode: code.ModeFile, ID: f}},
		"dot":             {{Name: ".", Mode: code.ModeFile, ID: f}},
		"dotdot":          {{Name: "..", Mode: code.ModeFile, ID: f}},
		"slash":           {{Name: "a/b", Mode: code.ModeFile, ID: f}},
		"nul":             {{Name: "a\x00b", Mode: code.ModeFile, ID: f}},
		"not utf-8":       {{Name: "caf\xe9", Mode: code.ModeFile, ID: f}},
		".git":            {{Name: ".GIT", Mode: code.ModeDir, ID: code.Hash(code.Tree, sub)}},
		"bad mode":        {{Name: "a", Mode: 0o100664, ID: f}},
		"twice":           {{Name: "a", Mode: code.ModeFile, ID: f}, {Name: "a", Mode: code.ModeExec, ID: f}},
		"file and folder": {{Name: "a", Mode: code.ModeFile, ID: f}, {Name: "a-b", Mode: code.ModeFile, ID: f}, {Name: "a", Mode: code.ModeDir, ID: code.Hash(code.Tree, sub)}},
		"empty folder":    {{Name: "e", Mode: code.ModeDir, ID: code.EmptyTree}},
	}
	for name, es := range cases {
		if _, err := code.EncodeTree(es); desk.ErrorCode(err) != desk.Invalid {
			t.Errorf("%s: EncodeTree = %v, want invalid", name, err)
		}
	}
}

func TestChangeCanonical(t *testing.T) {
	tree := code.EmptyTree
	p := code.Hash(code.Change, []byte("p"))
	c := code.ChangeObject{Tree: tree, Parents: []code.ID{p}, Author: "owner", Time: time.Date(2026, 10, 22, 14, 5, 0, 123456789, time.FixedZone("x", 3600)), Message: "fix the thing\n\nbody\n", Intents: []string{"mg-12", "AB-3", "MG-12"}}
	b, err := code.EncodeChange(c)
	if err != nil {
		t.Fatal(err)
	}
	want := "tree " + tree.String() + "\nparent " + p.String() + "\nauthor owner\ntime 2026-10-22T13:05:00.123Z\nintent AB-3\nintent MG-12\n\nfix the thing\n\nbody\n"
	if string(b) != want {
		t.Fatalf("encoding:\n%s\nwant:\n%s", b, want)
	}
	d, err := code.DecodeChange(b)
	if err != nil {
		t.Fatal(err)
	}
	if d.Author != "owner" || len(d.Intents) != 2 || d.Message != c.Message || !d.Time.Equal(time.Date(2026, 10, 22, 13, 5, 0, 123000000, time.UTC)) {
		t.Fatalf("decoded %+v", d)
	}
	// Any other spelling of the same change is refused.
	for _, bad := range []string{
		strings.Replace(want, "intent AB-3\nintent MG-12\n", "intent MG-12\nintent AB-3\n", 1),
		strings.Replace(want, ".123Z", "Z", 1),
		strings.Replace(want, "author owner", "author  owner", 1),
		strings.Replace(want, "\n\nfix", "\nfix", 1),
	} {
		if _, err := code.DecodeChange([]byte(bad)); err == nil {
			t.Errorf("decoded a non-canonical change:\n%s", bad)
		}
	}
	if _, err := code.EncodeChange(code.ChangeObject{Tree: tree, Author: "a\nb", Time: time.Now()}); err == nil {
		t.Error("an author with a newline was encoded")
	}
	if _, err := code.EncodeChange(code.ChangeObject{Tree: tree, Author: "a", Time: time.Now(), Intents: []string{"#12"}}); err == nil {
		t.Error("an intent that is no issue id was encoded")
	}
}
