package load

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine describes where a run happened: figures from another machine or
// a busy one do not compare.
type Machine struct {
	CPU       string `json:"cpu"`
	Cores     int    `json:"cores"`
	MemoryMB  int    `json:"memory_mb"`
	OS        string `json:"os"`
	Kernel    string `json:"kernel,omitempty"`
	GoVersion string `json:"go_version"`
	// LoadBefore and LoadAfter are the 1-minute load averages when the run
	// started and ended: another process busy on the machine shows here.
	LoadBefore float64 `json:"load_before"`
	LoadAfter  float64 `json:"load_after"`
}

// ThisMachine describes the machine the driver runs on.
func ThisMachine() Machine {
	m := Machine{Cores: runtime.NumCPU(), OS: runtime.GOOS + "/" + runtime.GOARCH, GoVersion: runtime.Version()}
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPU = strings.TrimSpace(v)
				break
			}
		}
		f.Close()
	}
	if kb := procField("/proc/meminfo", "MemTotal"); kb > 0 {
		m.MemoryMB = kb / 1024
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	m.LoadBefore = LoadAverage()
	return m
}

// LoadAverage returns the 1-minute load average, or 0 where the system
// does not say.
func LoadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// PeakMemoryKB returns a process's peak resident memory (VmHWM) in KiB, or
// 0 where the system does not say. Read it before the process exits.
func PeakMemoryKB(pid int) int {
	return procField(fmt.Sprintf("/proc/%d/status", pid), "VmHWM")
}

// procField reads "Name:  1234 kB" from a /proc file.
func procField(path, name string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok || k != name {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			return 0
		}
		n, _ := strconv.Atoi(fields[0])
		return n
	}
	return 0
}
