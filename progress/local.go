// Package progress carries progress events of long work to the subscribers
// of a topic (a record's id): in process for a single replica, through Redis
// pub/sub when several replicas share the work. Modules publish on it and
// serve it as event streams.
package progress

import (
	"context"
	"sync"
)

// Event is one message of a trip's progress stream.
type Event struct {
	Type string `json:"type"`
	Data any    `json:"data,omitempty"`
}

// Hub carries progress events to the subscribers of a topic, across
// replicas when backed by Redis.
type Hub interface {
	Publish(ctx context.Context, topic string, e Event) error
	// Subscribe delivers the topic's events until ctx ends, then closes the channel.
	Subscribe(ctx context.Context, topic string) (<-chan Event, error)
}

// Local is the in-process Progress, for a single replica.
type Local struct {
	mu   sync.Mutex
	subs map[string]map[chan Event]struct{}
}

var _ Hub = (*Local)(nil)

// NewLocal returns an in-process progress hub.
func NewLocal() *Local {
	return &Local{subs: map[string]map[chan Event]struct{}{}}
}

// Publish implements Hub. A subscriber that cannot keep up loses the
// event rather than slowing the computation down.
func (l *Local) Publish(_ context.Context, topic string, e Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.subs[topic] {
		select {
		case ch <- e:
		default:
		}
	}
	return nil
}

// Subscribe implements Hub.
func (l *Local) Subscribe(ctx context.Context, topic string) (<-chan Event, error) {
	ch := make(chan Event, 64)
	l.mu.Lock()
	if l.subs[topic] == nil {
		l.subs[topic] = map[chan Event]struct{}{}
	}
	l.subs[topic][ch] = struct{}{}
	l.mu.Unlock()
	go func() {
		<-ctx.Done()
		l.mu.Lock()
		delete(l.subs[topic], ch)
		if len(l.subs[topic]) == 0 {
			delete(l.subs, topic)
		}
		l.mu.Unlock()
		close(ch)
	}()
	return ch, nil
}
