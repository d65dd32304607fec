package agent

import (
	"bytes"
	"errors"
	"io"
	"os"
	"time"
)

// MaxLine is the longest transcript line a Tail returns; longer lines (a
// tool result holding a whole file) are skipped, since their end is all that
// matters and the next line tells the state anyway.
const MaxLine = 4 << 20

// Tail reads a growing file line by line, returning only what was appended
// since the previous read and holding an unfinished last line until its end
// arrives.
type Tail struct {
	Path   string
	Offset int64 // the next byte to read

	partial  []byte
	skipping bool // inside an over-long line, or a line the tail started in the middle of
	// Skipped counts lines dropped for being longer than MaxLine.
	Skipped int
	// ModTime is the file's modification time at the last read.
	ModTime time.Time
}

// NewTail returns a Tail that starts at offset. When offset falls inside a
// line, the rest of that line is dropped: half a record is no record.
func NewTail(path string, offset int64) *Tail {
	t := &Tail{Path: path, Offset: offset}
	if offset > 0 {
		t.skipping = true
		if f, err := os.Open(path); err == nil {
			var b [1]byte
			if _, err := f.ReadAt(b[:], offset-1); err == nil && b[0] == '\n' {
				t.skipping = false
			}
			f.Close()
		}
	}
	return t
}

// Read returns the complete lines appended since the last call, without
// their newlines, reading at most max bytes. A file that shrank was replaced
// or truncated, and is read again from its start.
func (t *Tail) Read(max int) ([][]byte, error) {
	f, err := os.Open(t.Path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	t.ModTime = st.ModTime()
	if st.Size() < t.Offset {
		t.Offset, t.partial, t.skipping = 0, nil, false
	}
	n := min(st.Size()-t.Offset, int64(max))
	if n <= 0 {
		return nil, nil
	}
	buf := make([]byte, n)
	got, err := f.ReadAt(buf, t.Offset)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	t.Offset += int64(got)
	return t.split(buf[:got]), nil
}

// split cuts data into complete lines, carrying the unfinished rest.
func (t *Tail) split(data []byte) [][]byte {
	var lines [][]byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			if t.skipping {
				return lines
			}
			if len(t.partial)+len(data) > MaxLine {
				t.partial, t.skipping = nil, true
				t.Skipped++
				return lines
			}
			t.partial = append(t.partial, data...)
			return lines
		}
		line := data[:i]
		data = data[i+1:]
		if t.skipping {
			t.skipping = false
			continue
		}
		if len(t.partial) > 0 {
			line = append(t.partial, line...)
			t.partial = nil
		}
		if len(line) > MaxLine {
			t.Skipped++
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			lines = append(lines, line)
		}
	}
	return lines
}
