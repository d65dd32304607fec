package gen

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// The cache of generated desks: each shape and seed is generated once per
// machine into .cache/bench at the desk module's root (or
// $DESK_BENCH_CACHE), in a folder whose name carries the generator's
// version, and runs work on copies of it.

var (
	cacheMu    sync.Mutex
	cacheLocks = map[string]*sync.Mutex{}
)

// Cached returns the folder of the generated desk of shape s and seed and
// its summary, generating it when the cache has none. The folder is shared
// by every run on the machine: read it only through a Copy, since merely
// opening a desk writes to it.
func Cached(s Shape, seed uint64) (string, *Summary, error) {
	root, err := CacheRoot()
	if err != nil {
		return "", nil, err
	}
	key := Key(s, seed)
	cacheMu.Lock()
	l := cacheLocks[key]
	if l == nil {
		l = &sync.Mutex{}
		cacheLocks[key] = l
	}
	cacheMu.Unlock()
	l.Lock()
	defer l.Unlock()

	final := filepath.Join(root, key)
	if sum, err := readSummary(final); err == nil {
		return filepath.Join(final, "desk"), sum, nil
	}
	// Another process may be generating the same desk: each generates into
	// its own folder and the first rename wins; the loser's copy is equal
	// byte for byte, so it is simply removed.
	tmp := filepath.Join(root, ".tmp-"+key+"-"+randomHex())
	defer os.RemoveAll(tmp)
	sum, err := Generate(context.Background(), filepath.Join(tmp, "desk"), s, seed)
	if err != nil {
		return "", nil, err
	}
	b, _ := json.MarshalIndent(sum, "", "  ")
	if err := os.WriteFile(filepath.Join(tmp, "summary.json"), b, 0o600); err != nil {
		return "", nil, err
	}
	if err := os.Rename(tmp, final); err != nil {
		if sum, err2 := readSummary(final); err2 == nil {
			return filepath.Join(final, "desk"), sum, nil
		}
		return "", nil, err
	}
	return filepath.Join(final, "desk"), sum, nil
}

// Key names the cache folder of shape s and seed: the shape's name, a
// checksum of its counts (two shapes may share a name), the seed and the
// generator's version.
func Key(s Shape, seed uint64) string {
	b, _ := json.Marshal(s)
	return fmt.Sprintf("%s-%08x-%d-v%d", s.Name, crc32.ChecksumIEEE(b), seed, Version)
}

func readSummary(dir string) (*Summary, error) {
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		return nil, err
	}
	var sum Summary
	if err := json.Unmarshal(b, &sum); err != nil {
		return nil, err
	}
	if sum.Version != Version {
		return nil, errors.New("summary of another generator version")
	}
	return &sum, nil
}

// CacheRoot is where generated desks are kept: $DESK_BENCH_CACHE, else
// .cache/bench at the root of the desk module above the working folder,
// else a folder in the user's cache.
func CacheRoot() (string, error) {
	if d := os.Getenv("DESK_BENCH_CACHE"); d != "" {
		return d, os.MkdirAll(d, 0o755)
	}
	if wd, err := os.Getwd(); err == nil {
		for d := wd; ; d = filepath.Dir(d) {
			if b, err := os.ReadFile(filepath.Join(d, "go.mod")); err == nil && isDeskModule(b) {
				root := filepath.Join(d, ".cache", "bench")
				return root, os.MkdirAll(root, 0o755)
			}
			if filepath.Dir(d) == d {
				break
			}
		}
	}
	uc, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	root := filepath.Join(uc, "desk-bench")
	return root, os.MkdirAll(root, 0o755)
}

func isDeskModule(gomod []byte) bool {
	var first string
	fmt.Sscanf(string(gomod), "module %s", &first)
	return first == "desk"
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Copy copies the desk folder src to dst, which must not exist. The
// database is copied; attachments, which nothing changes in place, are
// hard links where the file system allows (deleting one removes only the
// copy's name) and copies where it does not.
func Copy(src, dst string) error {
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("%s exists", dst)
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if rel != "desk.sqlite" && filepath.Dir(rel) != "." {
			if os.Link(p, to) == nil {
				return nil
			}
		}
		return copyFile(p, to)
	})
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
