package pacing_test

import (
	"bytes"
	"os"
	"strconv"
)

// residentBytes is the process's resident memory now, peakResidentBytes its
// highest since resetPeakResident (both 0 when /proc cannot tell).
func residentBytes() int64     { return status("VmRSS:") }
func peakResidentBytes() int64 { return status("VmHWM:") }

// resetPeakResident starts VmHWM again from the current resident size.
func resetPeakResident() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

func status(field string) int64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range bytes.Lines(data) {
		if rest, ok := bytes.CutPrefix(line, []byte(field)); ok {
			kb, err := strconv.ParseInt(string(bytes.Fields(rest)[0]), 10, 64)
			if err != nil {
				return 0
			}
			return kb * 1024
		}
	}
	return 0
}
