// Package timerslack lets a process that spends its life waiting coarsen
// its timers, so that the Go runtime's own periodic wake-ups cost less.
//
// While any goroutine runs, the runtime's monitor thread (sysmon) wakes
// every 20 µs to look for work to rebalance. An MCP server answers one
// agent a call at a time, and each call of a millisecond or two costs it
// dozens of those wake-ups; with twenty agents on a small machine they
// were a seventh of the servers' CPU and lengthened every other process's
// wait for a core. Timer slack lets the kernel defer such a timer by up to
// the slack, to fire together with others; it is set per thread, and a new
// thread takes the slack of the thread that creates it.
package timerslack
