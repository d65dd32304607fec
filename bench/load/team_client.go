package load

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"
)

// failover is one remote client's way to the desk: a keep-alive
// connection to each replica, and the replica it uses now. A call that
// cannot reach its replica (refused, reset, cut mid-answer) or gets 502 or
// 503 goes to the next one, as a proxy taking a dead replica out would
// send it; the client stays there.
type failover struct {
	servers []*Server
	clients []*http.Client
	at      int
}

func newFailover(servers []*Server, first int) *failover {
	f := &failover{servers: servers, at: first % len(servers)}
	for range servers {
		f.clients = append(f.clients, &http.Client{Timeout: 30 * time.Second,
			Transport: &http.Transport{MaxIdleConnsPerHost: 1, MaxConnsPerHost: 2, DisableCompression: true}})
	}
	return f
}

// call sends one request and reads the whole answer; it returns how many
// replicas it had to leave.
func (f *failover) call(ctx context.Context, method, path string, body any, out any) (retries int, err error) {
	var b []byte
	if body != nil {
		if b, err = json.Marshal(body); err != nil {
			return 0, err
		}
	}
	for try := 0; try < len(f.servers); try++ {
		req, err := http.NewRequestWithContext(ctx, method, f.servers[f.at].URL+path, bytes.NewReader(b))
		if err != nil {
			return retries, err
		}
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		if t := f.servers[f.at].Token; t != "" {
			req.Header.Set("Authorization", "Bearer "+t)
		}
		resp, err := f.clients[f.at].Do(req)
		var data []byte
		if err == nil {
			data, err = io.ReadAll(resp.Body)
			resp.Body.Close()
		}
		if ctx.Err() != nil {
			return retries, ctx.Err()
		}
		if err != nil || resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable {
			retries++
			f.at = (f.at + 1) % len(f.servers)
			continue
		}
		if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
			return retries, fmt.Errorf("%s %s: %s: %s", method, path, resp.Status, bytes.TrimSpace(data))
		}
		if out != nil {
			return retries, json.Unmarshal(data, out)
		}
		return retries, nil
	}
	return retries, fmt.Errorf("%s %s: no replica answered", method, path)
}
