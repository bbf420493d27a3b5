// Package progress carries trips' progress events between replicas through
// Redis pub/sub, so an event stream opened on one replica sees the work
// done on another.
package progress

import (
	"context"
	"encoding/json"

	"github.com/redis/go-redis/v9"

	"cairn/modules/trips"
)

// Redis implements trips.Progress with one channel per trip.
type Redis struct {
	Client *redis.Client
	Prefix string // e.g. "cairn:progress:"
}

var _ trips.Progress = Redis{}

// Publish implements trips.Progress.
func (r Redis) Publish(ctx context.Context, tripID string, e trips.Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return r.Client.Publish(ctx, r.Prefix+tripID, b).Err()
}

// Subscribe implements trips.Progress: the subscription is confirmed before
// it returns, so no event published afterwards is missed.
func (r Redis) Subscribe(ctx context.Context, tripID string) (<-chan trips.Event, error) {
	sub := r.Client.Subscribe(ctx, r.Prefix+tripID)
	if _, err := sub.Receive(ctx); err != nil {
		_ = sub.Close()
		return nil, err
	}
	out := make(chan trips.Event, 64)
	go func() {
		defer close(out)
		defer sub.Close()
		msgs := sub.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-msgs:
				if !ok {
					return
				}
				var e trips.Event
				if json.Unmarshal([]byte(m.Payload), &e) != nil {
					continue
				}
				select {
				case out <- e:
				default: // a subscriber that cannot keep up loses the event
				}
			}
		}
	}()
	return out, nil
}
