package sqlite_test

import (
	"context"
	"testing"
	"time"

	"desk/sqlite"
	"desk/storetest"
)

// The store suite, on the embedded store: each store is a folder of its
// own, and another handle is another open of that folder, as another
// process makes.
func TestStoreSuite(t *testing.T) { storetest.Run(t, backend) }

// BenchmarkStoreSuite is the suite's workload (storetest.Bench), for the
// same figures on every backend.
func BenchmarkStoreSuite(b *testing.B) { storetest.Bench(b, backend) }

var backend = storetest.Backend{
	New: func(tb testing.TB) storetest.Store {
		db, err := sqlite.Open(context.Background(), tb.TempDir(), sqlite.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		return db
	},
	Another: func(tb testing.TB, s storetest.Store) storetest.Store {
		db, err := sqlite.Open(context.Background(), s.(*sqlite.DB).Dir(), sqlite.Options{})
		if err != nil {
			tb.Fatal(err)
		}
		return db
	},
	Clock: func(s storetest.Store, now func() time.Time) { s.(*sqlite.DB).Now = now },
	Close: func(s storetest.Store) error { return s.(*sqlite.DB).Close() },
}
