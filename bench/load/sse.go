package load

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"
)

// feedRow is the part of a change event's rows the live probe reads.
type feedRow struct {
	Type   string  `json:"type"`
	Issue  *string `json:"issue"`
	Actor  string  `json:"actor"`
	Action string  `json:"action"`
}

// arrival is a change event's rows and the moment they were read.
type arrival struct {
	at   time.Time
	rows []feedRow
}

// Subscribe opens the server's event stream at path and sends every
// change event to the returned channel as it is read, until ctx ends.
func Subscribe(ctx context.Context, base, path string) (<-chan arrival, error) {
	return SubscribeAs(ctx, base, "", path)
}

// SubscribeAs is Subscribe with a bearer token (none when token is "").
func SubscribeAs(ctx context.Context, base, token, path string) (<-chan arrival, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("event stream %s: %s", path, resp.Status)
	}
	out := make(chan arrival, 1024)
	hello := make(chan struct{})
	go func() {
		defer resp.Body.Close()
		defer close(out)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 64<<10), 4<<20)
		var event, data string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = line[len("event: "):]
			case strings.HasPrefix(line, "data: "):
				data = line[len("data: "):]
			case line == "":
				now := time.Now()
				switch event {
				case "hello":
					close(hello)
				case "change":
					var ev struct {
						Changes []feedRow `json:"changes"`
					}
					if json.Unmarshal([]byte(data), &ev) == nil {
						select {
						case out <- arrival{at: now, rows: ev.Changes}:
						default: // nobody is listening for this one
						}
					}
				}
				event, data = "", ""
			}
		}
	}()
	select {
	case <-hello:
		return out, nil
	case <-time.After(10 * time.Second):
		return nil, fmt.Errorf("event stream %s sent no hello", path)
	}
}
