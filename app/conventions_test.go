package app_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/config"
)

// TestHTTPConventions: a body that says it is not JSON is 415 with the
// accepted type; a bad token's challenge says invalid_token; a replayed creation says so in Idempotent-Replayed; a 429
// carries RateLimit-Policy and RateLimit beside Retry-After.
func TestHTTPConventions(t *testing.T) {
	t.Parallel()
	a := start(t, newProduct(), nil)
	tok := a.Token(t, "conventions@example.com")

	t.Run("415 for a body that is not JSON", func(t *testing.T) {
		res := a.Do(t, http.MethodPost, "/things", tok, "name=x", "Content-Type", "application/x-www-form-urlencoded",
			"Idempotency-Key", "conventions-key-0415")
		require.Equal(t, http.StatusUnsupportedMediaType, res.Status, string(res.Body))
		require.Equal(t, "application/problem+json", res.Header.Get("Content-Type"))
		require.Contains(t, res.Header.Get("Accept"), "application/json")
	})

	t.Run("a bad token is invalid_token", func(t *testing.T) {
		res := a.Do(t, http.MethodPost, "/things", "not-a-token", map[string]any{"name": "x"}, "Idempotency-Key", "conventions-key-0401")
		require.Equal(t, http.StatusUnauthorized, res.Status, string(res.Body))
		require.Contains(t, res.Header.Get("WWW-Authenticate"), `error="invalid_token"`)
	})

	t.Run("a replayed creation says so", func(t *testing.T) {
		key := []string{"Idempotency-Key", "conventions-key-0001"}
		first := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "once"}, key...)
		require.Equal(t, http.StatusCreated, first.Status, string(first.Body))
		require.Empty(t, first.Header.Get("Idempotent-Replayed"))
		again := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "once"}, key...)
		require.Equal(t, http.StatusCreated, again.Status, string(again.Body))
		require.Equal(t, "true", again.Header.Get("Idempotent-Replayed"))
	})

	t.Run("a 429 names its policy", func(t *testing.T) {
		other := a.Token(t, "limited@example.com")
		var over int
		for i := range quota + 1 {
			res := a.Do(t, http.MethodPost, "/things", other, map[string]any{"name": fmt.Sprint("n", i)},
				"Idempotency-Key", fmt.Sprintf("conventions-limit-%04d", i))
			over = res.Status
			if res.Status == http.StatusTooManyRequests {
				require.NotEmpty(t, res.Header.Get("Retry-After"))
				require.Equal(t, fmt.Sprintf(`"user";q=%d;w=60`, quota), res.Header.Get("RateLimit-Policy"))
				require.Equal(t, `"user";r=0;t=`+res.Header.Get("Retry-After"), res.Header.Get("RateLimit"))
			}
		}
		require.Equal(t, http.StatusTooManyRequests, over, "the quota is spent")
	})
}

// TestCORS: pages of a configured origin may call the API and read the
// headers a client needs; any other origin gets no CORS header, and with
// nothing configured no origin does.
func TestCORS(t *testing.T) {
	t.Parallel()
	const page = "https://app.example.com"
	a := start(t, newProduct(), nil, func(_ testing.TB, c *config.Config) { c.AllowedOrigins = page })
	tok := a.Token(t, "cors@example.com")

	pre := a.Do(t, http.MethodOptions, "/things", "", nil, "Origin", page, "Access-Control-Request-Method", "POST",
		"Access-Control-Request-Headers", "authorization, content-type, idempotency-key")
	require.Equal(t, http.StatusNoContent, pre.Status)
	require.Equal(t, page, pre.Header.Get("Access-Control-Allow-Origin"))
	require.Contains(t, pre.Header.Get("Access-Control-Allow-Methods"), "PATCH")
	for _, h := range []string{"Authorization", "If-Match", "Idempotency-Key", "Confirmation-Token"} {
		require.Contains(t, pre.Header.Get("Access-Control-Allow-Headers"), h)
	}

	res := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "from a page"}, "Origin", page,
		"Idempotency-Key", "cors-key-000000001")
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	require.Equal(t, page, res.Header.Get("Access-Control-Allow-Origin"))
	exposed := res.Header.Get("Access-Control-Expose-Headers")
	for _, h := range []string{"ETag", "Location", "Confirmation-Token", "Retry-After", "RateLimit-Policy", "RateLimit", "X-Request-Id"} {
		require.Contains(t, strings.Split(exposed, ", "), h)
	}

	elsewhere := a.Do(t, http.MethodPost, "/things", tok, map[string]any{"name": "x"}, "Origin", "https://evil.example",
		"Idempotency-Key", "cors-key-000000002")
	require.Empty(t, elsewhere.Header.Get("Access-Control-Allow-Origin"))

	plain := start(t, newProduct(), nil)
	none := plain.Do(t, http.MethodOptions, "/things", "", nil, "Origin", page, "Access-Control-Request-Method", "POST")
	require.Empty(t, none.Header.Get("Access-Control-Allow-Origin"), "no origin is allowed by default")
}
