// Command deskprof is desk with a CPU profiler, for the load benchmark
// only: built from the same packages as cmd/desk, it writes a CPU profile
// of the whole process to $DESK_CPUPROFILE when that is set, and a heap
// profile to $DESK_MEMPROFILE every few seconds. The product itself exposes
// nothing of the kind.
//
//	go build -o bin/desk-prof ./bench/deskprof
//	bin/desk-prof bench load --desk bin/desk-prof --mixed --profile prof/
//	go tool pprof -top bin/desk-prof prof/mcp-*.prof
package main

import (
	"context"
	"fmt"
	"os"
	"runtime/pprof"
	"time"

	"desk/cli"
)

func main() {
	os.Exit(run())
}

func run() int {
	if path := os.Getenv("DESK_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "deskprof:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "deskprof:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}
	if path := os.Getenv("DESK_MEMPROFILE"); path != "" {
		go writeHeapProfiles(path)
	}
	return cli.Main(context.Background(), os.Args[1:], cli.OSEnv())
}

// writeHeapProfiles rewrites the heap profile every five seconds, so that
// the last one shows what was live near the end of the run: as a server
// stops it frees its caches. The profile is as of the last collection;
// none is forced, so the run's timings stay as they were.
func writeHeapProfiles(path string) {
	for range time.Tick(5 * time.Second) {
		f, err := os.Create(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "deskprof:", err)
			return
		}
		if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
			fmt.Fprintln(os.Stderr, "deskprof:", err)
		}
		f.Close()
	}
}
