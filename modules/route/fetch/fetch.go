// Package fetch is the route sources' outbound client: the framework's
// SSRF-safe client (package outbound) with the limits of third-party route
// data (pipeline.md §1, original ADR-011): a body of up to 30 MiB, and the
// route import's User-Agent. Everything else, the address rules included,
// is outbound's.
package fetch

import (
	"net/http"

	"cairn.dev/cairn/outbound"
)

// The route import's limits, where they differ from outbound's defaults.
const (
	MaxBytes  = 30 << 20 // 30 MiB: a long route's GPX
	UserAgent = "Cairn route import"
)

// New is outbound.New with the route import's limits for what opts leaves
// unset.
func New(opts outbound.Options) *outbound.Client {
	if opts.MaxBytes == 0 {
		opts.MaxBytes = MaxBytes
	}
	if opts.Header.Get("User-Agent") == "" {
		opts.Header = opts.Header.Clone()
		if opts.Header == nil {
			opts.Header = http.Header{}
		}
		opts.Header.Set("User-Agent", UserAgent)
	}
	return outbound.New(opts)
}
