package postgres_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"testing"

	"desk"
	deskhttp "desk/http"
	"desk/identity"
)

// BenchmarkTeamAuthenticate is what a team server's request pays to know
// its caller: from PostgreSQL (a token's identity and its grants, two
// queries), and from the replica's one-second cache, which almost every
// request of a busy agent hits.
func BenchmarkTeamAuthenticate(b *testing.B) {
	ctx := context.Background()
	db := open(b, newSchema(b), b.TempDir())
	defer db.Close()
	svc := identity.New(db.Identities())
	_, token, err := svc.Add(ctx, "bench-agent", identity.Agent)
	if err != nil {
		b.Fatal(err)
	}
	for _, p := range []string{"mygame", "other"} {
		if _, err := svc.Grant(ctx, "bench-agent", p, identity.Write); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("database", func(b *testing.B) {
		for b.Loop() {
			if _, err := svc.Authenticate(ctx, token); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		cache := identity.NewCache(svc, 0)
		for b.Loop() {
			if _, err := cache.Authenticate(ctx, token); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkTeamRequest is one list of 20 issues through HTTP from a team
// server (a token checked, the right on the project checked) and from the
// same server with no access rules, on one database.
func BenchmarkTeamRequest(b *testing.B) {
	ctx := context.Background()
	db := open(b, newSchema(b), b.TempDir())
	defer db.Close()
	if _, err := db.CreateProject(ctx, desk.NewProject{Slug: "mygame", Name: "MyGame", Prefix: "MG"}, "owner"); err != nil {
		b.Fatal(err)
	}
	for i := range 50 {
		if _, err := db.CreateIssue(ctx, "mygame", desk.IssueFields{Title: ptr(fmt.Sprintf("issue %d", i))}, desk.CreateOptions{Author: "owner"}); err != nil {
			b.Fatal(err)
		}
	}
	svc := identity.New(db.Identities())
	_, token, _ := svc.Add(ctx, "bench-agent", identity.Agent)
	svc.Grant(ctx, "bench-agent", "mygame", identity.Read)
	for _, team := range []bool{false, true} {
		name := "local-rules"
		if team {
			name = "team-token"
		}
		b.Run(name, func(b *testing.B) {
			srv := deskhttp.NewServer(db, deskhttp.Options{Addr: "127.0.0.1:0", Team: team, Identities: svc,
				Devices: &identity.Devices{Store: db.Identities(), Identities: svc}})
			if err := srv.Open(); err != nil {
				b.Fatal(err)
			}
			defer srv.Close()
			req, _ := http.NewRequest("GET", srv.URL()+"/api/projects/mygame/issues?limit=20&summary=1", nil)
			req.Header.Set("Authorization", "Bearer "+token)
			for b.Loop() {
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 {
					b.Fatalf("status %d", resp.StatusCode)
				}
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }
