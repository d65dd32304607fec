package load_test

import (
	"bufio"
	"os"
	"os/exec"
	"testing"
	"time"

	"desk/bench/metrics"
)

// BenchmarkPipeFloor measures the least an agent's call over stdio can
// cost on this machine: a line written to a child Go process that writes
// it straight back, timed as the load driver times an MCP call (from the
// request written to the answer's line read). back-to-back sends the next
// line as soon as the last returns; paced waits between lines as an agent
// at work does, and the machine's idle cores go to sleep in between (on
// a virtual machine, waking one is the larger part of the figure). The
// load run's agents each make a round of five calls a second, the first
// after a pause. No MCP call can answer faster than this floor, whatever
// its server does.
//
//	go test ./bench/load -run '^$' -bench PipeFloor -benchtime 200x
func BenchmarkPipeFloor(b *testing.B) {
	for _, c := range []struct {
		name string
		gap  time.Duration
	}{{"back-to-back", 0}, {"paced-20ms", 20 * time.Millisecond}, {"paced-200ms", 200 * time.Millisecond}} {
		b.Run(c.name, func(b *testing.B) {
			cmd := exec.Command(os.Args[0], "-test.run", "^$")
			cmd.Env = append(os.Environ(), echoEnv+"=1")
			in, err := cmd.StdinPipe()
			if err != nil {
				b.Fatal(err)
			}
			out, err := cmd.StdoutPipe()
			if err != nil {
				b.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				b.Fatal(err)
			}
			defer cmd.Wait()
			defer in.Close()
			r := bufio.NewReader(out)
			line := []byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")
			times := make([]time.Duration, 0, b.N)
			for b.Loop() {
				time.Sleep(c.gap)
				t0 := time.Now()
				if _, err := in.Write(line); err != nil {
					b.Fatal(err)
				}
				got, err := r.ReadBytes('\n')
				times = append(times, time.Since(t0))
				if err != nil || len(got) != len(line) {
					b.Fatalf("echo gave %q, %v", got, err)
				}
			}
			metrics.ReportPercentiles(b, times)
		})
	}
}

// echoEnv makes this test binary the echo child of BenchmarkPipeFloor.
const echoEnv = "DESK_PIPE_FLOOR_ECHO"

func init() {
	if os.Getenv(echoEnv) != "1" {
		return
	}
	r := bufio.NewReader(os.Stdin)
	for {
		l, err := r.ReadBytes('\n')
		if err != nil {
			os.Exit(0)
		}
		os.Stdout.Write(l)
	}
}
