// Command deskprof is desk with a CPU profiler, for the load benchmark
// only: built from the same packages as cmd/desk, it writes a CPU profile
// of the whole process to $DESK_CPUPROFILE when that is set. The product
// itself exposes nothing of the kind.
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
	return cli.Main(context.Background(), os.Args[1:], cli.OSEnv())
}
