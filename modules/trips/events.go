package trips

import (
	"context"
	"time"

	"cairn.dev/cairn/registry"
)

// Heartbeat is how often an idle event stream sends a comment, so proxies
// and clients keep the connection open.
var Heartbeat = 15 * time.Second

// EventStream is a trip's progress stream: first the current statuses, then
// every event as it happens, from whichever replica does the work.
type EventStream struct {
	trips *Trips
	id    string
}

var _ registry.Streamer = EventStream{}

// Stream implements registry.Streamer.
func (s EventStream) Stream(ctx context.Context, send func(string, any) error) error {
	events, err := s.trips.progress.Subscribe(ctx, s.id)
	if err != nil {
		return err
	}
	// Subscribed first, then the snapshot: an event in between is sent
	// twice rather than lost.
	tr, err := s.trips.store.Get(ctx, s.id)
	if err != nil {
		return err
	}
	if err := send("status", stateOf(tr, time.Now())); err != nil {
		return err
	}
	tick := time.NewTicker(Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := send("", map[string]string{"heartbeat": time.Now().UTC().Format(time.RFC3339)}); err != nil {
				return err
			}
		case e, ok := <-events:
			if !ok {
				return nil
			}
			if err := send(e.Type, e.Data); err != nil {
				return err
			}
		}
	}
}

func (t *Trips) events(_ context.Context, c *registry.Call, _ *NoInput) (EventStream, error) {
	return EventStream{trips: t, id: c.Var("id")}, nil
}
