//go:build !linux

package pacing_test

// Outside Linux the benchmarks report wall time and allocations only.
func residentBytes() int64     { return 0 }
func peakResidentBytes() int64 { return 0 }
func resetPeakResident()       {}
