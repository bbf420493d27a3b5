//go:build !linux

package pacing_test

import "time"

// Outside Linux the benchmarks report wall time and allocations only.
func cpuTime() time.Duration   { return 0 }
func residentBytes() int64     { return 0 }
func peakResidentBytes() int64 { return 0 }
func resetPeakResident()       {}
