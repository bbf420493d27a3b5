package planner_test

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time the process has used: what the benchmarks
// report beside the wall clock, which a machine shared with other work
// inflates far more.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
