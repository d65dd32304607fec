package tiers_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"desk"
	"desk/blobtest"
	"desk/folder"
	"desk/internal/s3server"
	"desk/s3"
	"desk/tiers"
)

var ctx = context.Background()

func tiered(tb testing.TB, origin desk.Blobs) (*tiers.Store, *tiers.Memory, *tiers.Disk) {
	tb.Helper()
	mem := tiers.NewMemory(1 << 20)
	disk, err := tiers.OpenDisk(tb.TempDir(), 8<<20)
	if err != nil {
		tb.Fatal(err)
	}
	return tiers.New(origin, tiers.Options{Tiers: []tiers.Tier{mem, disk}}), mem, disk
}

// The tiers are an object store like the one behind them: the same suite,
// on the folder and on a real S3 server.
func TestBlobSuiteThroughTheTiers(t *testing.T) {
	t.Run("Folder", func(t *testing.T) {
		blobtest.Run(t, func(tb testing.TB) desk.Blobs {
			s, _, _ := tiered(tb, folder.New(tb.TempDir()))
			return s
		})
	})
	t.Run("S3", func(t *testing.T) {
		srv := s3server.Start(t)
		n := 0
		blobtest.Run(t, func(tb testing.TB) desk.Blobs {
			n++
			st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: fmt.Sprintf("tiers-%d", n),
				AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
			if err != nil {
				tb.Fatal(err)
			}
			if err := st.MakeBucket(ctx); err != nil {
				tb.Fatal(err)
			}
			s, _, _ := tiered(tb, st)
			return s
		})
	})
}

func TestReadsTakeTheFirstTierAndFillTheOnesInFront(t *testing.T) {
	origin := folder.New(t.TempDir())
	if err := origin.Put(ctx, "a", []byte("from the store")); err != nil {
		t.Fatal(err)
	}
	s, mem, disk := tiered(t, origin)
	for i := 0; i < 3; i++ {
		if b, err := s.Get(ctx, "a"); err != nil || string(b) != "from the store" {
			t.Fatalf("read %d: %q %v", i, b, err)
		}
	}
	st := s.Stats()
	if st.StoreReads != 1 || st.Hits[0] != 2 || st.Hits[1] != 0 {
		t.Fatalf("after three reads: %+v", st)
	}
	mem.Delete(ctx, "a") // as if the memory had let it go
	if b, err := s.Get(ctx, "a"); err != nil || string(b) != "from the store" {
		t.Fatal(b, err)
	}
	if st := s.Stats(); st.Hits[1] != 1 || st.StoreReads != 1 {
		t.Fatalf("the disk copy was not read: %+v", st)
	}
	if _, ok := mem.Get(ctx, "a"); !ok {
		t.Fatal("a disk hit did not fill the memory")
	}
	if disk.Size() == 0 {
		t.Fatal("the disk holds nothing")
	}
}

// refusing is a store that takes no write.
type refusing struct{ desk.Blobs }

func (refusing) Put(context.Context, string, []byte) error {
	return errors.New("bucket refuses writes")
}

func TestAWriteGoesToTheStoreFirst(t *testing.T) {
	s, mem, disk := tiered(t, refusing{folder.New(t.TempDir())})
	if err := s.Put(ctx, "k", []byte("x")); err == nil {
		t.Fatal("a refused write succeeded")
	}
	if _, ok := mem.Get(ctx, "k"); ok {
		t.Fatal("the memory holds an object the store refused")
	}
	if _, ok := disk.Get(ctx, "k"); ok {
		t.Fatal("the disk holds an object the store refused")
	}
}

// slow is a tier that answers after a delay, with the wrong bytes.
type slow struct{ delay time.Duration }

func (s slow) Get(context.Context, string) ([]byte, bool) {
	time.Sleep(s.delay)
	return []byte("stale"), true
}
func (slow) Put(context.Context, string, []byte) {}
func (slow) Delete(context.Context, string)      {}

func TestASlowOrSpoiledTierIsAMissNotAnError(t *testing.T) {
	origin := folder.New(t.TempDir())
	origin.Put(ctx, "k", []byte("right"))
	s := tiers.New(origin, tiers.Options{Tiers: []tiers.Tier{slow{2 * time.Second}}, Timeout: 50 * time.Millisecond})
	start := time.Now()
	if b, err := s.Get(ctx, "k"); err != nil || string(b) != "right" {
		t.Fatalf("%q %v", b, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Fatalf("the read waited %v for the slow tier", d)
	}
	// A disk tier whose file was spoiled, and one whose folder is gone.
	dir := t.TempDir()
	disk, _ := tiers.OpenDisk(dir, 1<<20)
	s = tiers.New(origin, tiers.Options{Tiers: []tiers.Tier{disk}})
	s.Get(ctx, "k") // fills the disk
	filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err == nil && !e.IsDir() {
			b, _ := os.ReadFile(p)
			b[len(b)-1] ^= 0xff
			os.WriteFile(p, b, 0o600)
		}
		return nil
	})
	if b, err := s.Get(ctx, "k"); err != nil || string(b) != "right" {
		t.Fatalf("through a spoiled file: %q %v", b, err)
	}
	os.RemoveAll(dir)
	if b, err := s.Get(ctx, "k"); err != nil || string(b) != "right" {
		t.Fatalf("through a lost folder: %q %v", b, err)
	}
	if err := s.Put(ctx, "k2", []byte("still stored")); err != nil {
		t.Fatalf("a write with the disk tier gone: %v", err)
	}
}

func TestVerifiedReadsDropCopiesThatDoNotMatchTheirKey(t *testing.T) {
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	data := []byte("content-addressed")
	key := "objects/blob/" + sum(data)
	origin := folder.New(t.TempDir())
	origin.Put(ctx, key, data)
	mem := tiers.NewMemory(1 << 20)
	mem.Put(ctx, key, []byte("not these bytes"))
	s := tiers.New(origin, tiers.Options{Tiers: []tiers.Tier{mem},
		Verify: func(k string, b []byte) bool { return filepath.Base(k) == sum(b) }})
	if b, err := s.Get(ctx, key); err != nil || !bytes.Equal(b, data) {
		t.Fatalf("%q %v", b, err)
	}
	if st := s.Stats(); st.TierFailures != 1 || st.StoreReads != 1 {
		t.Fatalf("%+v", st)
	}
	if b, _ := mem.Get(ctx, key); !bytes.Equal(b, data) {
		t.Fatalf("the memory kept the wrong copy: %q", b)
	}
	origin.Put(ctx, key, []byte("the store is wrong too"))
	mem.Delete(ctx, key)
	if _, err := s.Get(ctx, key); desk.ErrorCode(err) != desk.Internal {
		t.Fatalf("wrong bytes from the store: %v", err)
	}
}

func TestTheMemoryTierStaysWithinItsBoundLeastRecentlyUsedFirst(t *testing.T) {
	mem := tiers.NewMemory(800)
	for i := 0; i < 10; i++ {
		mem.Put(ctx, fmt.Sprint(i), bytes.Repeat([]byte{byte(i)}, 100))
		mem.Get(ctx, "0") // kept in use
	}
	if mem.Size() > 800 {
		t.Fatalf("holds %d bytes of 800", mem.Size())
	}
	if _, ok := mem.Get(ctx, "0"); !ok {
		t.Fatal("the most used object went")
	}
	if _, ok := mem.Get(ctx, "1"); ok {
		t.Fatal("the least recently used object stayed")
	}
	mem.Put(ctx, "big", make([]byte, 101)) // more than an eighth
	if _, ok := mem.Get(ctx, "big"); ok {
		t.Fatal("an object over an eighth of the tier was kept")
	}
}

func TestTheDiskTierEvictsToFourFifthsAndCountsWhatItFinds(t *testing.T) {
	dir := t.TempDir()
	disk, err := tiers.OpenDisk(dir, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 12; i++ {
		disk.Put(ctx, fmt.Sprint(i), make([]byte, 1000-32)) // 1000 bytes with the hash
		disk.Get(ctx, "0")
	}
	if disk.Size() > 10_000 {
		t.Fatalf("holds %d of 10000", disk.Size())
	}
	if _, ok := disk.Get(ctx, "0"); !ok {
		t.Fatal("the most used file went")
	}
	if _, ok := disk.Get(ctx, "1"); ok {
		t.Fatal("the least recently used file stayed")
	}
	again, err := tiers.OpenDisk(dir, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	if again.Size() != disk.Size() {
		t.Fatalf("a new process counts %d bytes, the old one %d", again.Size(), disk.Size())
	}
	if b, ok := again.Get(ctx, "0"); !ok || len(b) != 1000-32 {
		t.Fatal("a new process does not read the files of the old one")
	}
	small, _ := tiers.OpenDisk(dir, 4000)
	if small.Size() > 4000 {
		t.Fatalf("a smaller limit at open left %d bytes", small.Size())
	}
}
