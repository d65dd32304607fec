package load

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"
)

// HotRow is one read or tool measured alone and under 20 clients.
type HotRow struct {
	Name       string `json:"name"`
	Serial     Stats  `json:"serial"`
	Concurrent Stats  `json:"concurrent"`
}

// HotResult is the hot run.
type HotResult struct {
	// BusyBefore is how many cores the machine kept busy just before the
	// run; OtherCores how many other processes kept busy during it.
	BusyBefore   float64   `json:"busy_before"`
	OtherCores   float64   `json:"other_cores"`
	HTTP         []HotRow  `json:"http"`
	MCP          []HotRow  `json:"mcp"`
	ServerPeakMB float64   `json:"server_peak_mb"`
	MCPPeakMB    []float64 `json:"mcp_peak_mb"`
}

// measure runs op warm-ups times unrecorded, samples times serially, then
// from clients goroutines at once (released together) rounds times each.
// op gets the client number.
func measure(cfg *Config, clients int, op func(client int) error) HotRow {
	for i := 0; i < cfg.Warmups; i++ {
		_ = op(0)
	}
	serial := NewRecorder()
	start := time.Now()
	for i := 0; i < cfg.Samples; i++ {
		_ = serial.Time("x", func() error { return op(0) })
	}
	row := HotRow{Serial: one(serial.Results(time.Since(start)))}
	conc := NewRecorder()
	var wg sync.WaitGroup
	gate := make(chan struct{})
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-gate
			for r := 0; r < cfg.Rounds; r++ {
				_ = conc.Time("x", func() error { return op(c) })
			}
		}()
	}
	start = time.Now()
	close(gate)
	wg.Wait()
	row.Concurrent = one(conc.Results(time.Since(start)))
	return row
}

func one(res []Named) Stats {
	if len(res) == 0 {
		return Stats{}
	}
	return res[0].Stats
}

func runHot(ctx context.Context, cfg *Config, info *DeskInfo, fx *fixture) (*HotResult, error) {
	res := &HotResult{BusyBefore: cfg.waitQuiet(ctx)}
	srv, err := StartServer(ctx, cfg.Bin, cfg.Data, cfg.env("server-hot")...)
	if err != nil {
		return nil, err
	}
	defer srv.Stop()
	meter := newCPUMeter(srv.PID())
	// Every request on a new connection, as Pair Desk's hot run did.
	clients := make([]*http.Client, cfg.Clients)
	for i := range clients {
		clients[i] = freshClient()
	}
	for _, ep := range Endpoints(info) {
		u := srv.URL + ep.Path
		row := measure(cfg, cfg.Clients, func(c int) error { return get(clients[c], u) })
		row.Name = ep.Name
		res.HTTP = append(res.HTTP, row)
		cfg.logf("hot http %-11s serial p50 %6.2f p95 %6.2f ms | %d clients p50 %6.2f p95 %6.2f ms", ep.Name,
			row.Serial.P50, row.Serial.P95, cfg.Clients, row.Concurrent.P50, row.Concurrent.P95)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	httpOthers := meter.others()
	agents, err := startAgents(cfg, cfg.Agents, "hot")
	if err != nil {
		return nil, err
	}
	pids := []int{srv.PID()}
	for _, a := range agents {
		pids = append(pids, a.PID())
	}
	meter = newCPUMeter(pids...)
	tools := []struct {
		name string
		call func(c int) (string, map[string]any)
	}{
		{"mcp_list", func(int) (string, map[string]any) { return "list_issues", listArgs(info) }},
		{"mcp_get", func(int) (string, map[string]any) { return "get_issue", map[string]any{"id": info.Detail} }},
		{"mcp_comment", func(c int) (string, map[string]any) {
			return "comment", map[string]any{"id": fx.issues[c], "text": "Isolated benchmark comment", "author": "bench"}
		}},
	}
	for _, t := range tools {
		row := measure(cfg, len(agents), func(c int) error {
			name, args := t.call(c)
			_, err := agents[c].Call(name, args)
			return err
		})
		row.Name = t.name
		res.MCP = append(res.MCP, row)
		cfg.logf("hot %-16s serial p50 %6.2f p95 %6.2f ms | %d processes p50 %6.2f p95 %6.2f ms", t.name,
			row.Serial.P50, row.Serial.P95, len(agents), row.Concurrent.P50, row.Concurrent.P95)
	}
	res.OtherCores = max(httpOthers, meter.others())
	res.MCPPeakMB = closeAgents(agents)
	res.ServerPeakMB = float64(srv.PeakMemoryKB()) / 1024
	if res.ServerPeakMB == 0 {
		return res, fmt.Errorf("could not read the server's peak memory")
	}
	return res, nil
}

// listArgs is an agent's usual list: the open work, backlog order, 50 rows.
func listArgs(info *DeskInfo) map[string]any {
	return map[string]any{"project": info.Project, "sort": "backlog", "status": []string{"open", "in_progress"}, "limit": 50}
}
