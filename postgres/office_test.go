package postgres_test

import (
	"context"
	"testing"

	"desk"
	"desk/office"
	"desk/office/officetest"
	"desk/postgres"
)

// The suite every office backend passes, on the database: each backend a
// schema of its own, another handle another pool on it.
func TestOfficeBackend(t *testing.T) {
	dbs := map[office.Backend]*postgres.DB{}
	urls := map[*postgres.DB]string{}
	openOn := func(t *testing.T, url string) office.Backend {
		db := open(t, url, t.TempDir())
		t.Cleanup(func() { db.Close() })
		b := db.Office()
		dbs[b], urls[db] = db, url
		return b
	}
	officetest.Run(t, officetest.Backend{
		New:     func(t *testing.T) office.Backend { return openOn(t, newSchema(t)) },
		Another: func(t *testing.T, b office.Backend) office.Backend { return openOn(t, urls[dbs[b]]) },
		Announced: func(t *testing.T, b office.Backend) []officetest.Announcement {
			cs, err := dbs[b].Changes(context.Background(), desk.ChangeFilter{Limit: 1000})
			if err != nil {
				t.Fatal(err)
			}
			var out []officetest.Announcement
			for _, c := range cs {
				if c.Type == desk.ChangeOffice {
					out = append(out, officetest.Announcement{Doc: office.Doc(c.Action), Revision: c.ID})
				}
			}
			return out
		},
	})
}
