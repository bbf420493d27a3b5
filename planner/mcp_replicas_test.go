package planner_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/storage/storagetest"
	"cairn.dev/cairn/tools"
)

// TestMCPClientsAcrossReplicas: three real MCP clients live a trip's whole
// life through a round-robin balancer (no stickiness) in front of two
// replicas on one PostgreSQL and one Redis, replica A stopped and started
// again halfway: the TypeScript SDK v2 at 2026-07-28 (the trip followed as
// a task, the deletion confirmed by multi round-trip), the TypeScript SDK
// v1 at 2025-11-25 (polling, the confirmationToken) and the go-sdk at
// 2026-07-28 (a task, multi round-trip). No call fails for the replica
// that answered it.
func TestMCPClientsAcrossReplicas(t *testing.T) {
	npm := apptest.Node(t)
	url := storagetest.PostgresURL(t)
	_, prefix := storagetest.Redis(t)
	shared := []apptest.Option{apptest.Database(url), func(_ testing.TB, c *config.Config) {
		c.RedisURL, c.RedisPrefix = storagetest.RedisURL(), prefix
	}}
	a := plannertest.New(t, shared...)
	b := plannertest.New(t, shared...)
	lb := apptest.NewRoundRobin(t, a.URL, b.URL)
	// Halfway, replica A stops (a deploy, or a crash) and starts again on
	// another port. The request that reached halfway waits for it; every
	// other goes on meanwhile, to B while A is down.
	var again *plannertest.App
	var restart sync.Once
	lb.OnRequest = func(n int64) {
		if n < 15 {
			return
		}
		restart.Do(func() {
			a.Stop(t)
			again = plannertest.New(t, shared...)
			lb.Set(0, again.URL)
		})
	}
	endpoint := lb.URL + "/mcp"

	tokens := map[string]string{}
	for _, email := range []string{"ts-v2@example.com", "ts-v1@example.com", "go-sdk@example.com"} {
		tokens[email] = a.Token(t, email)
	}
	t.Run("clients", func(t *testing.T) {
		for _, tt := range []struct{ flavour, email string }{{"v2", "ts-v2@example.com"}, {"v1", "ts-v1@example.com"}} {
			tok := tokens[tt.email]
			t.Run("TypeScript SDK "+tt.flavour, func(t *testing.T) {
				t.Parallel()
				out, err := npm.Run(t, 3*time.Minute, "clients/trip.mjs", tt.flavour, endpoint, tok, plannertest.StravaRoute(300))
				steps := clientSteps(t, out)
				require.NoError(t, err, "%s client: %s", tt.flavour, out)
				want := map[string]string{"v2": tools.Revision20260728, "v1": tools.Revision20251125}[tt.flavour]
				require.Equal(t, want, steps["connected"]["protocolVersion"], "%s: %s", tt.flavour, out)
				require.Contains(t, steps["tools/list"]["tools"], "create_trip", tt.flavour)
				require.NotNil(t, steps["digest"]["days"], "%s followed the trip to its digest: %s", tt.flavour, out)
				require.Equal(t, true, steps["delete_trip"]["deleted"], tt.flavour)
				if tt.flavour == "v2" {
					require.NotEmpty(t, steps["create_trip"]["taskId"], "v2 followed a task")
					require.Contains(t, steps["elicited"]["message"], "cannot be undone", "v2 was asked in the answer")
					require.NotNil(t, steps["elicited"]["impact"], "the impact as data too")
				} else {
					require.NotNil(t, steps["confirmation"]["impact"], "v1 took the token path")
				}
			})
		}

		t.Run("go-sdk", func(t *testing.T) {
			t.Parallel()
			tok := tokens["go-sdk@example.com"]
			asked := ""
			s, wire := apptest.ConnectMCP(t, endpoint, tok, apptest.WithTasks, func(o *mcp.ClientOptions) {
				o.ElicitationHandler = func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
					asked = req.Params.Message
					return &mcp.ElicitResult{Action: "accept"}, nil
				}
			})
			require.Equal(t, tools.Revision20260728, s.InitializeResult().ProtocolVersion)
			list, err := s.ListTools(context.Background(), nil)
			require.NoError(t, err)
			require.NotEmpty(t, list.Tools)
			require.False(t, apptest.Call(t, s, "list_trips", map[string]any{}).IsError)
			id := apptest.CallTask(t, s, wire, "create_trip", map[string]any{"sourceUrl": plannertest.StravaRoute(280)})
			task := apptest.FollowTask(t, s, id)
			require.Equal(t, tools.TaskCompleted, task.Status, string(task.Result))
			var result struct {
				IsError    bool           `json:"isError"`
				Structured map[string]any `json:"structuredContent"`
			}
			require.NoError(t, json.Unmarshal(task.Result, &result))
			require.False(t, result.IsError, string(task.Result))
			require.NotEmpty(t, result.Structured["days"], "the task's result is the trip's digest")
			trip := result.Structured["id"].(string)
			require.False(t, apptest.Call(t, s, "get_trip", map[string]any{"id": trip}).IsError)
			del := apptest.Call(t, s, "delete_trip", map[string]any{"id": trip})
			require.False(t, del.IsError, del.Text)
			require.Contains(t, asked, "cannot be undone")
			require.True(t, apptest.Call(t, s, "get_trip", map[string]any{"id": trip}).IsError, "deleted")
		})
	})
	require.NotNil(t, again, "replica A was stopped and started again halfway")
	t.Logf("requests: %d; answered by A %d, by A started again %d, by B %d", lb.Seen(), lb.Served(a.URL), lb.Served(again.URL), lb.Served(b.URL))
	for name, url := range map[string]string{"A": a.URL, "A started again": again.URL, "B": b.URL} {
		require.Positive(t, lb.Served(url), "replica %s answered calls", name)
	}
}

// clientSteps reads a client script's JSON lines by step (the last line
// of each step wins).
func clientSteps(t *testing.T, out []byte) map[string]map[string]any {
	steps := map[string]map[string]any{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			if name, ok := m["step"].(string); ok {
				steps[name] = m
			}
		}
	}
	return steps
}
