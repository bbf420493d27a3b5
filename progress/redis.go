package progress

import (
	"context"
	"encoding/json"

	"github.com/redis/go-redis/v9"

	"cairn.dev/cairn/registry"
)

// Redis implements Hub with one channel per topic.
type Redis struct {
	Client *redis.Client
	Prefix string // e.g. "cairn:progress:"
}

var _ Hub = Redis{}

// Publish implements Hub.
func (r Redis) Publish(ctx context.Context, topic string, e Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return r.Client.Publish(ctx, r.Prefix+topic, b).Err()
}

// Subscribe implements Hub: the subscription is confirmed before
// it returns, so no event published afterwards is missed. While Redis
// cannot be reached it answers registry.KindUnavailable (503 with
// Retry-After): a stream that would send nothing is not opened.
func (r Redis) Subscribe(ctx context.Context, topic string) (<-chan Event, error) {
	sub := r.Client.Subscribe(ctx, r.Prefix+topic)
	if _, err := sub.Receive(ctx); err != nil {
		_ = sub.Close()
		return nil, registry.Unavailable("live progress is unavailable; try again shortly", err)
	}
	out := make(chan Event, 64)
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
				var e Event
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
