package load

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strconv"

	"desk"

	"github.com/jackc/pgx/v5"
)

// benchDatabase makes a fresh database on the server at server and
// returns its URL and a function that drops it.
func benchDatabase(ctx context.Context, server string) (string, func(), error) {
	admin, err := pgx.Connect(ctx, server)
	if err != nil {
		return "", nil, desk.Errorf(desk.Invalid, "cannot reach PostgreSQL at %s: %v", redactURL(server), err).
			WithHint("start it, or name another with --postgres")
	}
	var b [4]byte
	rand.Read(b[:])
	name := "desk_bench_" + strconv.Itoa(os.Getpid()) + "_" + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		admin.Close(ctx)
		return "", nil, fmt.Errorf("create the bench's database: %w", err)
	}
	u, err := url.Parse(server)
	if err != nil {
		admin.Close(ctx)
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		c := context.WithoutCancel(ctx)
		admin.Exec(c, "DROP DATABASE "+name+" WITH (FORCE)")
		admin.Close(c)
	}
	return u.String(), drop, nil
}

func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// teamComments counts the stored texts of the run's comments.
func teamComments(ctx context.Context, dbURL string) (map[string]int, error) {
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT text, count(*) FROM comments WHERE text LIKE 'bench write %' GROUP BY text`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, rows.Err()
}

// localComments counts them in the embedded desk's database.
func localComments(ctx context.Context, path string) (map[string]int, error) {
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro&_pragma=busy_timeout(10000)")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	rows, err := db.QueryContext(ctx, `SELECT text, count(*) FROM comments WHERE text LIKE 'bench write %' GROUP BY text`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var t string
		var n int
		if err := rows.Scan(&t, &n); err != nil {
			return nil, err
		}
		out[t] = n
	}
	return out, rows.Err()
}
