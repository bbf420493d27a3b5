// Package progress carries progress events of long work to the subscribers
// of a topic (a record's id): in process for a single replica, through Redis
// when several replicas share the work. Each topic keeps a bounded replay
// buffer, so a subscriber that lost its connection resumes after the last
// event it received instead of starting over. Modules publish on it and
// serve it as event streams; Tickets lets a browser open such a stream.
package progress

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Event is one message of a trip's progress stream.
type Event struct {
	// ID names the event within its topic; the hub sets it on publishing.
	// It is opaque: a subscriber only sends it back to resume.
	ID   string `json:"id,omitempty"`
	Type string `json:"type"`
	Data any    `json:"data,omitempty"`
}

// ReplayLimit is how many events a topic's replay buffer keeps: enough for
// every event of a trip's computations, so a reconnection misses none.
const ReplayLimit = 256

// ReplayTTL is how long the buffer of a topic nothing is published on is
// kept: a subscriber reconnects within seconds, not hours.
const ReplayTTL = time.Hour

// Start names the beginning of a topic whose replay buffer is empty: a
// subscriber resuming from it is replayed every event published since.
const Start = "0"

// Subscription is an open subscription to a topic.
type Subscription struct {
	// Events delivers the replayed events first, then every new one, until
	// the subscriber's context ends; then it is closed.
	Events <-chan Event
	// Resumed is true when the subscription resumed after the event named
	// by after: every event published since is replayed (Replayed of them).
	// False when after is empty, unknown or no longer buffered: the
	// subscriber has missed events and needs the record's current state.
	Resumed  bool
	Replayed int
	// Last is the id of the last event published on the topic before the
	// subscription (Start when none is buffered). A state read after
	// subscribing covers it: resuming from Last misses nothing.
	Last string
}

// Hub carries progress events to the subscribers of a topic, across
// replicas when backed by Redis.
type Hub interface {
	// Publish sends e to the topic's subscribers and keeps it in the
	// topic's replay buffer, under a new id.
	Publish(ctx context.Context, topic string, e Event) error
	// Subscribe delivers the topic's events until ctx ends. With after,
	// the id of the last event the subscriber received, it first replays
	// the events published since, when the buffer still holds them.
	Subscribe(ctx context.Context, topic, after string) (Subscription, error)
}

// Local is the in-process Hub, for a single replica.
type Local struct {
	mu     sync.Mutex
	boot   string // ids of another process never name an event of this one
	seq    uint64
	topics map[string]*localTopic
	now    func() time.Time
	swept  time.Time
}

type localTopic struct {
	subs map[chan Event]struct{}
	buf  []Event // oldest first, at most ReplayLimit
	seqs []uint64
	last time.Time // last publication
}

var _ Hub = (*Local)(nil)

// NewLocal returns an in-process progress hub.
func NewLocal() *Local {
	return &Local{topics: map[string]*localTopic{}, now: time.Now,
		boot: strconv.FormatInt(time.Now().UnixMilli(), 36)}
}

func (l *Local) topic(name string) *localTopic {
	t := l.topics[name]
	if t == nil {
		t = &localTopic{subs: map[chan Event]struct{}{}}
		l.topics[name] = t
	}
	return t
}

// Publish implements Hub. A subscriber that cannot keep up loses the
// event rather than slowing the computation down; it finds it in the
// replay buffer when it reconnects.
func (l *Local) Publish(_ context.Context, topic string, e Event) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := l.now()
	l.sweep(now)
	l.seq++
	e.ID = l.boot + "-" + strconv.FormatUint(l.seq, 10)
	t := l.topic(topic)
	t.last = now
	t.buf = append(t.buf, e)
	t.seqs = append(t.seqs, l.seq)
	if n := len(t.buf) - ReplayLimit; n > 0 {
		t.buf, t.seqs = append([]Event(nil), t.buf[n:]...), append([]uint64(nil), t.seqs[n:]...)
	}
	for ch := range t.subs {
		select {
		case ch <- e:
		default:
		}
	}
	return nil
}

// sweep forgets, at most once a minute, the buffers of topics idle for
// longer than ReplayTTL and followed by no one, so memory stays bounded by
// the topics in use.
func (l *Local) sweep(now time.Time) {
	if now.Sub(l.swept) < time.Minute {
		return
	}
	l.swept = now
	for name, t := range l.topics {
		if len(t.subs) == 0 && now.Sub(t.last) > ReplayTTL {
			delete(l.topics, name)
		}
	}
}

// seqOf reads an id this process gave out; false for any other.
func (l *Local) seqOf(id string) (uint64, bool) {
	boot, n, ok := strings.Cut(id, "-")
	if !ok || boot != l.boot {
		return 0, false
	}
	v, err := strconv.ParseUint(n, 10, 64)
	return v, err == nil
}

// Subscribe implements Hub.
func (l *Local) Subscribe(ctx context.Context, topic, after string) (Subscription, error) {
	l.mu.Lock()
	t := l.topic(topic)
	var replay []Event
	sub := Subscription{Last: Start}
	if n := len(t.buf); n > 0 {
		sub.Last = t.buf[n-1].ID
	}
	switch seq, ok := l.seqOf(after); {
	case after == Start:
		replay, sub.Resumed = t.buf, true
	case ok:
		for i, s := range t.seqs {
			if s == seq {
				replay, sub.Resumed = t.buf[i+1:], true
				break
			}
		}
	}
	ch := make(chan Event, len(replay)+64)
	for _, e := range replay {
		ch <- e
	}
	sub.Replayed = len(replay)
	t.subs[ch] = struct{}{}
	l.mu.Unlock()
	go func() {
		<-ctx.Done()
		l.mu.Lock()
		delete(t.subs, ch)
		if len(t.subs) == 0 && len(t.buf) == 0 && l.topics[topic] == t {
			delete(l.topics, topic)
		}
		l.mu.Unlock()
		close(ch)
	}()
	sub.Events = ch
	return sub, nil
}
