package session

import (
	"bytes"
	"fmt"
	"testing"
)

// benchLines is output of plain lines, as cat of a log gives.
func benchLines(size int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "%08d the quick brown fox jumps over the lazy dog; build step %d of many\r\n", i, i%97)
	}
	return b.Bytes()
}

// BenchmarkScreenPlainLines is the screen model's rate on plain lines at
// 200×50, the fast path (jump scroll) on and off.
func BenchmarkScreenPlainLines(b *testing.B) {
	data := benchLines(4 << 20)
	for _, off := range []bool{false, true} {
		name := "jump"
		if off {
			name = "line-by-line"
		}
		b.Run(name, func(b *testing.B) {
			s := NewScreen(200, 50, DefaultScrollback)
			s.plain.off = off
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				for off := 0; off < len(data); off += 64 << 10 {
					s.Write(data[off:min(off+64<<10, len(data))])
				}
			}
		})
	}
}

// BenchmarkScreenColouredLines is the same with every line coloured,
// which the fast path leaves to the emulator.
func BenchmarkScreenColouredLines(b *testing.B) {
	var buf bytes.Buffer
	for i := 0; buf.Len() < 1<<20; i++ {
		fmt.Fprintf(&buf, "\x1b[3%dm%08d\x1b[0m coloured output line number %d\r\n", i%8, i, i)
	}
	data := buf.Bytes()
	s := NewScreen(200, 50, DefaultScrollback)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for off := 0; off < len(data); off += 64 << 10 {
			s.Write(data[off:min(off+64<<10, len(data))])
		}
	}
}
