package gen

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"desk"
	"desk/sqlite"
)

// tiny is a small shape for tests: every kind of row, in seconds.
var tiny = Shape{Name: "tiny", Projects: 3, Issues: 240, MainIssues: 180, Comments: 1800, RichComments: 140,
	Attachments: 400, Activity: 3300, Handoffs: 14}

func TestEveryNamedShapeAndScaleIsHonouredExactly(t *testing.T) {
	for _, s := range []Shape{tiny, PairDesk, Core, PairDesk.Scale(0.25), PairDesk.Scale(3)} {
		m, err := build(s, 7)
		if err != nil {
			t.Fatalf("%s: %v", s.Name, err)
		}
		// build checks the totals itself; the split by project is ours.
		if got := len(m.projects[0].issues); got != s.MainIssues {
			t.Errorf("%s: main project has %d issues, want %d", s.Name, got, s.MainIssues)
		}
		if len(m.projects) != s.Projects {
			t.Errorf("%s: %d projects, want %d", s.Name, len(m.projects), s.Projects)
		}
	}
}

func TestLargeShapeIsAHundredThousandIssuesAndAMillionComments(t *testing.T) {
	if Large.Issues != 100000 || Large.Comments != 1000000 {
		t.Fatalf("large shape: %d issues, %d comments", Large.Issues, Large.Comments)
	}
	if err := Large.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestSameSeedGivesTheSameBytesAndAnotherSeedDoesNot(t *testing.T) {
	ctx := context.Background()
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	for dir, seed := range map[string]uint64{a: 42, b: 42, c: 43} {
		if _, err := Generate(ctx, dir, tiny, seed); err != nil {
			t.Fatal(err)
		}
	}
	fa, fb, fc := digestTree(t, a), digestTree(t, b), digestTree(t, c)
	if len(fa) < tiny.Attachments/2 {
		t.Fatalf("only %d files in the desk", len(fa))
	}
	if !bytes.Equal([]byte(fmt.Sprint(fa)), []byte(fmt.Sprint(fb))) {
		for i := range min(len(fa), len(fb)) {
			if fa[i] != fb[i] {
				t.Fatalf("seed 42 twice differs first at %s / %s", fa[i], fb[i])
			}
		}
		t.Fatalf("seed 42 twice gives %d and %d files", len(fa), len(fb))
	}
	if fmt.Sprint(fa) == fmt.Sprint(fc) {
		t.Fatal("seeds 42 and 43 give the same desk")
	}
}

// digestTree lists every file of dir with a hash of its bytes, sorted.
func digestTree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		out = append(out, fmt.Sprintf("%s %x", filepath.ToSlash(rel), sha256.Sum256(data)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// TestGeneratedDeskReadsLikeALiveOne opens a generated desk with the store
// and checks what the benchmarks rely on: the busiest issue, the spread of
// statuses and plan states, merges, parents, files that are real images,
// handoff versions, builds, and search finding the common area.
func TestGeneratedDeskReadsLikeALiveOne(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	sum, err := Generate(ctx, dir, tiny, 5)
	if err != nil {
		t.Fatal(err)
	}
	db, err := sqlite.Open(ctx, dir, sqlite.Options{NoCreate: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	projects, err := db.Projects(ctx)
	if err != nil || len(projects) != tiny.Projects {
		t.Fatalf("projects: %d, %v", len(projects), err)
	}
	rich, err := db.Issue(ctx, sum.Rich)
	if err != nil {
		t.Fatal(err)
	}
	if len(rich.Comments) != tiny.RichComments || rich.CommentCount != tiny.RichComments {
		t.Errorf("%s has %d comments (count %d), want %d", sum.Rich, len(rich.Comments), rich.CommentCount, tiny.RichComments)
	}
	if rich.Area != "terrain" || len(rich.Attachments) < 5 || len(rich.Activity) < 20 {
		t.Errorf("busiest issue: area %q, %d files, %d entries", rich.Area, len(rich.Attachments), len(rich.Activity))
	}

	all, err := db.Issues(ctx, sum.Main, desk.IssueFilter{Limit: desk.MaxListLimit})
	if err != nil {
		t.Fatal(err)
	}
	if all.Total != tiny.MainIssues-all.Counts.Merged {
		t.Errorf("main project lists %d issues (%d merged), want %d in all", all.Total, all.Counts.Merged, tiny.MainIssues)
	}
	for _, st := range desk.Statuses {
		if all.Counts.Status[st] == 0 {
			t.Errorf("no issue is %s", st)
		}
	}
	if all.Counts.Merged == 0 {
		t.Error("no issue is merged")
	}
	if all.Counts.Area["terrain"] < all.Total/10 {
		t.Errorf("terrain has %d of %d issues; it should be the common area", all.Counts.Area["terrain"], all.Total)
	}
	states := map[string]int{}
	children := 0
	for _, is := range all.Issues {
		for _, st := range is.Plan.Steps {
			states[st.State]++
		}
		children += is.ChildCount
	}
	for _, st := range desk.StepStates {
		if states[st] == 0 {
			t.Errorf("no plan step is %s", st)
		}
	}
	if children == 0 {
		t.Error("no issue has children")
	}

	found, err := db.Issues(ctx, sum.Main, desk.IssueFilter{Q: "terrain", Limit: 200})
	if err != nil || found.Total < 10 {
		t.Fatalf("search terrain: %v, %+v", err, found)
	}

	if len(rich.Attachments) > 0 {
		a, rc, err := db.OpenAttachment(ctx, rich.Attachments[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(rc)
		rc.Close()
		if desk.SniffImage(data) != a.Mime || int64(len(data)) != a.Size {
			t.Errorf("attachment %d: %d bytes sniffed as %q, stored as %s of %d", a.ID, len(data), desk.SniffImage(data), a.Mime, a.Size)
		}
	}
	versions := 0
	for _, p := range projects {
		h, err := db.HandoffHistory(ctx, p.Slug)
		if err != nil {
			t.Fatal(err)
		}
		versions += len(h)
	}
	if versions != tiny.Handoffs {
		t.Errorf("%d handoff versions, want %d", versions, tiny.Handoffs)
	}
	b, err := db.BuildState(ctx, sum.Main)
	if err != nil || b.Build == nil || !b.Enabled {
		t.Errorf("main project build: %+v, %v", b, err)
	}
}

func TestCacheKeyCarriesShapeSeedAndVersion(t *testing.T) {
	k1, k2 := Key(tiny, 1), Key(tiny, 2)
	bigger := tiny
	bigger.Comments++
	if k1 == k2 || k1 == Key(bigger, 1) {
		t.Fatalf("keys do not tell desks apart: %s %s %s", k1, k2, Key(bigger, 1))
	}
}
