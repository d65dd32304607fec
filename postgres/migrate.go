package postgres

import (
	"context"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// Migration is one numbered step of the schema: the file
// migrations/NNNN_name.sql, applied in one transaction and recorded in
// schema_migrations with the checksum of its text.
type Migration struct {
	Version  int
	Name     string
	SQL      string
	Checksum string // SHA-256 of SQL, in hex
}

// Migrations returns the schema's steps in the order of their versions.
// Versions are unique; they may skip numbers, and a database holding a
// version this desk does not know refuses it.
func Migrations() ([]Migration, error) {
	return readMigrations(migrationFiles, "migrations")
}

func readMigrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration file %s: its name must be NNNN_name.sql", name)
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(b)
		out = append(out, Migration{Version: v, Name: rest, SQL: string(b), Checksum: hex.EncodeToString(sum[:])})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i := 1; i < len(out); i++ {
		if out[i].Version == out[i-1].Version {
			return nil, fmt.Errorf("migration %04d_%s: version %d is taken by %04d_%s", out[i].Version, out[i].Name, out[i].Version, out[i-1].Version, out[i-1].Name)
		}
	}
	return out, nil
}

// migrateLock is the advisory lock two servers starting at once take, so
// that one migrates and the other finds it done.
const migrateLock int64 = 0x6465736b6d6967 // "deskmig"

// migrate applies the migrations the database lacks, each in its own
// transaction, and refuses to start when one that was applied has changed
// since (its checksum differs) or the database knows a newer one.
func migrate(ctx context.Context, pool *pgxpool.Pool, ms []Migration) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1)`, migrateLock); err != nil {
		return fmt.Errorf("migrate: take the migration lock: %w", err)
	}
	defer conn.Exec(context.WithoutCancel(ctx), `SELECT pg_advisory_unlock($1)`, migrateLock)
	if _, err := conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		checksum   text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	applied := map[int]Migration{}
	rows, err := conn.Query(ctx, `SELECT version, name, checksum FROM schema_migrations ORDER BY version`)
	if err != nil {
		return fmt.Errorf("migrate: read schema_migrations: %w", err)
	}
	for rows.Next() {
		var m Migration
		if err := rows.Scan(&m.Version, &m.Name, &m.Checksum); err != nil {
			rows.Close()
			return err
		}
		applied[m.Version] = m
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	known := map[int]bool{}
	for _, m := range ms {
		known[m.Version] = true
	}
	for v, a := range applied {
		if !known[v] {
			return fmt.Errorf("the database has migration %04d_%s, which this desk does not know: it was written by a newer desk; update desk", v, a.Name)
		}
	}
	for _, m := range ms {
		if a, ok := applied[m.Version]; ok {
			if a.Checksum != m.Checksum {
				return fmt.Errorf("migration %04d_%s was changed after the database applied it (checksum %s there, %s here): "+
					"never change an applied migration; restore its text and add a new migration instead", m.Version, m.Name, short(a.Checksum), short(m.Checksum))
			}
			continue
		}
		if err := apply(ctx, conn.Conn(), m); err != nil {
			return err
		}
	}
	return nil
}

func apply(ctx context.Context, conn *pgx.Conn, m Migration) error {
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, m.SQL); err != nil {
		return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
	}
	if _, err := tx.Exec(ctx, `INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)`, m.Version, m.Name, m.Checksum); err != nil {
		return fmt.Errorf("migration %04d_%s: record it: %w", m.Version, m.Name, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
	}
	return nil
}

func short(sum string) string {
	if len(sum) > 12 {
		return sum[:12]
	}
	return sum
}
