package trips

import (
	"context"
	"sync"
)

// Event is one message of a trip's progress stream.
type Event struct {
	Type string `json:"type"`
	Data any    `json:"data,omitempty"`
}

// Progress carries progress events to the subscribers of a trip, across
// replicas when backed by Redis.
type Progress interface {
	Publish(ctx context.Context, tripID string, e Event) error
	// Subscribe delivers the trip's events until ctx ends, then closes the channel.
	Subscribe(ctx context.Context, tripID string) (<-chan Event, error)
}

// LocalProgress is the in-process Progress, for a single replica.
type LocalProgress struct {
	mu   sync.Mutex
	subs map[string]map[chan Event]struct{}
}

var _ Progress = (*LocalProgress)(nil)

// NewLocalProgress returns an in-process progress hub.
func NewLocalProgress() *LocalProgress {
	return &LocalProgress{subs: map[string]map[chan Event]struct{}{}}
}

// Publish implements Progress. A subscriber that cannot keep up loses the
// event rather than slowing the computation down.
func (l *LocalProgress) Publish(_ context.Context, tripID string, e Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	for ch := range l.subs[tripID] {
		select {
		case ch <- e:
		default:
		}
	}
	return nil
}

// Subscribe implements Progress.
func (l *LocalProgress) Subscribe(ctx context.Context, tripID string) (<-chan Event, error) {
	ch := make(chan Event, 64)
	l.mu.Lock()
	if l.subs[tripID] == nil {
		l.subs[tripID] = map[chan Event]struct{}{}
	}
	l.subs[tripID][ch] = struct{}{}
	l.mu.Unlock()
	go func() {
		<-ctx.Done()
		l.mu.Lock()
		delete(l.subs[tripID], ch)
		if len(l.subs[tripID]) == 0 {
			delete(l.subs, tripID)
		}
		l.mu.Unlock()
		close(ch)
	}()
	return ch, nil
}
