package progress

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"cairn.dev/cairn/registry"
)

// Redis implements Hub with one pub/sub channel per topic for live events
// and one capped stream per topic as its replay buffer: the stream's entry
// ids are the events' ids, so every replica names an event alike.
type Redis struct {
	Client *redis.Client
	Prefix string // e.g. "cairn:progress:"
}

var _ Hub = Redis{}

// publishScript appends the event to the topic's buffer and publishes it
// under the id the buffer gave it, in one step: live subscribers and the
// buffer see the events in the same order.
var publishScript = redis.NewScript(`
local id = redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[1], '*', 'e', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
redis.call('PUBLISH', KEYS[2], id .. ' ' .. ARGV[2])
return id
`)

func (r Redis) buffer(topic string) string  { return r.Prefix + "log:" + topic }
func (r Redis) channel(topic string) string { return r.Prefix + topic }

// Publish implements Hub.
func (r Redis) Publish(ctx context.Context, topic string, e Event) error {
	e.ID = ""
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	return publishScript.Run(ctx, r.Client, []string{r.buffer(topic), r.channel(topic)},
		ReplayLimit, string(b), ReplayTTL.Milliseconds()).Err()
}

// streamID is a Redis stream entry id, "milliseconds-sequence".
type streamID struct{ ms, seq uint64 }

func parseStreamID(s string) (streamID, bool) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return streamID{}, false
	}
	ms, err1 := strconv.ParseUint(a, 10, 64)
	seq, err2 := strconv.ParseUint(b, 10, 64)
	return streamID{ms, seq}, err1 == nil && err2 == nil
}

func (a streamID) after(b streamID) bool { return a.ms > b.ms || (a.ms == b.ms && a.seq > b.seq) }

func decode(id string, payload string) (Event, bool) {
	var e Event
	if json.Unmarshal([]byte(payload), &e) != nil {
		return Event{}, false
	}
	e.ID = id
	return e, true
}

// Subscribe implements Hub: the subscription is confirmed before the
// buffer is read, so no event published meanwhile is missed (one read from
// both is sent once). While Redis cannot be reached it answers
// registry.KindUnavailable (503 with Retry-After): a stream that would send
// nothing is not opened.
func (r Redis) Subscribe(ctx context.Context, topic, after string) (Subscription, error) {
	unavailable := func(err error) (Subscription, error) {
		return Subscription{}, registry.Unavailable("live progress is unavailable; try again shortly", err)
	}
	sub := r.Client.Subscribe(ctx, r.channel(topic))
	if _, err := sub.Receive(ctx); err != nil {
		_ = sub.Close()
		return unavailable(err)
	}
	s := Subscription{Last: Start}
	tail, err := r.Client.XRevRangeN(ctx, r.buffer(topic), "+", "-", 1).Result()
	if err != nil {
		_ = sub.Close()
		return unavailable(err)
	}
	if len(tail) > 0 {
		s.Last = tail[0].ID
	}
	seen, _ := parseStreamID(s.Last) // "0" reads as nothing at all
	var replay []redis.XMessage
	from, known := parseStreamID(after)
	switch {
	case after == Start:
		replay, err = r.Client.XRange(ctx, r.buffer(topic), "-", "+").Result()
		s.Resumed = err == nil
	case known && !from.after(seen):
		var at []redis.XMessage
		at, err = r.Client.XRange(ctx, r.buffer(topic), after, after).Result()
		if err == nil && len(at) == 1 {
			replay, err = r.Client.XRange(ctx, r.buffer(topic), "("+after, "+").Result()
			s.Resumed = err == nil
		}
	}
	if err != nil {
		_ = sub.Close()
		return unavailable(err)
	}
	out := make(chan Event, len(replay)+64)
	for _, m := range replay {
		payload, _ := m.Values["e"].(string)
		if e, ok := decode(m.ID, payload); ok {
			out <- e
			s.Replayed++
		}
		if id, ok := parseStreamID(m.ID); ok && id.after(seen) {
			seen = id
		}
	}
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
				id, payload, _ := strings.Cut(m.Payload, " ")
				sid, ok := parseStreamID(id)
				if !ok || !sid.after(seen) {
					continue // already replayed, or covered by the state read after subscribing
				}
				e, ok := decode(id, payload)
				if !ok {
					continue
				}
				seen = sid
				select {
				case out <- e:
				default: // a subscriber that cannot keep up loses the event
				}
			}
		}
	}()
	s.Events = out
	return s, nil
}
