package codetest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"desk"
	"desk/code"
)

// Backend is a store of tables and its object stores, as a backend makes
// them for one test.
type Backend struct {
	Store   code.Store
	Objects code.ObjectStores
}

// Service runs the suite of the code's rules (changes, merge, landing,
// reads, open changes) over a backend. open returns a new, empty backend
// each time it is called; reopen returns one over the same data, as
// another process or replica sees it.
func Service(t *testing.T, open func(t *testing.T) Backend) {
	ctx := context.Background()

	t.Run("CommitAndRead", func(t *testing.T) {
		r := newRepository(t, open(t))
		files := []code.FileData{{Path: "README.md", Data: []byte("hello\n")}, {Path: "src/main.go", Data: []byte("package main\n")}, {Path: "run.sh", Mode: code.ModeExec, Data: []byte("#!/bin/sh\n")}, {Path: "link", Mode: code.ModeLink, Data: []byte("README.md")}}
		row, err := r.Commit(ctx, files, code.Meta{Author: "ada", Message: "first\n", Intents: []string{"mg-1"}})
		if err != nil {
			t.Fatal(err)
		}
		if row.Generation != 1 || row.Intents[0] != "MG-1" {
			t.Fatalf("row = %+v", row)
		}
		got, err := r.Files(ctx, row.ID)
		if err != nil {
			t.Fatal(err)
		}
		var paths []string
		for _, f := range got {
			paths = append(paths, f.Path+":"+f.Mode.String())
		}
		if want := "README.md:100644 link:120000 run.sh:100755 src/main.go:100644"; strings.Join(paths, " ") != want {
			t.Fatalf("Files = %s, want %s", strings.Join(paths, " "), want)
		}
		// A second write of the same change adds nothing.
		c, _ := r.ChangeObject(ctx, row.ID)
		again, err := r.Write(ctx, *c)
		if err != nil || again.ID != row.ID {
			t.Fatalf("second Write = %+v, %v", again, err)
		}
		if ok, err := r.Has(ctx, row.ID); !ok || err != nil {
			t.Fatalf("Has = %v, %v", ok, err)
		}
		e, data, err := r.ReadFile(ctx, row.Tree, "src/main.go")
		if err != nil || string(data) != "package main\n" || e.Mode != code.ModeFile {
			t.Fatalf("ReadFile = %v, %q, %v", e, data, err)
		}
		if e, data, _ := r.ReadFile(ctx, row.Tree, "src"); !e.Mode.IsDir() || data != nil {
			t.Fatalf("ReadFile of a folder = %v, %q", e, data)
		}
		list, err := r.ListDir(ctx, row.Tree, "")
		if err != nil || len(list) != 4 {
			t.Fatalf("ListDir = %v, %v", list, err)
		}
		for _, bad := range []string{"/abs", "a//b", "./a", "a/..", "a\x00b"} {
			if _, _, err := r.ReadFile(ctx, row.Tree, bad); desk.ErrorCode(err) != desk.Invalid {
				t.Errorf("ReadFile(%q) = %v, want invalid", bad, err)
			}
		}
		if _, _, err := r.ReadFile(ctx, row.Tree, "nope"); desk.ErrorCode(err) != desk.NotFound {
			t.Errorf("ReadFile of a missing file = %v", err)
		}
	})

	t.Run("ErrBadObjects", func(t *testing.T) {
		r := newRepository(t, open(t))
		good := code.NewObject(code.Blob, []byte("good"))
		missing := code.NewObject(code.Blob, []byte("never sent"))
		tree, _ := code.EncodeTree([]code.Entry{{Name: "a", Mode: code.ModeFile, ID: missing.ID}})
		badTree := code.NewObject(code.Tree, tree)
		if _, err := r.PutObjects(ctx, "", []code.Object{good, badTree}); desk.ErrorCode(err) != desk.Invalid || !strings.Contains(err.Error(), "neither in the request nor stored") {
			t.Fatalf("a tree naming a missing object = %v", err)
		}
		wrong := code.NewObject(code.Blob, []byte("x"))
		wrong.Data = []byte("y")
		if _, err := r.PutObjects(ctx, "", []code.Object{good, wrong}); desk.ErrorCode(err) != desk.Invalid {
			t.Fatalf("bytes that are not their id = %v", err)
		}
		goodTree, _ := code.EncodeTree([]code.Entry{{Name: "a", Mode: code.ModeFile, ID: good.ID}})
		tr := code.NewObject(code.Tree, goodTree)
		ch, _ := code.EncodeChange(code.ChangeObject{Tree: tr.ID, Author: "mallory", Time: time.Now(), Message: "x"})
		if _, err := r.PutObjects(ctx, "ada", []code.Object{good, tr, code.NewObject(code.Change, ch)}); desk.ErrorCode(err) != desk.Forbidden {
			t.Fatalf("a change whose author is not the caller = %v", err)
		}
		undecodable := code.NewObject(code.Tree, []byte("not a tree"))
		if _, err := r.PutObjects(ctx, "", []code.Object{good, undecodable}); desk.ErrorCode(err) != desk.Invalid {
			t.Fatalf("a tree that does not decode = %v", err)
		}
		has, _ := r.Objects().Has(ctx, []code.Ref{good.Ref(), tr.Ref()})
		if has[0] || has[1] {
			t.Fatal("a refused batch stored some of its objects")
		}
		// Index refuses a change whose tree is not all stored.
		if _, err := r.PutObjects(ctx, "", []code.Object{good, tr}); err != nil {
			t.Fatal(err)
		}
		ch, _ = code.EncodeChange(code.ChangeObject{Tree: tr.ID, Parents: []code.ID{code.Hash(code.Change, []byte("nobody"))}, Author: "ada", Time: time.Now(), Message: "x"})
		co := code.NewObject(code.Change, ch)
		r.PutObjects(ctx, "ada", []code.Object{co})
		if _, err := r.Index(ctx, co.ID); desk.ErrorCode(err) != desk.Invalid || !strings.Contains(err.Error(), "parent") {
			t.Fatalf("Index with an unknown parent = %v", err)
		}
		if _, err := r.Index(ctx, code.Hash(code.Change, []byte("unsent"))); desk.ErrorCode(err) != desk.NotFound {
			t.Fatalf("Index of a change never sent = %v", err)
		}
	})

	t.Run("AncestryAndReindex", func(t *testing.T) {
		b := open(t)
		r := newRepository(t, b)
		var ids []code.ID
		var parents []code.ID
		for i := 0; i < 6; i++ {
			row, err := r.Commit(ctx, []code.FileData{{Path: "n", Data: []byte(fmt.Sprint(i))}}, code.Meta{Parents: parents, Author: "ada", Message: fmt.Sprint(i)})
			if err != nil {
				t.Fatal(err)
			}
			if row.Generation != int64(i+1) {
				t.Fatalf("generation %d = %d", i, row.Generation)
			}
			ids = append(ids, row.ID)
			parents = []code.ID{row.ID}
		}
		side, _ := r.Commit(ctx, []code.FileData{{Path: "n", Data: []byte("side")}}, code.Meta{Parents: []code.ID{ids[2]}, Author: "ada", Message: "side"})
		for _, c := range []struct {
			a, b code.ID
			want bool
		}{{ids[0], ids[5], true}, {ids[5], ids[0], false}, {ids[3], ids[3], true}, {ids[2], side.ID, true}, {ids[3], side.ID, false}, {side.ID, ids[5], false}} {
			if got, err := r.IsAncestor(ctx, c.a, c.b); err != nil || got != c.want {
				t.Errorf("IsAncestor(%s, %s) = %v, %v; want %v", c.a.Short(), c.b.Short(), got, err, c.want)
			}
		}
		// The table of changes lost: the objects bring it back.
		fresh := open(t)
		re := newRepository(t, Backend{Store: fresh.Store, Objects: sameObjects{b.Objects, r.ID}})
		n, err := re.Reindex(ctx, ids[5])
		if err != nil || n != 6 {
			t.Fatalf("Reindex = %d, %v; want 6 changes", n, err)
		}
		for _, id := range ids {
			was, _ := r.Get(ctx, id)
			now, err := re.Get(ctx, id)
			if err != nil || fmt.Sprint(was) != fmt.Sprint(now) {
				t.Fatalf("rebuilt row %s = %+v, %v; want %+v", id.Short(), now, err, was)
			}
		}
	})

	t.Run("MergeKinds", func(t *testing.T) {
		be := open(t)
		r := newRepository(t, be)
		big := bytes.Repeat([]byte("line\n"), (code.MaxMergeText/5)+10)
		base := map[string]string{
			"text.txt":     "1\n2\n3\n4\n5\n6\n7\n8\n",
			"both.txt":     "a\nb\nc\n",
			"nul.bin":      "x\x00y\n",
			"latin.txt":    "caf\xe9\n",
			"big.txt":      string(big),
			"mode.sh":      "echo\n",
			"gone.txt":     "keep\n",
			"type":         "file\n",
			"link":         "target",
			"untouched/a":  "same\n",
			"dir/sub/deep": "deep\n",
		}
		ours := clone(base)
		theirs := clone(base)
		ours["text.txt"] = "1\nTWO\n3\n4\n5\n6\n7\n8\n"
		theirs["text.txt"] = "1\n2\n3\n4\n5\n6\nSEVEN\n8\n"
		ours["both.txt"] = "a\nours\nc\n"
		theirs["both.txt"] = "a\ntheirs\nc\n"
		ours["nul.bin"], theirs["nul.bin"] = "x\x00o\n", "x\x00t\n"
		ours["latin.txt"], theirs["latin.txt"] = "caf\xe9 o\n", "caf\xe9 t\n"
		ours["big.txt"], theirs["big.txt"] = "o\n"+base["big.txt"], base["big.txt"]+"t\n"
		delete(ours, "gone.txt")
		theirs["gone.txt"] = "changed\n"
		delete(theirs, "type")
		theirs["type/inside"] = "now a folder\n"
		ours["type"] = "edited\n"
		ours["link"], theirs["link"] = "o", "t"
		ours["added.txt"], theirs["added.txt"] = "one\n", "two\n"
		ours["same-add.txt"], theirs["same-add.txt"] = "same\n", "same\n"
		ours["dir/sub/deep"] = "deeper\n"
		modes := map[string]code.Mode{"link": code.ModeLink}
		bt := commitTree(t, r, base, modes, nil)
		theirModes := map[string]code.Mode{"link": code.ModeLink, "mode.sh": code.ModeExec}
		ot := commitTree(t, r, ours, modes, nil)
		tt := commitTree(t, r, theirs, theirModes, nil)
		// A fresh handle, so that no folder is read from memory: the
		// folder no side changed must not be read at all.
		counted := &countingStores{ObjectStores: be.Objects}
		svc := code.NewService(be.Store, counted)
		fresh := svc.Repository(r.Repo)
		m, err := fresh.MergeTrees(ctx, bt.Tree, ot.Tree, tt.Tree)
		if err != nil {
			t.Fatal(err)
		}
		untouched, _, _ := r.Lookup(ctx, bt.Tree, "untouched")
		if counted.reads(untouched.ID) > 0 {
			t.Fatalf("the merge read the folder no side changed")
		}
		kinds := map[string]string{}
		for _, c := range m.Conflicts {
			kinds[c.Path] = c.Kind
		}
		want := map[string]string{
			"both.txt": code.ConflictContent, "nul.bin": code.ConflictBinary, "latin.txt": code.ConflictBinary,
			"big.txt": code.ConflictBinary, "gone.txt": code.ConflictDeleteEdit, "type": code.ConflictType,
			"link": code.ConflictBinary, "added.txt": code.ConflictContent,
		}
		if fmt.Sprint(kinds) != fmt.Sprint(want) {
			t.Fatalf("conflicts = %v\nwant        %v", kinds, want)
		}
		for _, c := range m.Conflicts {
			if c.Path == "added.txt" && c.Base != nil {
				t.Fatal("an add/add conflict has a base")
			}
			if c.Path == "gone.txt" && (c.Ours != nil || c.Theirs == nil || c.Base == nil) {
				t.Fatalf("delete-edit sides = %+v", c)
			}
		}
		// The merged tree holds the clean merges, and ours at a conflict.
		if _, err := r.Objects().Put(ctx, m.Objects...); err != nil {
			t.Fatal(err)
		}
		_, text, _ := r.ReadFile(ctx, m.Tree, "text.txt")
		if string(text) != "1\nTWO\n3\n4\n5\n6\nSEVEN\n8\n" {
			t.Fatalf("merged text = %q", text)
		}
		if e, _, _ := r.ReadFile(ctx, m.Tree, "mode.sh"); e.Mode != code.ModeExec {
			t.Fatalf("merged mode = %v", e.Mode)
		}
		if _, both, _ := r.ReadFile(ctx, m.Tree, "both.txt"); string(both) != ours["both.txt"] {
			t.Fatalf("at a conflict the tree holds %q, want ours", both)
		}
		for _, c := range m.Conflicts {
			if c.Path != "both.txt" {
				continue
			}
			txt, err := r.ConflictText(ctx, c, "main", "mine")
			if err != nil || string(txt) != "a\n<<<<<<< main\nours\n=======\ntheirs\n>>>>>>> mine\nc\n" {
				t.Fatalf("ConflictText = %q, %v", txt, err)
			}
		}
		// Mode changed on both sides, differently.
		mb := commitTree(t, r, map[string]string{"m": "x\n"}, nil, nil)
		mo := commitTree(t, r, map[string]string{"m": "x\n"}, map[string]code.Mode{"m": code.ModeExec}, nil)
		mt := commitTree(t, r, map[string]string{"m": "x\n"}, map[string]code.Mode{"m": code.ModeLink}, nil)
		mm, _ := r.MergeTrees(ctx, mb.Tree, mo.Tree, mt.Tree)
		if len(mm.Conflicts) != 1 || mm.Conflicts[0].Kind != code.ConflictMode {
			t.Fatalf("mode conflict = %+v", mm.Conflicts)
		}
		// A folder both sides emptied goes.
		eb := commitTree(t, r, map[string]string{"d/x": "1\n", "k": "k\n"}, nil, nil)
		eo := commitTree(t, r, map[string]string{"k": "k\n"}, nil, nil)
		et := commitTree(t, r, map[string]string{"k": "k2\n", "d/x": "1\n"}, nil, nil)
		em, _ := r.MergeTrees(ctx, eb.Tree, eo.Tree, et.Tree)
		if len(em.Conflicts) != 0 {
			t.Fatal(em.Conflicts)
		}
		r.Objects().Put(ctx, em.Objects...)
		if files, _ := r.Flatten(ctx, em.Tree); len(files) != 1 || files[0].Path != "k" {
			t.Fatalf("after the merge the files are %v", files)
		}
	})

	t.Run("Land", func(t *testing.T) {
		r := newRepository(t, open(t))
		first, _ := r.Commit(ctx, []code.FileData{{Path: "a.txt", Data: []byte("a\n")}, {Path: "b.txt", Data: []byte("b\n")}}, code.Meta{Author: "ada", Message: "first"})
		res, err := r.Land(ctx, first.ID, "ada")
		if err != nil || res.Result != code.ResultLanded || res.Seq != 1 || res.Rebased {
			t.Fatalf("first landing = %+v, %v", res, err)
		}
		// Fast-forward of two changes: two entries.
		c2, _ := r.Commit(ctx, []code.FileData{{Path: "a.txt", Data: []byte("a2\n")}, {Path: "b.txt", Data: []byte("b\n")}}, code.Meta{Parents: []code.ID{first.ID}, Author: "ada", Message: "two"})
		c3, _ := r.Commit(ctx, []code.FileData{{Path: "a.txt", Data: []byte("a3\n")}, {Path: "b.txt", Data: []byte("b\n")}}, code.Meta{Parents: []code.ID{c2.ID}, Author: "ada", Message: "three"})
		res, err = r.Land(ctx, c3.ID, "ada")
		if err != nil || res.Result != code.ResultLanded || res.Seq != 3 || *res.Change != c3.ID {
			t.Fatalf("fast-forward = %+v, %v", res, err)
		}
		// Present: landed already, and in main's history.
		if res, _ := r.Land(ctx, c3.ID, "ada"); res.Result != code.ResultPresent || res.Seq != 3 {
			t.Fatalf("landing again = %+v", res)
		}
		if res, _ := r.Land(ctx, first.ID, "ada"); res.Result != code.ResultPresent {
			t.Fatalf("landing an ancestor = %+v", res)
		}
		// Two changes made on c3: the second lands by a merge on the server.
		mine, _ := r.Commit(ctx, []code.FileData{{Path: "a.txt", Data: []byte("a3\n")}, {Path: "b.txt", Data: []byte("b mine\n")}}, code.Meta{Parents: []code.ID{c3.ID}, Author: "bob", Message: "bob's", Intents: []string{"MG-3"}})
		theirs, _ := r.Commit(ctx, []code.FileData{{Path: "a.txt", Data: []byte("a3\n")}, {Path: "b.txt", Data: []byte("b\n")}, {Path: "c.txt", Data: []byte("c\n")}}, code.Meta{Parents: []code.ID{c3.ID}, Author: "cy", Message: "cy's"})
		if res, err := r.Land(ctx, theirs.ID, "cy"); err != nil || res.Result != code.ResultLanded {
			t.Fatalf("cy's landing = %+v, %v", res, err)
		}
		res, err = r.Land(ctx, mine.ID, "bob")
		if err != nil || res.Result != code.ResultLanded || !res.Rebased || res.Seq != 5 || *res.Change == mine.ID {
			t.Fatalf("merged landing = %+v, %v", res, err)
		}
		landed, _ := r.Get(ctx, *res.Change)
		if landed.Author != "bob" || landed.Message != "bob's" || !landed.Time.Equal(mine.Time) || landed.Intents[0] != "MG-3" || landed.Parents[0] != theirs.ID {
			t.Fatalf("the rebased change = %+v", landed)
		}
		files, _ := r.Files(ctx, landed.ID)
		if len(files) != 3 {
			t.Fatalf("merged snapshot = %v", files)
		}
		// A retried submission finds its entry.
		if again, _ := r.Land(ctx, mine.ID, "bob"); again.Result != code.ResultPresent || again.Seq != 5 || *again.Change != landed.ID || !again.Rebased {
			t.Fatalf("retried submission = %+v", again)
		}
		// A conflict moves nothing.
		h, _ := r.Head(ctx)
		x, _ := r.Commit(ctx, []code.FileData{{Path: "a.txt", Data: []byte("x\n")}}, code.Meta{Parents: []code.ID{c3.ID}, Author: "dee", Message: "x"})
		res, err = r.Land(ctx, x.ID, "dee")
		// x removed b.txt, which main changed since: a delete-edit
		// conflict; a.txt only x changed, and c.txt only main added.
		if err != nil || res.Result != code.ResultConflict || fmt.Sprint(res.Paths) != "[b.txt]" || res.Conflicts[0].Kind != code.ConflictDeleteEdit || res.Change != nil {
			t.Fatalf("conflicting landing = %+v, %v", res, err)
		}
		if h2, _ := r.Head(ctx); *h2.Change != *h.Change || h2.Rev != h.Rev {
			t.Fatal("a conflict moved main")
		}
		if _, err := r.Land(ctx, code.Hash(code.Change, []byte("unknown")), "x"); desk.ErrorCode(err) != desk.NotFound {
			t.Fatalf("landing an unknown change = %v", err)
		}
		page, _ := r.Log(ctx, 0, 0, nil)
		for i, e := range page.Entries {
			if e.Seq != int64(len(page.Entries)-i) {
				t.Fatalf("log numbers are not dense: %v", page.Entries)
			}
		}
	})

	t.Run("ConcurrentLanders", func(t *testing.T) {
		b := open(t)
		r := newRepository(t, b)
		// Two services on one backend stand for two processes: each has
		// its own lock, and only the swap decides between them.
		other := code.NewService(b.Store, b.Objects).Repository(r.Repo)
		var files []code.FileData
		for i := 0; i < 20; i++ {
			files = append(files, code.FileData{Path: fmt.Sprintf("f%02d.txt", i), Data: []byte("0\n")})
		}
		base, _ := r.Commit(ctx, files, code.Meta{Author: "ada", Message: "base"})
		if _, err := r.Land(ctx, base.ID, "ada"); err != nil {
			t.Fatal(err)
		}
		var changes []code.ID
		for i := 0; i < 20; i++ {
			fs := append([]code.FileData(nil), files...)
			fs[i] = code.FileData{Path: fs[i].Path, Data: []byte(fmt.Sprintf("%d\n", i))}
			c, err := r.Commit(ctx, fs, code.Meta{Parents: []code.ID{base.ID}, Author: "ada", Message: fmt.Sprint(i)})
			if err != nil {
				t.Fatal(err)
			}
			changes = append(changes, c.ID)
		}
		var wg sync.WaitGroup
		var landed atomic.Int32
		for i, c := range changes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				repo := r
				if i%2 == 1 {
					repo = other
				}
				res, err := repo.Land(ctx, c, fmt.Sprint("lander-", i))
				if err != nil || res.Result != code.ResultLanded {
					t.Errorf("landing %d = %+v, %v", i, res, err)
					return
				}
				landed.Add(1)
			}()
		}
		wg.Wait()
		if landed.Load() != 20 {
			t.Fatalf("%d of 20 landed", landed.Load())
		}
		h, _ := r.Head(ctx)
		final, _ := r.Files(ctx, *h.Change)
		for i, f := range final {
			_, data, _ := r.ReadFile(ctx, mustRow(t, r, *h.Change).Tree, f.Path)
			if string(data) != fmt.Sprintf("%d\n", i) {
				t.Fatalf("after 20 landings %s holds %q", f.Path, data)
			}
		}
		page, _ := r.Log(ctx, 0, 100, nil)
		if len(page.Entries) != 21 || page.Entries[0].Seq != 21 {
			t.Fatalf("log has %d entries, newest %d; want 21 dense", len(page.Entries), page.Entries[0].Seq)
		}
		// Landed together or not, each entry names who landed it.
		lander := map[code.ID]string{}
		for i, c := range changes {
			lander[c] = fmt.Sprint("lander-", i)
		}
		for _, e := range page.Entries[:20] {
			if e.LandedBy != lander[e.Submitted] {
				t.Fatalf("the entry of %s was landed by %q, want %q", e.Submitted.Short(), e.LandedBy, lander[e.Submitted])
			}
		}
	})

	t.Run("Reads", func(t *testing.T) {
		r := newRepository(t, open(t))
		var parents []code.ID
		var rows []*code.ChangeRow
		texts := []string{"one\n", "one\ntwo\n", "zero\none\ntwo\n", "zero\none\nTWO\n"}
		for i, txt := range texts {
			fs := []code.FileData{{Path: "doc/notes.txt", Data: []byte(txt)}, {Path: "other", Data: []byte(fmt.Sprint(i % 2))}}
			intents := []string{}
			if i == 2 {
				intents = []string{"MG-12"}
			}
			row, err := r.Commit(ctx, fs, code.Meta{Parents: parents, Author: fmt.Sprintf("author%d", i), Message: fmt.Sprint("c", i), Intents: intents})
			if err != nil {
				t.Fatal(err)
			}
			if _, err := r.Land(ctx, row.ID, "ada"); err != nil {
				t.Fatal(err)
			}
			parents, rows = []code.ID{row.ID}, append(rows, row)
		}
		// A change that only touches "other".
		last, _ := r.Commit(ctx, []code.FileData{{Path: "doc/notes.txt", Data: []byte(texts[3])}, {Path: "other", Data: []byte("x")}}, code.Meta{Parents: parents, Author: "author4", Message: "c4"})
		r.Land(ctx, last.ID, "ada")
		page, err := r.Log(ctx, 0, 2, nil)
		if err != nil || len(page.Entries) != 2 || page.Next != 4 {
			t.Fatalf("Log limit 2 = %+v, %v", page, err)
		}
		if p, _ := r.Log(ctx, 0, 0, []string{"mg-12"}); len(p.Entries) != 1 || p.Entries[0].Row.Message != "c2" {
			t.Fatalf("Log of MG-12 = %+v", p)
		}
		for _, bad := range []int{-1, 501} {
			if _, err := r.Log(ctx, 0, bad, nil); desk.ErrorCode(err) != desk.Invalid {
				t.Errorf("Log limit %d = %v", bad, err)
			}
		}
		pl, err := r.PathLog(ctx, "doc/notes.txt", 0, 0)
		if err != nil || len(pl.Entries) != 4 || pl.Entries[0].Seq != 4 {
			t.Fatalf("PathLog = %+v, %v", pl, err)
		}
		if pl, _ := r.PathLog(ctx, "doc", 0, 2); len(pl.Entries) != 2 || pl.Next != 3 {
			t.Fatalf("PathLog of a folder, 2 = %+v", pl)
		}
		head := mustRow(t, r, last.ID)
		lines, truncated, err := r.Blame(ctx, "doc/notes.txt", head)
		if err != nil || truncated {
			t.Fatal(err, truncated)
		}
		var who []string
		for _, l := range lines {
			who = append(who, l.Text+"="+l.Author)
		}
		if want := "zero=author2 one=author0 TWO=author3"; strings.Join(who, " ") != want {
			t.Fatalf("Blame = %s, want %s", strings.Join(who, " "), want)
		}
		ms, trunc, err := r.Search(ctx, head.Tree, code.SearchQuery{Text: "two"})
		if err != nil || trunc || len(ms) != 1 || ms[0].Path != "doc/notes.txt" || ms[0].Line != 3 {
			t.Fatalf("Search = %+v, %v, %v", ms, trunc, err)
		}
		if ms, _, _ := r.Search(ctx, head.Tree, code.SearchQuery{Text: "two", Case: true}); len(ms) != 0 {
			t.Fatalf("a case-sensitive search found %v", ms)
		}
		if ms, _, _ := r.Search(ctx, head.Tree, code.SearchQuery{Text: ".*"}); len(ms) != 0 {
			t.Fatalf("a query ran as a pattern: %v", ms)
		}
		if ms, trunc, _ := r.Search(ctx, head.Tree, code.SearchQuery{Text: "o", Max: 1}); len(ms) != 1 || !trunc {
			t.Fatalf("Search max 1 = %v, truncated %v", ms, trunc)
		}
		if _, _, err := r.Search(ctx, head.Tree, code.SearchQuery{Text: "x", Max: 201}); desk.ErrorCode(err) != desk.Invalid {
			t.Fatalf("Search max 201 = %v", err)
		}
		if ms, _, _ := r.Search(ctx, head.Tree, code.SearchQuery{Text: "zero", Under: "doc"}); len(ms) != 1 || ms[0].Path != "doc/notes.txt" {
			t.Fatalf("Search under doc = %v", ms)
		}
		diff, err := r.UnifiedDiff(ctx, rows[0].Tree, rows[3].Tree, 3)
		if err != nil || !strings.Contains(string(diff), "--- a/doc/notes.txt\n+++ b/doc/notes.txt\n@@ -1 +1,3 @@\n+zero\n one\n+TWO\n") {
			t.Fatalf("UnifiedDiff = %s, %v", diff, err)
		}
		base, err := r.MergeBase(ctx, rows[1].ID, last.ID)
		if err != nil || base == nil || *base != rows[1].ID {
			t.Fatalf("MergeBase = %v, %v", base, err)
		}
	})

	t.Run("OpenChanges", func(t *testing.T) {
		b := open(t)
		svc := code.NewService(b.Store, b.Objects)
		now := time.Date(2026, 10, 22, 14, 5, 0, 0, time.UTC)
		svc.Now = func() time.Time { return now }
		repo, err := svc.CreateRepo(ctx, "acme/game", "")
		if err != nil {
			t.Fatal(err)
		}
		r := svc.Repository(repo)
		base, _ := r.Commit(ctx, []code.FileData{{Path: "src/a.ts", Data: []byte("a\n")}, {Path: "src/b.ts", Data: []byte("b\n")}}, code.Meta{Author: "owner", Message: "base"})
		r.Land(ctx, base.ID, "owner")
		one, _ := r.Commit(ctx, []code.FileData{{Path: "src/a.ts", Data: []byte("a1\n")}, {Path: "src/b.ts", Data: []byte("b\n")}}, code.Meta{Parents: []code.ID{base.ID}, Author: "agent-gpuscale", Message: "one", Intents: []string{"MG-79"}})
		two, _ := r.Commit(ctx, []code.FileData{{Path: "src/a.ts", Data: []byte("a2\n")}, {Path: "src/b.ts", Data: []byte("b2\n")}}, code.Meta{Parents: []code.ID{base.ID}, Author: "agent-two", Message: "two"})
		if got, err := r.IndexOpen(ctx, one.ID, "ws-1"); err != nil || len(got.Overlaps) != 0 {
			t.Fatalf("first open change = %+v, %v", got, err)
		}
		got, err := r.IndexOpen(ctx, two.ID, "ws-2")
		if err != nil || len(got.Overlaps) != 1 {
			t.Fatalf("second open change = %+v, %v", got, err)
		}
		want := "warning: the open change " + one.ID.Short() + " of agent-gpuscale for MG-79 also changes src/a.ts (sent 2026-10-22 14:05 UTC)"
		if got.Overlaps[0].Warning != want {
			t.Fatalf("warning = %q\nwant      %q", got.Overlaps[0].Warning, want)
		}
		pairs, _ := r.Overlaps(ctx)
		if len(pairs) != 1 || fmt.Sprint(pairs[0].Shared) != "[src/a.ts]" {
			t.Fatalf("Overlaps = %+v", pairs)
		}
		if of, _ := r.OpenChangesOf(ctx, "ws-1"); len(of) != 1 || of[0].Workspace != "ws-2" {
			t.Fatalf("OpenChangesOf(ws-1) = %+v", of)
		}
		if _, err := r.IndexOpen(ctx, one.ID, "bad id!"); desk.ErrorCode(err) != desk.Invalid {
			t.Fatalf("a bad workspace = %v", err)
		}
		// Landing removes the row; fifteen days later nobody is warned.
		r.Land(ctx, one.ID, "agent-gpuscale")
		if pairs, _ := r.Overlaps(ctx); len(pairs) != 0 {
			t.Fatalf("after the landing the overlaps are %+v", pairs)
		}
		three, _ := r.Commit(ctx, []code.FileData{{Path: "src/a.ts", Data: []byte("a3\n")}, {Path: "src/b.ts", Data: []byte("b\n")}}, code.Meta{Parents: []code.ID{base.ID}, Author: "agent-three", Message: "three"})
		now = now.Add(15 * 24 * time.Hour)
		if got, _ := r.IndexOpen(ctx, three.ID, "ws-3"); len(got.Overlaps) != 0 {
			t.Fatalf("a 15-day-old open change warned: %+v", got.Overlaps)
		}
	})
}

func newRepository(t *testing.T, b Backend) *code.Repository {
	t.Helper()
	svc := code.NewService(b.Store, b.Objects)
	repo, err := svc.CreateRepo(context.Background(), "acme/game", "")
	if desk.ErrorCode(err) == desk.Conflict {
		repo, err = b.Store.Repo(context.Background(), "acme", "game")
	}
	if err != nil {
		t.Fatal(err)
	}
	return svc.Repository(repo)
}

func mustRow(t *testing.T, r *code.Repository, id code.ID) *code.ChangeRow {
	t.Helper()
	row, err := r.Get(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return row
}

func clone(m map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

// commitTree commits files (with modes where given) and returns the row.
func commitTree(t *testing.T, r *code.Repository, files map[string]string, modes map[string]code.Mode, parents []code.ID) *code.ChangeRow {
	t.Helper()
	var fs []code.FileData
	for p, d := range files {
		fs = append(fs, code.FileData{Path: p, Mode: modes[p], Data: []byte(d)})
	}
	row, err := r.Commit(context.Background(), fs, code.Meta{Parents: parents, Author: "ada", Message: "m"})
	if err != nil {
		t.Fatal(err)
	}
	return row
}

// sameObjects serves one repository's objects under another repository's
// id: a new table of changes over the objects that were kept.
type sameObjects struct {
	code.ObjectStores
	repo int64
}

// Objects returns the kept repository's store, whatever id is asked for.
func (s sameObjects) Objects(int64) code.ObjectStore { return s.ObjectStores.Objects(s.repo) }

// countingStores counts the reads of each object.
type countingStores struct {
	code.ObjectStores
	mu sync.Mutex
	n  map[code.ID]int
}

// Objects returns a repository's store that counts its reads.
func (c *countingStores) Objects(repo int64) code.ObjectStore {
	return countingStore{c.ObjectStores.Objects(repo), c}
}

func (c *countingStores) reads(id code.ID) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[id]
}

type countingStore struct {
	code.ObjectStore
	c *countingStores
}

// Get counts the read and reads.
func (s countingStore) Get(ctx context.Context, t code.Type, id code.ID) ([]byte, error) {
	s.c.mu.Lock()
	if s.c.n == nil {
		s.c.n = map[code.ID]int{}
	}
	s.c.n[id]++
	s.c.mu.Unlock()
	return s.ObjectStore.Get(ctx, t, id)
}
