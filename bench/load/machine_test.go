package load

import (
	"os"
	"runtime"
	"testing"
	"time"
)

func TestThisMachineSaysWhatItIs(t *testing.T) {
	m := ThisMachine()
	if m.Cores != runtime.NumCPU() || m.GoVersion == "" || m.OS == "" {
		t.Fatalf("%+v", m)
	}
	if runtime.GOOS == "linux" && (m.CPU == "" || m.MemoryMB <= 0) {
		t.Fatalf("no CPU model or memory on Linux: %+v", m)
	}
}

func TestCPUTimesCountThisProcessWork(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	before := processTicks(os.Getpid())
	m := newCPUMeter()
	deadline := time.Now().Add(3 * time.Second)
	x := 0
	for processTicks(os.Getpid()) < before+10 && time.Now().Before(deadline) {
		for i := 0; i < 1e6; i++ {
			x += i
		}
	}
	if processTicks(os.Getpid()) < before+10 {
		t.Fatalf("100 ms of work did not show in /proc/self/stat (%d)", x)
	}
	// This process's own work is not another process's.
	if o := m.others(); o < 0 || o > float64(runtime.NumCPU()) {
		t.Fatalf("others kept %.2f cores busy", o)
	}
	if PeakMemoryKB(os.Getpid()) <= 0 {
		t.Fatal("no peak memory for this process")
	}
}
