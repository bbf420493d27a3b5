package trips

import (
	"context"
	"time"

	"cairn.dev/cairn/registry"
)

// MaxConcurrentUploads is how many GPX uploads are parsed, cut and stored
// at once in one process. A 1M-point file holds up to about 130 MB while it
// is read (its points, its decimated line, the statement that stores it),
// so three bound an upload burst to a few hundred MB whatever its size.
const MaxConcurrentUploads = 3

// UploadWait is how long an upload beyond MaxConcurrentUploads waits for a
// slot before it is refused with 503 and Retry-After. A waiting upload
// holds only its multipart form: about 1 MB in memory, the rest spooled
// to disk by the face.
const UploadWait = 15 * time.Second

// uploadRetryAfter is the wait a refused upload is told: about the time a
// slot takes to free under load.
const uploadRetryAfter = 5

// uploadSlots bounds the uploads in flight. The zero value is unbounded.
type uploadSlots struct {
	slots chan struct{}
	wait  time.Duration
}

func newUploadSlots(n int, wait time.Duration) uploadSlots {
	return uploadSlots{slots: make(chan struct{}, n), wait: wait}
}

// acquire takes a slot, waiting up to the slots' wait for one; release
// gives it back. Past the wait the upload is refused as unavailable, with
// Retry-After; a caller that leaves while waiting gets its context's error.
func (u uploadSlots) acquire(ctx context.Context) (release func(), err error) {
	if u.slots == nil {
		return func() {}, nil
	}
	release = func() { <-u.slots }
	select {
	case u.slots <- struct{}{}:
		return release, nil
	default:
	}
	timer := time.NewTimer(u.wait)
	defer timer.Stop()
	select {
	case u.slots <- struct{}{}:
		return release, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timer.C:
		return nil, &registry.Error{Kind: registry.KindUnavailable, RetryAfter: uploadRetryAfter,
			Detail: "the server is reading as many GPX files as it can hold; send the file again after Retry-After"}
	}
}
