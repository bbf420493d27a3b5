package planner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/storage/storagetest"
)

// TestReplicasReadEachOthersWritesAsTheyHearThem: two replicas on one
// PostgreSQL database, each giving what it read for an hour
// (digest_cache_ttl and digest_heard_ttl): a title changed through the
// first is read on the second, in get_trip over HTTP and over MCP and in
// list_trips, as soon as the second hears the write's notice. Without the
// notices it would be read an hour later.
func TestReplicasReadEachOthersWritesAsTheyHearThem(t *testing.T) {
	t.Parallel()
	url := storagetest.PostgresURL(t)
	remember := func(_ testing.TB, c *config.Config) {
		*c = c.With("digest_cache_ttl", "1h").With("digest_heard_ttl", "1h")
	}
	first := plannertest.New(t, apptest.Database(url), remember)
	second := plannertest.New(t, apptest.Database(url), remember)
	e := newEnv(t, first)
	id := e.trip(t, nil)
	first.WaitSettled(t, e.token, id)
	session := second.MCP(t, e.token)

	titles := func() (detail, listed, called string) {
		t.Helper()
		res := second.Do(t, http.MethodGet, "/trips/"+id+"/detail", e.token, nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		detail, _ = res.JSON(t)["settings"].(map[string]any)["title"].(string)
		res = second.Do(t, http.MethodGet, "/trips", e.token, nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		for _, m := range res.JSON(t)["member"].([]any) {
			if m := m.(map[string]any); m["id"] == id {
				listed, _ = m["title"].(string)
			}
		}
		out, err := session.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_trip", Arguments: map[string]any{"id": id}})
		require.NoError(t, err)
		require.False(t, out.IsError)
		raw, err := json.Marshal(out.StructuredContent)
		require.NoError(t, err)
		var trip struct {
			Settings struct {
				Title string `json:"title"`
			} `json:"settings"`
		}
		require.NoError(t, json.Unmarshal(raw, &trip))
		return detail, listed, trip.Settings.Title
	}
	detail, listed, called := titles()
	require.NotEmpty(t, detail)
	require.Equal(t, [3]string{detail, detail, detail}, [3]string{detail, listed, called}, "each read once, and remembered")
	require.NotEqual(t, "After", detail)

	res := first.Do(t, http.MethodPatch, "/trips/"+id, e.token, map[string]any{"title": "After"},
		"If-Match", fmt.Sprint(*e.version(t, id)))
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Eventually(t, func() bool {
		detail, listed, called := titles()
		return detail == "After" && listed == "After" && called == "After"
	}, 20*time.Second, 20*time.Millisecond, "the second replica never read the first's write")
}
