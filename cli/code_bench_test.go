package cli_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
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

// BenchmarkThinClient runs desk and git side by side on one history (this
// repository's own, and a generated one of 2,000 commits and 5,000 files),
// imported with desk repo import and served by a real desk serve: in each
// round, interleaved, git clone of a local bare copy and desk checkout,
// git status and desk status with nothing changed, then desk change of one
// file and desk land. Beside each status, the floor: git --version and
// desk version, processes that do nothing but start. Each figure is the median of the rounds' wall times
// of the whole command (a process of its own), in ms.
func BenchmarkThinClient(b *testing.B) {
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
			root := b.TempDir()
			home := filepath.Join(root, "home")
			data := filepath.Join(root, "data")
			os.MkdirAll(home, 0o700)
			env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GIT_CONFIG_NOSYSTEM=1"}
			run := func(dir string, name string, args ...string) time.Duration {
				b.Helper()
				cmd := exec.Command(name, args...)
				cmd.Dir, cmd.Env = dir, env
				start := time.Now()
				out, err := cmd.CombinedOutput()
				d := time.Since(start)
				if err != nil {
					b.Fatalf("%s %v: %v: %s", name, args, err, out)
				}
				return d
			}
			run(root, deskBin, "--data", data, "repo", "create", "acme/bench")
			run(root, deskBin, "--data", data, "repo", "import", "acme/bench", "--git", c.src, "--ref", c.ref)
			run(root, deskBin, "--data", data, "serve", "--detach", "--port", "0")
			defer exec.Command(deskBin, "--data", data, "stop").Run()
			run(root, deskBin, "--data", data, "login")
			bare := filepath.Join(root, "bare.git")
			run(root, "git", "clone", "--quiet", "--bare", c.src, bare)
			var clone, checkout, gitVersion, version, gitStatus, status, change, land []time.Duration
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				g, d := fmt.Sprintf("g%d", i), fmt.Sprintf("d%d", i)
				clone = append(clone, run(root, "git", "clone", "--quiet", bare, g))
				checkout = append(checkout, run(root, deskBin, "checkout", "acme/bench", d))
				gd, dd := filepath.Join(root, g), filepath.Join(root, d)
				// The first status after a checkout settles the index
				// (files written in the racy window are read once).
				run(gd, "git", "status")
				run(dd, deskBin, "status")
				time.Sleep(60 * time.Millisecond)
				for k := 0; k < 3; k++ {
					gitVersion = append(gitVersion, run(gd, "git", "--version"))
					version = append(version, run(dd, deskBin, "version"))
					gitStatus = append(gitStatus, run(gd, "git", "status"))
					status = append(status, run(dd, deskBin, "status"))
				}
				os.WriteFile(filepath.Join(dd, "BENCH.txt"), []byte(fmt.Sprintf("round %d\n", i)), 0o644)
				change = append(change, run(dd, deskBin, "change", "-m", "bench "+d))
				land = append(land, run(dd, deskBin, "land"))
				os.RemoveAll(gd)
				os.RemoveAll(dd)
			}
			b.StopTimer()
			for _, m := range []struct {
				name string
				ds   []time.Duration
			}{{"gitclone-ms", clone}, {"checkout-ms", checkout}, {"gitversion-ms", gitVersion}, {"version-ms", version}, {"gitstatus-ms", gitStatus}, {"status-ms", status}, {"change-ms", change}, {"land-ms", land}} {
				b.ReportMetric(medianMS(m.ds), m.name)
			}
		})
	}
}

func medianMS(ds []time.Duration) float64 {
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return float64(s[len(s)/2].Microseconds()) / 1000
}
