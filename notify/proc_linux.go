package notify

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// Ancestors returns pid and up to max-1 of its ancestors, nearest first,
// with their command lines, read from /proc.
func Ancestors(pid, max int) []Process {
	var out []Process
	for len(out) < max && pid > 1 {
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			break
		}
		args := strings.Split(string(bytes.TrimRight(cmdline, "\x00")), "\x00")
		out = append(out, Process{PID: pid, Args: args})
		stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			break
		}
		// The command name in parentheses may hold spaces and parentheses;
		// the fields after the last ')' are: state, ppid, ...
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 {
			break
		}
		fields := strings.Fields(string(stat[i+1:]))
		if len(fields) < 2 {
			break
		}
		if pid, err = strconv.Atoi(fields[1]); err != nil {
			break
		}
	}
	return out
}
