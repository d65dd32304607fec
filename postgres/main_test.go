package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"desk/folder"
	"desk/postgres"
	"desk/storetest"

	"github.com/jackc/pgx/v5"
)

// serverURL is the PostgreSQL server the tests run on: DESK_TEST_POSTGRES,
// or the one on this machine (127.0.0.1:5432, trust authentication).
func serverURL() string {
	if u := os.Getenv("DESK_TEST_POSTGRES"); u != "" {
		return u
	}
	return "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
}

// testDB is the database this run of the tests made for itself, and drops
// when it ends.
var testDB string

// TestMain makes a fresh database for the package's tests and drops it
// afterwards. A server that cannot be reached fails the run. With
// DESK_TEST_CLAIM_RACER set the binary is a racer process instead (see
// claimRacer).
func TestMain(m *testing.M) {
	if url := os.Getenv("DESK_TEST_CLAIM_RACER"); url != "" {
		os.Exit(claimRacer(url, os.Getenv("DESK_TEST_HOLDER")))
	}
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, serverURL())
	if err != nil {
		fmt.Fprintf(os.Stderr, "postgres tests: cannot reach PostgreSQL at %s: %v\n(start it, or point DESK_TEST_POSTGRES at one)\n",
			postgres.Redact(serverURL()), err)
		os.Exit(1)
	}
	var b [4]byte
	rand.Read(b[:])
	name := "desk_test_" + strconv.Itoa(os.Getpid()) + "_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		fmt.Fprintln(os.Stderr, "postgres tests: create database:", err)
		os.Exit(1)
	}
	testDB = name
	code := m.Run()
	if _, err := admin.Exec(ctx, "DROP DATABASE "+name+" WITH (FORCE)"); err != nil {
		fmt.Fprintln(os.Stderr, "postgres tests: drop database:", err)
	}
	admin.Close(ctx)
	os.Exit(code)
}

// dbURL is the URL of the test database, its tables in schema (one per
// store, so that every test starts from an empty store).
func dbURL(schema string) string {
	cfg, err := pgx.ParseConfig(serverURL())
	if err != nil {
		panic(err)
	}
	return fmt.Sprintf("postgres://%s@%s:%d/%s?sslmode=disable&search_path=%s", cfg.User, cfg.Host, cfg.Port, testDB, schema)
}

var schemas atomic.Int64

// newSchema makes an empty schema in the test database and returns the URL
// that works in it.
func newSchema(tb testing.TB) string {
	tb.Helper()
	ctx := context.Background()
	name := fmt.Sprintf("s%d", schemas.Add(1))
	conn, err := pgx.Connect(ctx, dbURL("public"))
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+name); err != nil {
		tb.Fatal(err)
	}
	return dbURL(name)
}

// open opens a store at url with its attachments in dir.
func open(tb testing.TB, url, dir string) *postgres.DB {
	tb.Helper()
	db, err := postgres.Open(context.Background(), url, postgres.Options{Blobs: folder.New(dir)})
	if err != nil {
		tb.Fatal(err)
	}
	return db
}

// stores remembers where each store's handle points, for Another.
type handle struct {
	url, dir string
}

var handles = map[*postgres.DB]handle{}

// TestStoreSuite runs the store suite on PostgreSQL: each store is a
// schema of its own in this run's database, and another handle is
// another pool on that schema, as another replica of the server holds.
func TestStoreSuite(t *testing.T) { storetest.Run(t, backend) }

// BenchmarkStoreSuite is the suite's workload (storetest.Bench), for the
// same figures on every backend.
func BenchmarkStoreSuite(b *testing.B) { storetest.Bench(b, backend) }

var backend = storetest.Backend{
	New: func(tb testing.TB) storetest.Store {
		h := handle{url: newSchema(tb), dir: tb.TempDir()}
		db := open(tb, h.url, h.dir)
		handles[db] = h
		return db
	},
	Another: func(tb testing.TB, s storetest.Store) storetest.Store {
		h := handles[s.(*postgres.DB)]
		db := open(tb, h.url, h.dir)
		handles[db] = h
		return db
	},
	Clock: func(s storetest.Store, now func() time.Time) { s.(*postgres.DB).Now = now },
	Close: func(s storetest.Store) error { return s.(*postgres.DB).Close() },
}
