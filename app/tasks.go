package app

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/redis/go-redis/v9"

	"cairn.dev/cairn/tools"
)

// redisTasks keeps the MCP face's tasks in Redis, so a task one replica
// created is read, and cancelled, on any other.
type redisTasks struct {
	client *redis.Client
	prefix string
}

// Save implements tools.TaskStore.
func (r redisTasks) Save(ctx context.Context, t *tools.Task) error {
	b, err := json.Marshal(t)
	if err != nil {
		return err
	}
	left := time.Until(t.CreatedAt.Add(t.TTL))
	if left <= 0 {
		return nil
	}
	return r.client.Set(ctx, r.prefix+t.ID, b, left).Err()
}

// Load implements tools.TaskStore.
func (r redisTasks) Load(ctx context.Context, id string) (*tools.Task, error) {
	b, err := r.client.Get(ctx, r.prefix+id).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, tools.ErrNoTask
	}
	if err != nil {
		return nil, err
	}
	var t tools.Task
	if err := json.Unmarshal(b, &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// taskStore shares tasks through Redis when configured, else keeps them
// in this process (a single process, the embedded default).
func taskStore(rc *redis.Client, prefix string) tools.TaskStore {
	if rc == nil {
		return tools.NewMemoryTasks()
	}
	return redisTasks{client: rc, prefix: prefix + "mcptask:"}
}
