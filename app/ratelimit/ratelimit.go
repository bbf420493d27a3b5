// Package ratelimit counts calls per key in a sliding window: in Redis when
// configured, so replicas share one count, in process otherwise.
package ratelimit

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"cairn.dev/cairn/guards"
)

// Memory is the in-process sliding-window log.
type Memory struct {
	mu   sync.Mutex
	hits map[string][]time.Time
	now  func() time.Time
}

var _ guards.Limiter = (*Memory)(nil)

// NewMemory returns an empty in-process limiter.
func NewMemory() *Memory { return &Memory{hits: map[string][]time.Time{}, now: time.Now} }

// Allow implements guards.Limiter.
func (m *Memory) Allow(_ context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	hits := m.hits[key]
	i := 0
	for i < len(hits) && !hits[i].After(now.Add(-window)) {
		i++
	}
	hits = hits[i:]
	if len(hits) >= limit {
		m.hits[key] = hits
		return false, hits[0].Add(window).Sub(now), nil
	}
	m.hits[key] = append(hits, now)
	return true, 0, nil
}

// Refund implements guards.Refunder: the latest call counted under key is
// taken back.
func (m *Memory) Refund(_ context.Context, key string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if hits := m.hits[key]; len(hits) > 0 {
		m.hits[key] = hits[:len(hits)-1]
	}
	return nil
}

var _ guards.Refunder = (*Memory)(nil)

// slidingWindow drops hits older than the window, then either records this
// one or answers how long until the oldest leaves. One script, so the check
// and the record are atomic across replicas.
var slidingWindow = redis.NewScript(`
local key, now, window, limit, member = KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
if redis.call('ZCARD', key) >= limit then
  local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  local wait = tonumber(oldest[2]) + window - now
  if wait < 1 then wait = 1 end
  return wait
end
redis.call('ZADD', key, now, member)
redis.call('PEXPIRE', key, window)
return 0
`)

// Redis is the shared sliding-window log, one sorted set per key.
type Redis struct {
	Client *redis.Client
	Prefix string // e.g. "cairn:rl:"
}

var _ guards.Limiter = Redis{}

// Allow implements guards.Limiter.
func (r Redis) Allow(ctx context.Context, key string, limit int, window time.Duration) (bool, time.Duration, error) {
	now := time.Now().UnixMilli()
	member := strconv.FormatInt(now, 10) + "-" + nonce()
	wait, err := slidingWindow.Run(ctx, r.Client, []string{r.Prefix + key},
		now, window.Milliseconds(), limit, member).Int64()
	if err != nil {
		return false, 0, err
	}
	if wait > 0 {
		return false, time.Duration(wait) * time.Millisecond, nil
	}
	return true, 0, nil
}

// Refund implements guards.Refunder: the latest call counted under key is
// taken back, on every replica.
func (r Redis) Refund(ctx context.Context, key string) error {
	return r.Client.ZPopMax(ctx, r.Prefix+key, 1).Err()
}

var _ guards.Refunder = Redis{}

func nonce() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
