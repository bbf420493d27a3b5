package app_test

import (
	"bufio"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage/storagetest"
)

// TestRedisOutageAnswersNo500: with Redis unreachable, a replay of a
// creation committed before the outage answers its record, a limit counts
// in process (and still refuses past its quota), a SharedOnly limit and a
// new event stream answer 503 with Retry-After, on both faces; once Redis
// is back, the shared count serves again.
func TestRedisOutageAnswersNo500(t *testing.T) {
	t.Parallel()
	outage := storagetest.NewRedisOutage(t)
	a := start(t, newProduct(), nil, apptest.RedisThrough(outage))
	key := func(s string) []string { return []string{"Idempotency-Key", "outage-key-" + s + "-0123456789"} }

	httpTok := a.Token(t, "outage-http@example.com")
	before := a.Do(t, http.MethodPost, "/things", httpTok, map[string]any{"name": "before"}, key("before")...)
	require.Equal(t, http.StatusCreated, before.Status, string(before.Body))
	mcpTok := a.Token(t, "outage-mcp@example.com")
	s := a.MCP(t, mcpTok)
	mcpBefore := apptest.Call(t, s, "create_thing", map[string]any{"name": "before"}) // a derived key
	require.False(t, mcpBefore.IsError, mcpBefore.Text)

	outage.Cut()

	unavailable := registry.ProblemTypeBase + registry.KindUnavailable.String()
	t.Run("http", func(t *testing.T) {
		again := a.Do(t, http.MethodPost, "/things", httpTok, map[string]any{"name": "before"}, key("before")...)
		require.Equal(t, http.StatusCreated, again.Status, "a replay of a committed creation: %s", again.Body)
		require.Equal(t, before.JSON(t)["id"], again.JSON(t)["id"])

		for i := range quota {
			res := a.Do(t, http.MethodPost, "/things", httpTok, map[string]any{"name": "during"}, key(fmt.Sprint("during", i))...)
			require.Equal(t, http.StatusCreated, res.Status, "counted in process, call %d: %s", i+1, res.Body)
		}
		over := a.Do(t, http.MethodPost, "/things", httpTok, map[string]any{"name": "during"}, key("during-over")...)
		require.Equal(t, http.StatusTooManyRequests, over.Status, "the limit still holds in process: %s", over.Body)

		shared := a.Do(t, http.MethodPost, "/shared-things", httpTok, map[string]any{"name": "during"}, key("shared")...)
		require.Equal(t, http.StatusServiceUnavailable, shared.Status, string(shared.Body))
		require.Equal(t, unavailable, shared.JSON(t)["type"])
		require.Equal(t, "5", shared.Header.Get("Retry-After"))

		stream := a.Do(t, http.MethodGet, "/things/events", httpTok, nil)
		require.Equal(t, http.StatusServiceUnavailable, stream.Status, "a stream that could send nothing is not opened: %s", stream.Body)
		require.Equal(t, unavailable, stream.JSON(t)["type"])
		require.Equal(t, "5", stream.Header.Get("Retry-After"))
	})

	t.Run("mcp", func(t *testing.T) {
		again := apptest.Call(t, s, "create_thing", map[string]any{"name": "before"})
		require.False(t, again.IsError, "a replay of a committed creation (derived key): %s", again.Text)
		require.Equal(t, mcpBefore.Structured["id"], again.Structured["id"])

		fresh := apptest.Call(t, s, "create_thing", map[string]any{"name": "during"})
		require.False(t, fresh.IsError, "counted in process: %s", fresh.Text)

		shared := apptest.Call(t, s, "create_shared_thing", map[string]any{"name": "during"})
		require.True(t, shared.IsError)
		require.Equal(t, unavailable, shared.Structured["type"], shared.Text)
		require.EqualValues(t, 503, shared.Structured["status"])
		require.EqualValues(t, 5, shared.Structured["retryAfter"])
	})

	outage.Restore(t)
	var failed string // a 500 on the way back: judged after, on the test's goroutine
	require.Eventually(t, func() bool {
		res := a.Do(t, http.MethodPost, "/shared-things", httpTok, map[string]any{"name": "after"}, key("after")...)
		if res.Status == http.StatusInternalServerError {
			failed = string(res.Body)
		}
		return res.Status == http.StatusCreated
	}, 10*time.Second, 100*time.Millisecond, "the shared count serves again once Redis is back")
	require.Empty(t, failed, "never a 500 while Redis comes back")
	stream := openStream(t, a, httpTok)
	require.Equal(t, "status", stream.next(t).event, "a stream opens again")
}

// sse reads server-sent events.
type sse struct {
	res *http.Response
	rd  *bufio.Reader
}

type event struct{ event, data string }

func openStream(t *testing.T, a *apptest.App, token string) *sse {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.URL+"/things/events", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+token)
	// A stream that never ends fails the test after a while instead of hanging it.
	res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { res.Body.Close() })
	require.Equal(t, http.StatusOK, res.StatusCode)
	require.Equal(t, "text/event-stream", res.Header.Get("Content-Type"))
	return &sse{res: res, rd: bufio.NewReader(res.Body)}
}

// next reads the next event, skipping comments; event "" at the end of
// the stream.
func (s *sse) next(t *testing.T) event {
	t.Helper()
	var e event
	for {
		line, err := s.rd.ReadString('\n')
		if err != nil {
			return event{}
		}
		switch {
		case line == "\n" && e.event != "":
			return e
		case len(line) > 7 && line[:7] == "event: ":
			e.event = line[7 : len(line)-1]
		case len(line) > 6 && line[:6] == "data: ":
			e.data = line[6 : len(line)-1]
		}
	}
}

// TestPostgresOutageAnswers503: with PostgreSQL unreachable (nothing
// listening where it was, its connections closed), a call that needs it is
// refused 503 with Retry-After, on both faces, never 500; once it is back,
// the same call succeeds.
func TestPostgresOutageAnswers503(t *testing.T) {
	t.Parallel()
	outage := storagetest.NewPostgresOutage(t)
	a := start(t, newProduct(), nil, apptest.Database(outage.URL))
	tok := a.Token(t, "pg-outage@example.com")
	key := func(s string) []string { return []string{"Idempotency-Key", "pg-outage-key-" + s + "-0123456789"} }
	before := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "before"}, key("before")...)
	require.Equal(t, http.StatusCreated, before.Status, string(before.Body))
	s := a.MCP(t, tok)

	outage.Cut()

	unavailable := registry.ProblemTypeBase + registry.KindUnavailable.String()
	res := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "during"}, key("during")...)
	require.Equal(t, http.StatusServiceUnavailable, res.Status, string(res.Body))
	require.Equal(t, unavailable, res.JSON(t)["type"])
	require.NotEmpty(t, res.Header.Get("Retry-After"))

	call := apptest.Call(t, s, "create_thing", map[string]any{"name": "during"})
	require.True(t, call.IsError, call.Text)
	require.Equal(t, unavailable, call.Structured["type"], call.Text)
	require.EqualValues(t, 503, call.Structured["status"])
	require.NotZero(t, call.Structured["retryAfter"])

	outage.Restore(t)
	var last string
	back := assert.Eventually(t, func() bool {
		res := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "after"}, key("after")...)
		last = fmt.Sprintf("%d %s", res.Status, res.Body)
		return res.Status == http.StatusCreated
	}, 10*time.Second, 100*time.Millisecond)
	require.True(t, back, "the call succeeds once PostgreSQL is back: %s", last)
}
