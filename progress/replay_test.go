package progress_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/progress"
)

// publishN publishes n events numbered from 1 on topic.
func publishN(t *testing.T, hub progress.Hub, topic string, n int) {
	t.Helper()
	for i := 1; i <= n; i++ {
		require.NoError(t, hub.Publish(context.Background(), topic, progress.Event{Type: "step", Data: map[string]any{"n": i}}))
	}
}

// take reads n events from a subscription, failing after a while.
func take(t *testing.T, sub progress.Subscription, n int) []progress.Event {
	t.Helper()
	var got []progress.Event
	for len(got) < n {
		select {
		case e := <-sub.Events:
			got = append(got, e)
		case <-time.After(5 * time.Second):
			t.Fatalf("got %d events of %d", len(got), n)
		}
	}
	return got
}

func numbers(es []progress.Event) []float64 {
	out := make([]float64, len(es))
	for i, e := range es {
		switch n := e.Data.(map[string]any)["n"].(type) {
		case int:
			out[i] = float64(n)
		case float64:
			out[i] = n
		}
	}
	return out
}

// TestResumeReplaysWhatWasMissed: a subscriber resuming after an event it
// received is replayed every later one, with the ids it had, and then
// receives new ones; one resuming from an id the buffer does not hold
// (unknown, from elsewhere, evicted) is told it did not resume, and is
// given the id that covers what it will read of the record.
func TestResumeReplaysWhatWasMissed(t *testing.T) {
	t.Parallel()
	for name, hub := range hubs(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			first, err := hub.Subscribe(ctx, "trip-r", "")
			require.NoError(t, err)
			require.False(t, first.Resumed)
			require.Equal(t, progress.Start, first.Last, "nothing published yet")
			publishN(t, hub, "trip-r", 3)
			live := take(t, first, 3)
			require.Equal(t, []float64{1, 2, 3}, numbers(live))
			for _, e := range live {
				require.NotEmpty(t, e.ID, "every event has an id")
			}

			again, err := hub.Subscribe(ctx, "trip-r", live[0].ID)
			require.NoError(t, err)
			require.True(t, again.Resumed)
			require.Equal(t, 2, again.Replayed)
			require.Equal(t, live[2].ID, again.Last)
			replayed := take(t, again, 2)
			require.Equal(t, []string{live[1].ID, live[2].ID}, []string{replayed[0].ID, replayed[1].ID}, "the same ids")
			publishN(t, hub, "trip-r", 1)
			require.Equal(t, []float64{1}, numbers(take(t, again, 1)), "then what comes next")

			caughtUp, err := hub.Subscribe(ctx, "trip-r", replayed[1].ID)
			require.NoError(t, err)
			require.True(t, caughtUp.Resumed)
			require.Equal(t, 1, caughtUp.Replayed, "only the event after it")

			fromStart, err := hub.Subscribe(ctx, "trip-r", progress.Start)
			require.NoError(t, err)
			require.True(t, fromStart.Resumed)
			require.Equal(t, 4, fromStart.Replayed, "from the start: the whole buffer")

			for _, bad := range []string{"nonsense", "1-1", "99999999999999-0", "x-y-z", ""} {
				s, err := hub.Subscribe(ctx, "trip-r", bad)
				require.NoError(t, err, bad)
				require.False(t, s.Resumed, bad)
				require.Zero(t, s.Replayed, bad)
				require.NotEqual(t, progress.Start, s.Last, bad)
			}
			other, err := hub.Subscribe(ctx, "trip-other", live[0].ID)
			require.NoError(t, err)
			require.False(t, other.Resumed, "an id names an event of its own topic only")
		})
	}
}

// TestTheReplayBufferIsBounded: a topic keeps its last ReplayLimit events;
// resuming after one evicted is not resuming.
func TestTheReplayBufferIsBounded(t *testing.T) {
	t.Parallel()
	for name, hub := range hubs(t) {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			sub, err := hub.Subscribe(ctx, "trip-b", "")
			require.NoError(t, err)
			publishN(t, hub, "trip-b", 1)
			oldest := take(t, sub, 1)[0]
			cancel()
			ctx, cancel = context.WithCancel(context.Background())
			defer cancel()
			publishN(t, hub, "trip-b", progress.ReplayLimit+5)
			all, err := hub.Subscribe(ctx, "trip-b", progress.Start)
			require.NoError(t, err)
			require.Equal(t, progress.ReplayLimit, all.Replayed)
			evicted, err := hub.Subscribe(ctx, "trip-b", oldest.ID)
			require.NoError(t, err)
			require.False(t, evicted.Resumed, fmt.Sprintf("%s was evicted", oldest.ID))
		})
	}
}
