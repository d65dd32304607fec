package intake

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"desk/agent"
)

// SpoolName is the file in the data folder where hooks keep the reports no
// server took; SpoolOldName holds the previous file once it grew past
// SpoolMax, so that the spool keeps the most recent reports.
const (
	SpoolName    = "agent-spool.jsonl"
	SpoolOldName = "agent-spool.old.jsonl"
)

// SpoolMax is the size past which the spool file is set aside and a new one
// begun; at most about twice this is kept.
const SpoolMax = 32 << 20

// spoolMax is SpoolMax, smaller in tests.
var spoolMax int64 = SpoolMax

// spoolPayloadMax caps a payload in the spool. The mappers need a few
// fields, not the tool results; agent.CapRaw keeps the shape and drops the
// largest values first.
const spoolPayloadMax = 64 << 10

// maxSpoolAttempts bounds how often a hook starts over on a spool file that
// a server took as the hook reached it: each time means a drain ran in
// between, and drains are seconds apart.
const maxSpoolAttempts = 1000

// drainSuffix marks a spool file taken by a server to replay.
const drainSuffix = ".replay"

// Spool appends a report to the data folder's spool. It creates no data
// folder: where there is no desk, there is nobody to tell.
func Spool(dataDir string, r *Report) error {
	if len(r.Payload) > spoolPayloadMax && r.Truncated == 0 {
		c := *r
		c.Payload = agent.CapRaw(r.Payload, spoolPayloadMax)
		r = &c
	}
	line, err := r.marshalLine()
	if err != nil {
		return err
	}
	path := filepath.Join(dataDir, SpoolName)
	for attempt := 0; ; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
		if err != nil {
			return err
		}
		if err := lockFile(f); err != nil {
			f.Close()
			return err
		}
		// A server may have taken the file between our open and our lock;
		// then it is no longer the spool, and we start over on the new one.
		// A line written to a taken file could land after the server read
		// it, and be lost: it is never written there.
		if !isCurrent(f, path) {
			f.Close()
			if attempt >= maxSpoolAttempts {
				return errors.New("spool: the spool file was taken every time this hook reached it; the report was not kept")
			}
			continue
		}
		if info, err := f.Stat(); err == nil && info.Size()+int64(len(line)) > spoolMax && info.Size() > 0 {
			// Set the full file aside (replacing the one set aside before)
			// and write to a new one.
			os.Rename(path, filepath.Join(dataDir, SpoolOldName))
			f.Close()
			continue
		}
		_, err = f.Write(line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
}

// isCurrent reports whether f is still the file at path.
func isCurrent(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

// Pending reports whether the data folder holds spooled reports, for a
// server to check cheaply before it drains.
func Pending(dataDir string) bool {
	for _, name := range []string{SpoolName, SpoolOldName} {
		if info, err := os.Stat(filepath.Join(dataDir, name)); err == nil && info.Size() > 0 {
			return true
		}
	}
	return false
}

// Drain takes the spooled reports out of the data folder and hands them to
// fn oldest first; fn's error is the report's, not the drain's. Lines that
// are not reports are skipped and counted in bad. Files a drain took and
// did not finish (the server stopped half way) are replayed first.
func Drain(dataDir string, fn func(*Report)) (n, bad int, err error) {
	stamp := strconv.FormatInt(time.Now().UnixNano(), 10)
	for i, name := range []string{SpoolOldName, SpoolName} {
		src := filepath.Join(dataDir, name)
		dst := filepath.Join(dataDir, "agent-spool."+stamp+"-"+strconv.Itoa(i)+drainSuffix)
		if err := os.Rename(src, dst); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, bad, err
		}
	}
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return n, bad, err
	}
	var taken []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "agent-spool.") && strings.HasSuffix(e.Name(), drainSuffix) {
			taken = append(taken, e.Name())
		}
	}
	slices.SortFunc(taken, compareTaken)
	var errs []error
	for _, name := range taken {
		path := filepath.Join(dataDir, name)
		k, b, err := drainFile(path, fn)
		n, bad = n+k, bad+b
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if err := os.Remove(path); err != nil {
			errs = append(errs, err)
		}
	}
	return n, bad, errors.Join(errs...)
}

// compareTaken orders taken files by their stamp, numerically, then by
// their index, so that the old file comes before the current one.
func compareTaken(a, b string) int {
	key := func(s string) (int64, string) {
		s = strings.TrimSuffix(strings.TrimPrefix(s, "agent-spool."), drainSuffix)
		stamp, idx, _ := strings.Cut(s, "-")
		n, _ := strconv.ParseInt(stamp, 10, 64)
		return n, idx
	}
	an, ai := key(a)
	bn, bi := key(b)
	if an != bn {
		if an < bn {
			return -1
		}
		return 1
	}
	return strings.Compare(ai, bi)
}

// drainFile replays one taken file. It waits for the lock of any hook that
// opened the file before it was taken and is still writing.
func drainFile(path string, fn func(*Report)) (n, bad int, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	if err := lockFile(f); err != nil {
		return 0, 0, err
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 2*MaxPayload)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		r, err := unmarshalLine(line)
		if err != nil {
			bad++
			continue
		}
		fn(r)
		n++
	}
	return n, bad, sc.Err()
}

// LastSpooled returns, per client, when its hooks last spooled a report
// that no server has replayed yet.
func LastSpooled(dataDir string) map[string]time.Time {
	out := map[string]time.Time{}
	entries, err := os.ReadDir(dataDir)
	if err != nil {
		return out
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "agent-spool.") {
			continue
		}
		f, err := os.Open(filepath.Join(dataDir, e.Name()))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 0, 64<<10), 2*MaxPayload)
		for sc.Scan() {
			var s struct {
				Client   string `json:"client"`
				Received string `json:"received"`
			}
			if json.Unmarshal(sc.Bytes(), &s) != nil {
				continue
			}
			if t, err := time.Parse(time.RFC3339Nano, s.Received); err == nil && t.After(out[s.Client]) {
				out[s.Client] = t
			}
		}
		f.Close()
	}
	return out
}
