package tiers_test

import (
	"testing"

	"desk"
	"desk/internal/s3server"
	"desk/s3"
	"desk/tiers"
)

// The cost of a 64 KiB read from each tier and from S3 itself (a local
// Versity Gateway, so the S3 figure is a floor: a real bucket adds the
// network).
func BenchmarkGet64KiB(b *testing.B) {
	srv := s3server.Start(b)
	st, err := s3.New(s3.Config{Endpoint: srv.Endpoint, Region: srv.Region, Bucket: "bench", AccessKey: srv.AccessKey, SecretKey: srv.SecretKey})
	if err != nil {
		b.Fatal(err)
	}
	if err := st.MakeBucket(ctx); err != nil {
		b.Fatal(err)
	}
	data := make([]byte, 64<<10)
	if err := st.Put(ctx, "obj", data); err != nil {
		b.Fatal(err)
	}
	disk, err := tiers.OpenDisk(b.TempDir(), 64<<20)
	if err != nil {
		b.Fatal(err)
	}
	disk.Put(ctx, "obj", data)
	mem := tiers.NewMemory(64 << 20)
	mem.Put(ctx, "obj", data)
	for _, c := range []struct {
		name  string
		store desk.Blobs
	}{
		{"Memory", tiers.New(st, tiers.Options{Tiers: []tiers.Tier{mem}})},
		{"Disk", tiers.New(st, tiers.Options{Tiers: []tiers.Tier{disk}})},
		{"S3", st},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if _, err := c.store.Get(ctx, "obj"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
