package storetest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"desk"
)

// ServeClaimRace is one racer process of a claim race (see ClaimRacers):
// it reads an issue id a line from in, claims it for holder for an hour,
// and answers a line on out: "won", "lost " and the refusal, or "error "
// and the failure.
func ServeClaimRace(cs desk.ClaimService, holder string, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	w := bufio.NewWriter(out)
	for sc.Scan() {
		_, err := cs.ClaimIssue(context.Background(), sc.Text(), holder, time.Hour)
		switch {
		case err == nil:
			fmt.Fprintln(w, "won")
		case desk.ErrorCode(err) == desk.Conflict:
			fmt.Fprintln(w, "lost "+err.Error())
		default:
			fmt.Fprintln(w, "error "+err.Error())
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
	return sc.Err()
}

// ClaimRacers are processes racing for claims on one store, each running
// ServeClaimRace as holder racer-NN.
type ClaimRacers struct {
	procs []*exec.Cmd
	ins   []io.WriteCloser
	outs  []*bufio.Scanner
}

// StartClaimRacers starts n racers; command returns the i-th one's
// command (a test binary run with what makes it call ServeClaimRace for
// holder RacerName(i)). They stop when tb ends.
func StartClaimRacers(tb testing.TB, n int, command func(i int) *exec.Cmd) *ClaimRacers {
	tb.Helper()
	r := &ClaimRacers{}
	tb.Cleanup(func() {
		for i, in := range r.ins {
			in.Close()
			r.procs[i].Wait()
		}
	})
	for i := 0; i < n; i++ {
		cmd := command(i)
		in, err := cmd.StdinPipe()
		if err != nil {
			tb.Fatal(err)
		}
		out, err := cmd.StdoutPipe()
		if err != nil {
			tb.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			tb.Fatal(err)
		}
		r.procs, r.ins, r.outs = append(r.procs, cmd), append(r.ins, in), append(r.outs, bufio.NewScanner(out))
	}
	return r
}

// RacerName is the holder the i-th racer claims as.
func RacerName(i int) string { return fmt.Sprintf("racer-%02d", i) }

// Round has every racer claim issue id at once and fails tb unless
// exactly one holds it and every other was refused naming that one.
func (r *ClaimRacers) Round(tb testing.TB, id string) {
	tb.Helper()
	var wg sync.WaitGroup
	answers := make([]string, len(r.ins))
	for i := range r.ins {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fmt.Fprintln(r.ins[i], id)
			if r.outs[i].Scan() {
				answers[i] = r.outs[i].Text()
			}
		}()
	}
	wg.Wait()
	winner := ""
	for i, a := range answers {
		if a == "won" {
			if winner != "" {
				tb.Fatalf("%s: %s and %s both hold the claim", id, RacerName(i), winner)
			}
			winner = RacerName(i)
		}
	}
	if winner == "" {
		tb.Fatalf("%s: nobody holds the claim: %q", id, answers)
	}
	for i, a := range answers {
		if a != "won" && !strings.HasPrefix(a, "lost "+id+" is claimed by "+winner+" until ") {
			tb.Fatalf("%s: %s answered %q; the holder is %s", id, RacerName(i), a, winner)
		}
	}
}
