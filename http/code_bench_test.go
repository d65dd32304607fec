package http_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"desk/code"
	deskhttp "desk/http"
)

// BenchmarkCodeLand10Clients measures the target: 10 clients
// sending POST land at once over HTTP, 100 non-conflicting landings in
// all (each changes its own file of a 100-file snapshot made on the same
// base, so all but the first land by a merge on the server). One
// iteration is the 100 landings; ms/100-landings is its wall time.
func BenchmarkCodeLand10Clients(b *testing.B) {
	ctx := context.Background()
	var total time.Duration
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		d := startCodeDesk(b)
		c := deskhttp.NewCodeClient(d.URL, "acme/game", d.owner)
		files := map[string]string{}
		for k := 0; k < 100; k++ {
			files[fmt.Sprintf("f/%03d.txt", k)] = "0\n"
		}
		base, objs := snapshot(b, "owner", files)
		send(b, c, base, objs, "")
		c.Land(ctx, base)
		var ids []code.ID
		for k := 0; k < 100; k++ {
			fs := map[string]string{}
			for p, v := range files {
				fs[p] = v
			}
			fs[fmt.Sprintf("f/%03d.txt", k)] = fmt.Sprintf("%d\n", k)
			id, o := snapshot(b, "owner", fs, base)
			send(b, c, id, o, "")
			ids = append(ids, id)
		}
		clients := make([]*deskhttp.CodeClient, 10)
		for w := range clients {
			clients[w] = deskhttp.NewCodeClient(d.URL, "acme/game", d.owner)
			clients[w].Head(ctx) // a connection of its own, open before the clock starts
		}
		b.StartTimer()
		start := time.Now()
		var wg sync.WaitGroup
		failed := make(chan error, 100)
		for w := 0; w < 10; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := w; k < 100; k += 10 {
					res, err := clients[w].Land(ctx, ids[k])
					if err == nil && res.Result != "landed" {
						err = fmt.Errorf("landing %d: %s", k, res.Result)
					}
					if err != nil {
						failed <- err
					}
				}
			}()
		}
		wg.Wait()
		total += time.Since(start)
		b.StopTimer()
		close(failed)
		for err := range failed {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/100-landings")
}
