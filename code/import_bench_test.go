package code_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"desk/bench/gitgen"
	"desk/code"
	"desk/code/memstore"
	"desk/sqlite"
)

// BenchmarkImportConversion measures the import's own work (git's reads,
// the conversion, the hashing, the rows in SQLite) with the objects kept
// in memory: what an import costs apart from the file system's creation of
// one file per object, which BenchmarkPut of package folderstore measures.
func BenchmarkImportConversion(b *testing.B) {
	top := strings.TrimSpace(string(must(exec.Command("git", "rev-parse", "--show-toplevel").Output())))
	generated := filepath.Join(b.TempDir(), "generated.git")
	if err := gitgen.Write(generated, "", gitgen.Issue); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, src, ref string }{{"self", top, "HEAD"}, {"generated", generated, "main"}} {
		b.Run(c.name, func(b *testing.B) {
			commits, _ := strconv.Atoi(strings.TrimSpace(string(must(exec.Command("git", "-C", c.src, "rev-list", "--count", c.ref).Output()))))
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db, err := sqlite.Open(context.Background(), b.TempDir(), sqlite.Options{})
				if err != nil {
					b.Fatal(err)
				}
				svc := code.NewService(db.Code(), memstore.New())
				repo, _ := svc.CreateRepo(context.Background(), "acme/bench", "")
				b.StartTimer()
				if _, err := svc.Repository(repo).ImportGit(context.Background(), code.ImportOptions{Source: c.src, Ref: c.ref}); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				db.Close()
			}
			b.ReportMetric(float64(commits)*float64(b.N)/b.Elapsed().Seconds(), "commits/s")
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
