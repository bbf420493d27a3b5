package planner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/storage/storagetest"
	"cairn.dev/cairn/tools"
)

// replicas are two instances of the trip planner on one PostgreSQL
// database and one Redis key prefix, Redis reached through a relay the test
// can cut.
type replicas struct {
	apps   [2]*plannertest.App
	outage *storagetest.RedisOutage
	url    string
}

func newReplicas(t *testing.T) replicas {
	t.Helper()
	url := storagetest.PostgresURL(t)
	outage := storagetest.NewRedisOutage(t)
	r := replicas{outage: outage, url: url}
	for i := range r.apps {
		r.apps[i] = plannertest.New(t, apptest.Database(url), apptest.RedisThrough(outage))
	}
	return r
}

// answer is what one attempt of an intent was answered.
type answer struct {
	replica, status int
	id, body        string
}

// create sends the intents' creations, each tried `tries` times with its
// key, every attempt to the replica after the previous one's, all at once.
// midway, when set, runs once half of the attempts have been answered.
func (r replicas) create(t *testing.T, tokens []string, tries int, midway func()) [][]answer {
	t.Helper()
	out := make([][]answer, len(tokens))
	var mu sync.Mutex
	var wg sync.WaitGroup
	var once sync.Once
	answered, total := 0, len(tokens)*tries
	for i, tok := range tokens {
		key := fmt.Sprintf("replica-intent-%04d-%s", i, tok[len(tok)-8:])
		for j := range tries {
			wg.Add(1)
			go func() {
				defer wg.Done()
				k := (i + j) % 2
				var res *apptest.Response
				// A 503 says when to come back: a client retries it, as it
				// would any refusal of a dependency that is down.
				for range 20 {
					res = r.apps[k].Do(t, http.MethodPost, "/trips", tok,
						map[string]any{"sourceUrl": plannertest.StravaRoute(60 + i%5)}, operations.HeaderIdempotencyKey, key)
					if res.Status != http.StatusServiceUnavailable {
						break
					}
					require.NotEmpty(t, res.Header.Get("Retry-After"), "a 503 says when to come back: %s", res.Body)
					time.Sleep(100 * time.Millisecond)
				}
				a := answer{replica: k, status: res.Status, body: string(res.Body)}
				if res.Status < 300 {
					a.id, _ = res.JSON(t)["id"].(string)
				}
				mu.Lock()
				out[i] = append(out[i], a)
				answered++
				half := answered >= total/2
				mu.Unlock()
				if half && midway != nil {
					once.Do(midway)
				}
			}()
		}
	}
	wg.Wait()
	return out
}

// requireOneTripEach checks that every attempt of an intent was answered
// with the same trip, never a 5xx, and that the shared database holds
// exactly one trip per intent.
func (r replicas) requireOneTripEach(t *testing.T, tokens []string, got [][]answer) {
	t.Helper()
	for i, answers := range got {
		var id string
		for _, a := range answers {
			require.Less(t, a.status, 500, "intent %d on replica %d: no 5xx: %s", i, a.replica, a.body)
			require.Equal(t, http.StatusAccepted, a.status, "intent %d on replica %d: every attempt answers the creation: %s", i, a.replica, a.body)
			if id == "" {
				id = a.id
			}
			require.Equal(t, id, a.id, "intent %d: every attempt answers the same trip", i)
		}
		// Each replica lists the one trip of this user's one intent.
		for k, a := range r.apps {
			res := a.Do(t, http.MethodGet, "/trips", tokens[i], nil)
			require.Equal(t, http.StatusOK, res.Status, string(res.Body))
			body := res.JSON(t)
			require.EqualValues(t, 1, body["totalItems"], "intent %d, replica %d: exactly one trip", i, k)
			require.Equal(t, id, body["member"].([]any)[0].(map[string]any)["id"], "intent %d, replica %d", i, k)
		}
	}
	var n int
	require.NoError(t, r.apps[0].DB.NewSelect().Table("trips").ColumnExpr("count(*)").Scan(t.Context(), &n))
	require.Equal(t, len(tokens), n, "one trip per intent in the shared database")
}

// TestTwoReplicas: concurrent retried creations split across two instances
// sharing PostgreSQL and Redis make exactly one trip per intent, each
// attempt answering it, on HTTP and on MCP (with a key, or with the key
// derived from the arguments); and a Redis outage in the middle of them loses
// nothing and answers no 5xx but a 503 with Retry-After (which the client
// retries).
func TestTwoReplicas(t *testing.T) {
	t.Parallel()
	const intents, tries = 50, 4
	users := func(r replicas, prefix string) []string {
		// One user per intent: each intent's attempts are one user's calls,
		// well within the creation limit.
		out := make([]string, intents)
		for i := range out {
			out[i] = r.apps[i%2].Token(t, fmt.Sprintf("%s%d@example.com", prefix, i))
		}
		return out
	}

	t.Run("retried creations", func(t *testing.T) {
		t.Parallel()
		r := newReplicas(t)
		tokens := users(r, "replica")
		r.requireOneTripEach(t, tokens, r.create(t, tokens, tries, nil))
	})

	t.Run("over MCP, with and without keys", func(t *testing.T) {
		t.Parallel()
		r := newReplicas(t)
		const mcpIntents = 20
		tokens := users(r, "mcp")[:mcpIntents]
		got := make([][]answer, mcpIntents)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for i, tok := range tokens {
			sessions := [2]*mcp.ClientSession{r.apps[0].MCP(t, tok), r.apps[1].MCP(t, tok)}
			args := map[string]any{"sourceUrl": plannertest.StravaRoute(60 + i%5)}
			if i%2 == 0 { // the others' key is derived from their arguments
				args[tools.ArgIdempotencyKey] = fmt.Sprintf("replica-mcp-intent-%04d", i)
			}
			for j := range tries {
				wg.Add(1)
				go func() {
					defer wg.Done()
					k := (i + j) % 2
					ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
					defer cancel()
					res, err := sessions[k].CallTool(ctx, &mcp.CallToolParams{Name: "create_trip", Arguments: args})
					a := answer{replica: k, status: http.StatusAccepted}
					switch {
					case err != nil:
						a.status, a.body = http.StatusInternalServerError, err.Error()
					case res.IsError:
						raw, _ := json.Marshal(res.StructuredContent)
						a.status, a.body = http.StatusConflict, string(raw)
					default:
						raw, _ := json.Marshal(res.StructuredContent)
						var body map[string]any
						_ = json.Unmarshal(raw, &body)
						a.id, _ = body["id"].(string)
						a.body = string(raw)
					}
					mu.Lock()
					got[i] = append(got[i], a)
					mu.Unlock()
				}()
			}
		}
		wg.Wait()
		r.requireOneTripEach(t, tokens, got)
	})

	t.Run("Redis outage midway", func(t *testing.T) {
		t.Parallel()
		r := newReplicas(t)
		tokens := users(r, "outage")
		got := r.create(t, tokens, tries, r.outage.Cut)
		r.requireOneTripEach(t, tokens, got)
		for k, a := range r.apps {
			res := a.Do(t, http.MethodGet, "/health/ready", "", nil)
			require.Equal(t, http.StatusServiceUnavailable, res.Status, "replica %d: not ready while Redis is down: %s", k, res.Body)
		}
	})
}
