package load

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
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
	if kb := ProcField("/proc/meminfo", "MemTotal"); kb > 0 {
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
	return ProcField(fmt.Sprintf("/proc/%d/status", pid), "VmHWM")
}

// ProcField reads "Name:  1234 kB" from a /proc file, 0 where it cannot.
func ProcField(path, name string) int {
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

// clockTick is the unit of CPU times in /proc (USER_HZ), 100 on Linux.
const clockTick = 10 * time.Millisecond

// cpuTicks are the machine's CPU times since boot, all cores together, in
// clock ticks.
type cpuTicks struct {
	busy  int64 // every state but idle and iowait, stolen time included
	steal int64 // time the hypervisor ran something else on our cores
}

func readCPUTicks() cpuTicks {
	var t cpuTicks
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return t
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 8 || f[0] != "cpu" {
		return t
	}
	for i, s := range f[1:] {
		v, _ := strconv.ParseInt(s, 10, 64)
		if i < 8 { // user nice system idle iowait irq softirq steal; guest time is already in user
			if i != 3 && i != 4 {
				t.busy += v
			}
			if i == 7 {
				t.steal = v
			}
		}
	}
	return t
}

// processTicks returns the CPU time a process spent, with that of the
// children it has waited for.
func processTicks(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name may hold spaces; the fields start after its ")".
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	var sum int64
	for _, i := range []int{11, 12, 13, 14} { // utime stime cutime cstime, counted from the state field
		if i < len(f) {
			v, _ := strconv.ParseInt(f[i], 10, 64)
			sum += v
		}
	}
	return sum
}

// cpuMeter measures how much of the machine's CPU went to processes other
// than the run's own during a phase: figures taken while something else
// was busy are not comparable, and the report says so.
type cpuMeter struct {
	busy0, steal0 int64
	own0          map[int]int64
	start         time.Time
}

func newCPUMeter(pids ...int) *cpuMeter {
	m := &cpuMeter{own0: map[int]int64{}, start: time.Now()}
	t := readCPUTicks()
	m.busy0, m.steal0 = t.busy, t.steal
	for _, pid := range append(pids, os.Getpid()) {
		m.own0[pid] = processTicks(pid)
	}
	return m
}

// stolen returns how many cores the hypervisor took on average since the
// meter started, to run other machines: this machine's processes waited
// for them. others counts them too.
func (m *cpuMeter) stolen() float64 {
	wall := time.Since(m.start)
	if wall <= 0 {
		return 0
	}
	return float64(time.Duration(readCPUTicks().steal-m.steal0)*clockTick) / float64(wall)
}

// others returns the cores other processes kept busy on average since the
// meter started, and those the hypervisor took; call it before the run's
// processes exit.
func (m *cpuMeter) others() float64 {
	used := readCPUTicks().busy - m.busy0
	for pid, t0 := range m.own0 {
		used -= processTicks(pid) - t0
	}
	wall := time.Since(m.start)
	if wall <= 0 || used < 0 {
		return 0
	}
	return float64(time.Duration(used)*clockTick) / float64(wall)
}

// cores returns how many cores process pid kept busy on average since the
// meter started (0 for a process it was not started with).
func (m *cpuMeter) cores(pid int) float64 {
	t0, ok := m.own0[pid]
	wall := time.Since(m.start)
	if !ok || wall <= 0 {
		return 0
	}
	return float64(time.Duration(processTicks(pid)-t0)*clockTick) / float64(wall)
}

// Busy returns how many cores the whole machine kept busy on average over d.
func Busy(d time.Duration) float64 {
	b0 := readCPUTicks().busy
	time.Sleep(d)
	b1 := readCPUTicks().busy
	return float64(time.Duration(b1-b0)*clockTick) / float64(d)
}
