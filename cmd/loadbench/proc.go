package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

// clockTick is the unit of utime and stime in /proc/PID/stat (USER_HZ,
// 100 on every Linux the project runs on).
const clockTick = 10 * time.Millisecond

// cpuTime is the CPU time (user and system, every thread) a process has
// used so far.
func cpuTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name may hold spaces and parentheses: fields start after
	// the last ')'. utime and stime are fields 14 and 15 of the line.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: unexpected format", pid)
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// setAffinity restricts one thread (0: the calling one) to one CPU.
func setAffinity(tid, cpu int) error {
	var mask [16]uint64
	mask[cpu/64] |= 1 << (cpu % 64)
	_, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETAFFINITY, uintptr(tid),
		unsafe.Sizeof(mask), uintptr(unsafe.Pointer(&mask)))
	if errno != 0 {
		return errno
	}
	return nil
}

// pinSelf restricts every thread of this process to cpu. Threads started
// later inherit the mask of the thread that starts them.
func pinSelf(cpu int) error {
	tasks, err := filepath.Glob("/proc/self/task/*")
	if err != nil {
		return err
	}
	for _, t := range tasks {
		tid, err := strconv.Atoi(filepath.Base(t))
		if err != nil {
			continue
		}
		if err := setAffinity(tid, cpu); err != nil {
			return err
		}
	}
	runtime.GOMAXPROCS(1)
	return nil
}

// execPinned is the "pin" mode: it restricts its own thread to a CPU and
// becomes the program given, which keeps the mask across exec. Started
// this way, a server's Go runtime sees one CPU from its first instruction.
func execPinned(args []string) error {
	if len(args) < 3 || args[1] != "--" {
		return fmt.Errorf("usage: loadbench pin CPU -- PROGRAM [ARGS...]")
	}
	cpu, err := strconv.Atoi(args[0])
	if err != nil {
		return err
	}
	runtime.LockOSThread()
	if err := setAffinity(0, cpu); err != nil {
		return fmt.Errorf("sched_setaffinity: %w", err)
	}
	return syscall.Exec(args[2], args[2:], os.Environ())
}

// allowedCPUs reads a process's Cpus_allowed_list, to report the pinning
// actually in force.
func allowedCPUs(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return "?"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "?"
}

// loadAverage is the first line of /proc/loadavg's three averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
