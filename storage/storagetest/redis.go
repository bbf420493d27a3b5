package storagetest

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisURL is the Redis server tests use; override it with CAIRN_TEST_REDIS_URL.
func RedisURL() string {
	if u := os.Getenv("CAIRN_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/0"
}

// Redis returns a client and a key prefix of this test's own; every key
// under the prefix is deleted when the test ends.
func Redis(t testing.TB) (*redis.Client, string) {
	t.Helper()
	opt, err := redis.ParseURL(RedisURL())
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := rc.Ping(ctx).Err(); err != nil {
		rc.Close()
		Unavailable(t, "Redis", err)
	}
	prefix := "cairntest:" + randomHex(6) + ":"
	t.Cleanup(func() {
		defer rc.Close()
		ctx := context.Background()
		iter := rc.Scan(ctx, 0, prefix+"*", 100).Iterator()
		for iter.Next(ctx) {
			rc.Del(ctx, iter.Val())
		}
	})
	return rc, prefix
}
