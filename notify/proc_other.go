//go:build !linux

package notify

import (
	"os/exec"
	"strconv"
	"strings"
)

// Ancestors returns pid and up to max-1 of its ancestors, nearest first,
// with their command lines, as ps reports them (split at spaces, which is
// enough to find a flag). Where ps is missing it returns what it found.
func Ancestors(pid, max int) []Process {
	var out []Process
	for len(out) < max && pid > 1 {
		b, err := exec.Command("ps", "-o", "ppid=", "-o", "args=", "-p", strconv.Itoa(pid)).Output()
		if err != nil {
			break
		}
		fields := strings.Fields(string(b))
		if len(fields) < 2 {
			break
		}
		out = append(out, Process{PID: pid, Args: fields[1:]})
		if pid, err = strconv.Atoi(fields[0]); err != nil {
			break
		}
	}
	return out
}
