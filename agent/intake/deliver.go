package intake

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"time"

	"desk/serverfile"
)

// Outcome says what became of a delivered report.
type Outcome int

// Outcomes of Deliver.
const (
	Posted  Outcome = iota // the server took it
	Refused                // the server read it and refused it (bad input); its log says why
	Spooled                // no server took it; it waits in the spool for the next one
	Dropped                // neither: there is no desk in the folder, or the spool could not be written
)

func (o Outcome) String() string {
	switch o {
	case Posted:
		return "posted"
	case Refused:
		return "refused"
	case Spooled:
		return "spooled"
	}
	return "dropped"
}

// Timing of a delivery. A server on this machine accepts a connection in
// well under a millisecond, so a connection that takes longer is not worth
// waiting for; the answer itself may take longer on a loaded machine.
const (
	ConnectTimeout = 250 * time.Millisecond
	PostTimeout    = 1500 * time.Millisecond
)

// Deliver sends a report to the server running on dataDir, or, when none
// takes it, appends it to the spool. It never takes longer than
// PostTimeout plus the spool write, and ctx may end it sooner. The error
// says why the report was not posted; the outcome says where it went.
func Deliver(ctx context.Context, dataDir string, r *Report) (Outcome, error) {
	if _, err := os.Stat(dataDir); err != nil {
		return Dropped, fmt.Errorf("no desk in %s: %w", dataDir, err)
	}
	postErr := post(ctx, dataDir, r)
	if postErr == nil {
		return Posted, nil
	}
	var refused *refusal
	if errors.As(postErr, &refused) {
		return Refused, postErr
	}
	if err := Spool(dataDir, r); err != nil {
		return Dropped, errors.Join(postErr, fmt.Errorf("spool: %w", err))
	}
	return Spooled, postErr
}

// refusal is the server's answer to a report it read and will not take.
type refusal struct {
	status int
	msg    string
}

func (e *refusal) Error() string {
	return fmt.Sprintf("the server refused the report (%d): %s", e.status, e.msg)
}

// post sends the report to the server recorded in dataDir.
func post(ctx context.Context, dataDir string, r *Report) error {
	info, err := serverfile.Read(dataDir)
	if err != nil {
		return fmt.Errorf("no server runs: %w", err)
	}
	token, err := ReadToken(dataDir)
	if err != nil {
		return fmt.Errorf("no hook token: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, PostTimeout)
	defer cancel()
	u, err := url.Parse(info.URL)
	if err != nil {
		return fmt.Errorf("%s: %w", serverfile.InfoName, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, info.URL+"/api/hooks/"+url.PathEscape(r.Client), bytes.NewReader(r.Payload))
	if err != nil {
		return err
	}
	r.Header(req.Header)
	req.Header.Set(HeaderToken, token)
	req.Close = true
	// One request on one connection: writing it and reading the answer
	// directly skips a client transport's set-up, which a process that
	// lives for milliseconds would pay in full.
	conn, err := (&net.Dialer{Timeout: ConnectTimeout}).DialContext(ctx, "tcp", u.Host)
	if err != nil {
		return err
	}
	defer conn.Close()
	if d, ok := ctx.Deadline(); ok {
		conn.SetDeadline(d)
	}
	if err := req.Write(conn); err != nil {
		return err
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode/100 == 2:
		return nil
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden || resp.StatusCode >= 500:
		// Not the report's fault: a token out of step, a server handing
		// over to a newer one, a full queue. The spool reaches the server
		// through the data folder, which needs no token.
		return fmt.Errorf("the server answered %d: %s", resp.StatusCode, bytes.TrimSpace(body))
	}
	return &refusal{resp.StatusCode, string(bytes.TrimSpace(body))}
}

// RemoteConnectTimeout bounds the connection to a team server, which may
// be across a network: one that does not answer by then is not waited for.
const RemoteConnectTimeout = 750 * time.Millisecond

// DeliverTo sends a report to a team server with a member's token. There
// is no spool to fall back on (the team server cannot read this machine's
// folder), so a server that cannot be reached drops the report: the agent
// is not kept waiting for it, and the next report tells the state anew.
func DeliverTo(ctx context.Context, server, token string, r *Report) (Outcome, error) {
	ctx, cancel := context.WithTimeout(ctx, PostTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, server+"/api/hooks/"+url.PathEscape(r.Client), bytes.NewReader(r.Payload))
	if err != nil {
		return Dropped, err
	}
	r.Header(req.Header)
	req.Header.Set("Authorization", "Bearer "+token)
	client := &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: RemoteConnectTimeout}).DialContext,
		TLSHandshakeTimeout: RemoteConnectTimeout,
		DisableKeepAlives:   true,
		Proxy:               http.ProxyFromEnvironment,
	}}
	resp, err := client.Do(req)
	if err != nil {
		return Dropped, err
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode/100 == 2 {
		return Posted, nil
	}
	return Refused, &refusal{resp.StatusCode, string(bytes.TrimSpace(body))}
}
