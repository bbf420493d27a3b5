//go:build !unix

package metrics

import "time"

// ProcessCPU is unknown on this system: 0.
func ProcessCPU() time.Duration { return 0 }
