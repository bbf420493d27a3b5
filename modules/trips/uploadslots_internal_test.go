package trips

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
)

// TestUploadSlots: uploads beyond the slots wait for one, and past the wait
// are refused as unavailable with a Retry-After, never run beside the
// others.
func TestUploadSlots(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		held     int           // slots taken before the upload
		wait     time.Duration // how long the upload may wait
		freeOne  bool          // a running upload ends while it waits
		cancel   bool          // its request is gone while it waits
		wantErr  error
		wantKind registry.Kind
	}{
		{name: "a free slot", held: MaxConcurrentUploads - 1, wait: time.Millisecond},
		{name: "a slot freed while waiting", held: MaxConcurrentUploads, wait: time.Minute, freeOne: true},
		{name: "no slot within the wait", held: MaxConcurrentUploads, wait: time.Millisecond, wantKind: registry.KindUnavailable},
		{name: "the request gone while waiting", held: MaxConcurrentUploads, wait: time.Minute, cancel: true, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			slots := newUploadSlots(MaxConcurrentUploads, tt.wait)
			var releases []func()
			for range tt.held {
				r, err := slots.acquire(context.Background())
				require.NoError(t, err)
				releases = append(releases, r)
			}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.freeOne {
				go releases[0]()
			}
			if tt.cancel {
				cancel()
			}
			release, err := slots.acquire(ctx)
			switch {
			case tt.wantErr != nil:
				require.ErrorIs(t, err, tt.wantErr)
			case tt.wantKind != 0:
				var re *registry.Error
				require.True(t, errors.As(err, &re), "a registry error, got %v", err)
				require.Equal(t, tt.wantKind, re.Kind)
				require.Positive(t, re.RetryAfter, "the refusal says when to come back")
			default:
				require.NoError(t, err)
				release()
			}
			// What is held now: the slots taken first, less the one freed;
			// the call's own was released or never taken.
			held := len(releases)
			if tt.freeOne {
				held--
			}
			require.Equal(t, held, len(slots.slots), "every slot taken is held until released, and no longer")
		})
	}
}
