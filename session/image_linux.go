package session

import (
	"bufio"
	"bytes"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// releaseImage gives back the pages of desk's own executable that this
// process maps but does not need now: starting a Go program touches
// pages all over its binary (the runtime, every package's initialiser,
// and the kernel maps the pages around each fault with it), and a holder
// then idles for hours on a few of them. Only mappings that were never
// written are released (read-only, no private copy of any page), so
// their contents are the file's, which the kernel reads again on the next
// touch; the binary cannot be rewritten in place while it runs. It
// returns the bytes it released.
func releaseImage() int {
	exe, err := os.Readlink("/proc/self/exe")
	if err != nil {
		return 0
	}
	b, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return 0
	}
	type mapping struct {
		start, end uint64
		ok         bool // read-only, of the executable
		rss, anon  int
	}
	var maps []mapping
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 0 {
			continue
		}
		if i := bytes.IndexByte(f[0], '-'); i > 0 && len(f) >= 5 && !bytes.HasSuffix(f[0], []byte(":")) {
			start, err1 := strconv.ParseUint(string(f[0][:i]), 16, 64)
			end, err2 := strconv.ParseUint(string(f[0][i+1:]), 16, 64)
			if err1 != nil || err2 != nil {
				continue
			}
			perms := f[1]
			path := ""
			if len(f) >= 6 {
				path = string(f[5])
			}
			maps = append(maps, mapping{start: start, end: end, ok: path == exe && len(perms) == 4 && perms[1] == '-' && perms[3] == 'p'})
			continue
		}
		if len(maps) == 0 || len(f) < 2 {
			continue
		}
		m := &maps[len(maps)-1]
		kb, _ := strconv.Atoi(string(f[1]))
		switch string(f[0]) {
		case "Rss:":
			m.rss = kb
		case "Anonymous:":
			m.anon = kb
		}
	}
	released := 0
	for _, m := range maps {
		if !m.ok || m.anon != 0 || m.rss == 0 {
			continue
		}
		if _, _, errno := unix.Syscall(unix.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), unix.MADV_DONTNEED); errno == 0 {
			released += m.rss << 10
		}
	}
	return released
}
