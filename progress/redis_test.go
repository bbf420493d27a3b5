package progress_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage/storagetest"
)

func hubs(t *testing.T) map[string]progress.Hub {
	rc, prefix := storagetest.Redis(t)
	return map[string]progress.Hub{
		"local": progress.NewLocal(),
		"redis": progress.Redis{Client: rc, Prefix: prefix},
	}
}

func TestPublishReachesSubscribersOfThatTripOnly(t *testing.T) {
	t.Parallel()
	for name, hub := range hubs(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			sub, err := hub.Subscribe(ctx, "trip-1", "")
			require.NoError(t, err)
			mine := sub.Events
			sub, err = hub.Subscribe(ctx, "trip-2", "")
			require.NoError(t, err)
			other := sub.Events

			require.NoError(t, hub.Publish(ctx, "trip-1", progress.Event{Type: "stages_computed", Data: map[string]any{"stageCount": 3}}))
			select {
			case e := <-mine:
				require.Equal(t, "stages_computed", e.Type)
			case <-time.After(5 * time.Second):
				t.Fatal("no event delivered")
			}
			select {
			case e := <-other:
				t.Fatalf("another trip's subscriber got %v", e)
			case <-time.After(100 * time.Millisecond):
			}
			cancel()
			for range mine {
			} // closed once the subscriber's context ends
		})
	}
}

// TestSubscribeWhileRedisIsDownIsUnavailable: a subscription Redis cannot
// confirm answers registry.KindUnavailable with a wait, so the stream that
// needs it answers 503 instead of a 200 that would send nothing.
func TestSubscribeWhileRedisIsDownIsUnavailable(t *testing.T) {
	t.Parallel()
	outage := storagetest.NewRedisOutage(t)
	opt, err := redis.ParseURL(outage.URL)
	require.NoError(t, err)
	rc := redis.NewClient(opt)
	t.Cleanup(func() { rc.Close() })
	hub := progress.Redis{Client: rc, Prefix: outage.Prefix}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = hub.Subscribe(ctx, "trip-1", "")
	require.NoError(t, err, "reachable: subscribed")

	outage.Cut()
	_, err = hub.Subscribe(ctx, "trip-2", "")
	e := registry.AsError(err)
	require.Equal(t, registry.KindUnavailable, e.Kind, "%v", err)
	require.Positive(t, e.RetryAfter)
}
