// Package blobtest is the one test suite of desk's object stores
// (desk.Blobs): the data folder and S3 run it unchanged, and so does any
// store layered in front of them.
package blobtest

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"sync"
	"testing"

	"desk"
)

// Run runs the suite on stores that open returns, each empty.
func Run(t *testing.T, open func(tb testing.TB) desk.Blobs) {
	for _, tc := range []struct {
		name string
		fn   func(*testing.T, desk.Blobs)
	}{
		{"PutThenGetGivesTheSameBytes", putThenGet},
		{"OpenStreamsAndSeeks", openStreamsAndSeeks},
		{"PutReplaces", putReplaces},
		{"AMissingKeyIsNotFound", missingIsNotFound},
		{"DeleteRemovesAndForgivesAMissingKey", deleteRemoves},
		{"KeysThatLeaveTheStoreAreRefused", badKeys},
		{"ConcurrentWritersAndReadersSeeWholeObjects", concurrent},
	} {
		t.Run(tc.name, func(t *testing.T) { tc.fn(t, open(t)) })
	}
}

var ctx = context.Background()

func putThenGet(t *testing.T, s desk.Blobs) {
	cases := map[string][]byte{
		"attachments/mygame/2026-09/a1.png": []byte("\x89PNG\r\n\x1a\n\x00\x01"),
		"objects/blob/ab/abcdef":            bytes.Repeat([]byte("0123456789"), 100_000),
		"one":                               {0},
		"spaces and accents/é à.txt":        []byte("text"),
	}
	for k, v := range cases {
		if err := s.Put(ctx, k, v); err != nil {
			t.Fatalf("put %s: %v", k, err)
		}
	}
	for k, v := range cases {
		got, err := s.Get(ctx, k)
		if err != nil || !bytes.Equal(got, v) {
			t.Fatalf("get %s: %d bytes, %v; want %d bytes", k, len(got), err, len(v))
		}
	}
}

func openStreamsAndSeeks(t *testing.T, s desk.Blobs) {
	data := []byte("0123456789abcdefghij")
	if err := s.Put(ctx, "seek/me", data); err != nil {
		t.Fatal(err)
	}
	r, size, err := s.Open(ctx, "seek/me")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if size != int64(len(data)) {
		t.Fatalf("size %d, want %d", size, len(data))
	}
	if _, err := r.Seek(10, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 5)
	if _, err := io.ReadFull(r, b); err != nil || string(b) != "abcde" {
		t.Fatalf("after a seek: %q %v", b, err)
	}
	if n, err := r.Seek(-3, io.SeekEnd); err != nil || n != int64(len(data))-3 {
		t.Fatalf("seek from the end: %d %v", n, err)
	}
	rest, err := io.ReadAll(r)
	if err != nil || string(rest) != "hij" {
		t.Fatalf("the tail: %q %v", rest, err)
	}
}

func putReplaces(t *testing.T, s desk.Blobs) {
	for _, v := range []string{"first, longer version", "second"} {
		if err := s.Put(ctx, "k", []byte(v)); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := s.Get(ctx, "k"); err != nil || string(got) != "second" {
		t.Fatalf("%q %v", got, err)
	}
}

func missingIsNotFound(t *testing.T, s desk.Blobs) {
	if _, err := s.Get(ctx, "no/such/key"); desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("get of a missing key: %v", err)
	}
	if _, _, err := s.Open(ctx, "no/such/key"); desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("open of a missing key: %v", err)
	}
}

func deleteRemoves(t *testing.T, s desk.Blobs) {
	if err := s.Put(ctx, "gone/soon", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "gone/soon"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, "gone/soon"); desk.ErrorCode(err) != desk.NotFound {
		t.Fatalf("get after delete: %v", err)
	}
	if err := s.Delete(ctx, "gone/soon"); err != nil {
		t.Fatalf("delete of a missing key: %v", err)
	}
}

func badKeys(t *testing.T, s desk.Blobs) {
	for _, k := range []string{"", "/abs", "../up", "a/../../b", "a//b", "trailing/", "nul\x00", `back\slash`} {
		if err := s.Put(ctx, k, []byte("x")); desk.ErrorCode(err) != desk.Invalid {
			t.Errorf("put %q: %v, want invalid", k, err)
		}
		if _, err := s.Get(ctx, k); desk.ErrorCode(err) != desk.Invalid {
			t.Errorf("get %q: %v, want invalid", k, err)
		}
	}
}

// Writers and readers at once see whole objects. desk never replaces an
// object with other bytes while it may be read (attachments get new random
// keys, code objects are named by their hash, so a second write puts the
// same bytes): the suite asks exactly that of a store, for S3 servers
// differ in what a reader sees of a replacement in flight.
func concurrent(t *testing.T, s desk.Blobs) {
	hot := bytes.Repeat([]byte("abcdefgh"), 40_000)
	if err := s.Put(ctx, "hot", hot); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := 0; w < 4; w++ {
		wg.Add(2)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				if err := s.Put(ctx, "hot", hot); err != nil {
					errs <- err
					return
				}
				if err := s.Put(ctx, fmt.Sprintf("own/%d/%d", w, i), []byte{byte(w), byte(i)}); err != nil {
					errs <- err
					return
				}
			}
		}(w)
		go func() {
			defer wg.Done()
			for i := 0; i < 5; i++ {
				got, err := s.Get(ctx, "hot")
				if err != nil {
					errs <- err
					return
				}
				if !bytes.Equal(got, hot) {
					errs <- fmt.Errorf("read a torn object of %d bytes", len(got))
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for w := 0; w < 4; w++ {
		for i := 0; i < 5; i++ {
			if got, err := s.Get(ctx, fmt.Sprintf("own/%d/%d", w, i)); err != nil || !bytes.Equal(got, []byte{byte(w), byte(i)}) {
				t.Fatalf("own/%d/%d: %v %v", w, i, got, err)
			}
		}
	}
}
