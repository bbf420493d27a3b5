package app_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/metrics"
	"cairn.dev/cairn/registry"
)

// TestMetricsListener: /metrics answers on its own listener, never on the
// public API, with requests and latency per operation and face, refusals
// by guard and kind (once for a refusal, whichever face), job runs and the
// queue by state, the counters modules increment, and how long goroutines
// waited for a CPU.
func TestMetricsListener(t *testing.T) {
	t.Parallel()
	a := start(t, newProduct(), nil, func(_ testing.TB, c *config.Config) { c.MetricsAddr = "127.0.0.1:0" })
	require.NotEmpty(t, a.Server.MetricsURL())
	require.Equal(t, http.StatusNotFound, a.Do(t, http.MethodGet, "/metrics", "", nil).Status, "not on the public API")

	tok := a.Token(t, "metrics@example.com")
	for i := range quota {
		res := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "m"}, "Idempotency-Key", "metrics-key-000000"+string(rune('a'+i)))
		require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	}
	require.Equal(t, http.StatusTooManyRequests, a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "m"}, "Idempotency-Key", "metrics-key-0000zz").Status)
	require.Equal(t, http.StatusUnauthorized, a.Do(t, http.MethodPost, "/things", "", map[string]any{"name": "m"}).Status)
	over := apptest.Call(t, a.MCP(t, tok), "create_thing", map[string]any{"name": "mcp"})
	require.True(t, over.IsError, "the quota is per operation and user, whichever face")
	metrics.SSRFRefusals.Inc("metrics_test")

	var body string
	// The condition runs on testify's own goroutine: it reports through c,
	// never through t's FailNow.
	require.EventuallyWithT(t, func(c *assert.CollectT) {
		res, err := http.Get(a.Server.MetricsURL())
		if !assert.NoError(c, err) {
			return
		}
		defer res.Body.Close()
		raw, err := io.ReadAll(res.Body)
		assert.NoError(c, err)
		assert.Equal(c, http.StatusOK, res.StatusCode)
		body = string(raw)
		assert.Contains(c, body, `cairn_job_duration_seconds_count{kind="guard_purge",outcome="ok"} 1`)
	}, 20*time.Second, 50*time.Millisecond, "the purge run at start is timed")

	for _, want := range []string{
		`cairn_requests_total{face="http",operation="things.create",outcome="ok"} 3`,
		`cairn_requests_total{face="http",operation="things.create",outcome="rate-limited"} 1`,
		`cairn_requests_total{face="http",operation="things.create",outcome="unauthenticated"} 1`,
		`cairn_requests_total{face="mcp",operation="things.create",outcome="rate-limited"} 1`,
		`cairn_request_duration_seconds_count{face="http",operation="things.create"} 5`,
		`cairn_guard_refusals_total{guard="rate_limit",kind="rate-limited"} 2`,
		`cairn_guard_refusals_total{guard="authenticate",kind="unauthenticated"} 1`,
		`cairn_jobs{state="completed"}`,
		`cairn_jobs{state="available"}`,
		`cairn_ssrf_refusals_total{reason="metrics_test"}`,
		`go_goroutines`,
		`go_sched_latencies_seconds_bucket{le=`,
		`go_sql_wait_count_total{db_name="cairn"}`,
		`go_sql_in_use_connections{db_name="cairn"}`,
	} {
		require.Contains(t, body, want)
	}
	require.NotContains(t, body, `guard="scope"`, "a refusal is counted once, by the guard that made it")
}

// TestRequestID: a client's well-formed X-Request-Id is kept, anything else
// replaced by a fresh one; the id is echoed as a header, carried by every
// problem body on both faces and by every log line of the request.
func TestRequestID(t *testing.T) {
	t.Parallel()
	logs := &lockedBuffer{}
	log := slog.New(slog.NewJSONHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a := start(t, newProduct(), log)
	tok := a.Token(t, "request-id@example.com")
	fresh := regexp.MustCompile(`^[0-9a-f]{32}$`)

	t.Run("http", func(t *testing.T) {
		tests := []struct {
			name, sent string
			kept       bool
		}{
			{"a client's id", "req-7f3a:client/42", true},
			{"none", "", false},
			{"with a space", "req 42", false},
			{"too long", strings.Repeat("r", registry.MaxRequestID+1), false},
			{"not ASCII", "réq-42", false},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				var headers []string
				if tt.sent != "" {
					headers = []string{registry.HeaderRequestID, tt.sent}
				}
				res := a.Do(t, http.MethodPost, "/things", "", map[string]any{"name": "x"}, headers...)
				require.Equal(t, http.StatusUnauthorized, res.Status)
				id := res.Header.Get(registry.HeaderRequestID)
				if tt.kept {
					require.Equal(t, tt.sent, id)
				} else {
					require.Regexp(t, fresh, id)
				}
				require.Equal(t, id, res.JSON(t)["requestId"], "the problem body carries it")
			})
		}
		ok := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "x"},
			"Idempotency-Key", "request-id-key-0000", registry.HeaderRequestID, "req-success-1")
		require.Equal(t, http.StatusCreated, ok.Status)
		require.Equal(t, "req-success-1", ok.Header.Get(registry.HeaderRequestID), "echoed on success too")

		lines := logs.linesWith("req-success-1")
		var messages []string
		for _, l := range lines {
			require.Equal(t, "req-success-1", l["request_id"], "every line of the request carries the id: %v", l)
			messages = append(messages, l["msg"].(string))
		}
		require.Contains(t, messages, "thing made", "the module's own line")
		require.Contains(t, messages, "request", "the request's line")
	})

	t.Run("mcp", func(t *testing.T) {
		res := a.Do(t, http.MethodPost, "/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`,
			"Accept", "application/json, text/event-stream", registry.HeaderRequestID, "req-mcp-401")
		require.Equal(t, http.StatusUnauthorized, res.Status)
		require.Equal(t, "req-mcp-401", res.JSON(t)["requestId"], "the endpoint's own refusal")

		ids := &sentIDs{next: http.DefaultTransport, token: tok}
		client := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil)
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.URL + "/mcp", HTTPClient: &http.Client{Transport: ids}}, nil)
		require.NoError(t, err)
		defer s.Close()
		ids.id = "req-mcp-tool-1"
		out := apptest.Call(t, s, "create_thing", map[string]any{"name": "x", "unpublished": true})
		require.True(t, out.IsError)
		require.Equal(t, "req-mcp-tool-1", out.Structured["requestId"], "a tool error carries the id of the request that carried the call")
	})
}

// sentIDs sets a bearer token and the request id it holds on every request.
type sentIDs struct {
	next  http.RoundTripper
	token string
	id    string
}

func (s *sentIDs) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+s.token)
	if s.id != "" {
		r.Header.Set(registry.HeaderRequestID, s.id)
	}
	return s.next.RoundTrip(r)
}

// lockedBuffer collects JSON log lines from concurrent writers.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// linesWith decodes the lines mentioning s.
func (b *lockedBuffer) linesWith(s string) []map[string]any {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(b.buf.Bytes()))
	for sc.Scan() {
		if !strings.Contains(sc.Text(), s) {
			continue
		}
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) == nil {
			out = append(out, m)
		}
	}
	return out
}
