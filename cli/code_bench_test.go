package cli_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"desk/bench/gitgen"
)

// BenchmarkCodeImport measures desk repo import over the whole command
// (the process, the desk's start, git's and the import's work), on this
// repository's own history and on a generated one of 2,000 commits and
// 5,000 files. Each iteration imports into a new data folder whose
// repository was made before the clock started. commits/s is the target's
// unit (at least 500).
func BenchmarkCodeImport(b *testing.B) {
	self := filepath.Join(b.TempDir(), "self.git")
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		b.Fatal(err)
	}
	if out, err := exec.Command("git", "clone", "--quiet", "--bare", strings.TrimSpace(string(top)), self).CombinedOutput(); err != nil {
		b.Fatalf("%v: %s", err, out)
	}
	generated := filepath.Join(b.TempDir(), "generated.git")
	if err := gitgen.Write(generated, "", gitgen.Issue); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, src, ref string }{{"self", self, "HEAD"}, {"generated", generated, "main"}} {
		b.Run(c.name, func(b *testing.B) {
			out, err := exec.Command("git", "-C", c.src, "rev-list", "--count", c.ref).Output()
			if err != nil {
				b.Fatal(err)
			}
			commits, _ := strconv.Atoi(strings.TrimSpace(string(out)))
			var total time.Duration
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				data := filepath.Join(b.TempDir(), "data")
				if out, err := exec.Command(deskBin, "--data", data, "repo", "create", "acme/bench").CombinedOutput(); err != nil {
					b.Fatalf("%v: %s", err, out)
				}
				cmd := exec.Command(deskBin, "--data", data, "repo", "import", "acme/bench", "--git", c.src, "--ref", c.ref)
				cmd.Env = append(os.Environ(), "HOME="+b.TempDir())
				b.StartTimer()
				start := time.Now()
				out, err := cmd.CombinedOutput()
				total += time.Since(start)
				b.StopTimer()
				if err != nil {
					b.Fatalf("%v: %s", err, out)
				}
			}
			b.ReportMetric(float64(commits)*float64(b.N)/total.Seconds(), "commits/s")
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/import")
		})
	}
}
