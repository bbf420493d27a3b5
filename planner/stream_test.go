package planner_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/planner/plannertest"
)

// streamed is one event as a trip's stream sent it.
type streamed struct{ id, event, data string }

// follow opens a trip's stream (with the bearer token, or by ticket when
// token is empty and path carries one) and reads it to its end. It answers
// the status and the events; the test fails if the stream does not end.
func follow(t *testing.T, a *plannertest.App, path, token, lastEventID string) (int, []streamed) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, a.URL+path, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if lastEventID != "" {
		req.Header.Set(operations.HeaderLastEventID, lastEventID)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	if res.StatusCode != http.StatusOK {
		return res.StatusCode, nil
	}
	var (
		out []streamed
		cur streamed
	)
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.event != "" {
				out = append(out, cur)
			}
			cur = streamed{}
		case strings.HasPrefix(line, "id: "):
			cur.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			cur.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	require.NoError(t, sc.Err(), "the stream ends by itself, not by the test's deadline")
	return res.StatusCode, out
}

func types(es []streamed) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.event
	}
	return out
}

// TestATripStreamResumesAndEnds: the stream of a trip being computed
// sends its statuses, then every event with an id, and ends after
// trip_complete. Reconnecting with the id of an event it received resumes
// after it (no statuses, the same ids); reconnecting after trip_complete
// with nothing new answers 204, which stops an EventSource; an id the
// server does not know starts afresh with the statuses, and a stream
// opened on a settled trip ends after them.
func TestATripStreamResumesAndEnds(t *testing.T) {
	t.Parallel()
	engines(t, func(t *testing.T, a *plannertest.App) {
		e := newEnv(t, a)
		res := a.Do(t, "POST", "/trips", e.token, map[string]any{"sourceUrl": plannertest.StravaRoute(120)}, operations.HeaderIdempotencyKey, key())
		require.Equal(t, http.StatusAccepted, res.Status, string(res.Body))
		id := res.JSON(t)["id"].(string)
		path := "/trips/" + id + "/events"

		status, all := follow(t, a, path, e.token, "")
		require.Equal(t, http.StatusOK, status)
		require.NotEmpty(t, all)
		require.Equal(t, "status", all[0].event, "the statuses first")
		last := all[len(all)-1]
		require.Equal(t, "trip_complete", last.event, "the stream ends after trip_complete: %v", types(all))
		events := all[1:]
		seen := map[string]bool{}
		for _, ev := range events {
			require.NotEmpty(t, ev.id, "%s has an id", ev.event)
			require.False(t, seen[ev.id], "ids are distinct")
			seen[ev.id] = true
		}

		if len(events) > 1 {
			status, resumed := follow(t, a, path, e.token, events[0].id)
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, events[1:], resumed, "resumed after the first event: the rest, as sent, without statuses")
		}

		status, _ = follow(t, a, path, e.token, last.id)
		require.Equal(t, http.StatusNoContent, status, "after trip_complete, nothing to follow")

		for _, unknown := range []string{"not-an-id", strings.Repeat("9", 300) + "-0"} {
			status, fresh := follow(t, a, path, e.token, unknown)
			require.Equal(t, http.StatusOK, status)
			require.Equal(t, []string{"status"}, types(fresh), "an unknown id starts afresh; the trip is settled, so it ends there")
			require.Equal(t, last.id, fresh[0].id, "the statuses cover every event so far")
		}
	})
}

// TestABrowserOpensATripStreamWithATicket: an EventSource cannot send
// Authorization, so it asks (with its token) for a ticket, and opens the
// stream with it once. The ticket opens no other trip's stream and no
// other operation, and is refused a second time.
func TestABrowserOpensATripStreamWithATicket(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	mine, other := e.trip(t, nil), e.trip(t, nil)
	a.WaitSettled(t, e.token, mine)

	ticket := func(id string) (string, string) {
		t.Helper()
		res := a.Do(t, "POST", "/trips/"+id+"/events/ticket", e.token, nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		var body struct {
			Ticket    string    `json:"ticket"`
			ExpiresAt time.Time `json:"expiresAt"`
			Stream    string    `json:"stream"`
		}
		require.NoError(t, json.Unmarshal(res.Body, &body))
		require.True(t, body.ExpiresAt.After(time.Now()) && body.ExpiresAt.Before(time.Now().Add(5*time.Minute)), "short-lived: %v", body.ExpiresAt)
		require.True(t, strings.HasSuffix(body.Stream, "/trips/"+id+"/events?ticket="+url.QueryEscape(body.Ticket)), body.Stream)
		return body.Ticket, strings.TrimPrefix(body.Stream, a.URL)
	}

	_, stream := ticket(mine)
	status, got := follow(t, a, stream, "", "")
	require.Equal(t, http.StatusOK, status, "the ticket opens the trip's stream")
	require.Equal(t, []string{"status"}, types(got))
	status, _ = follow(t, a, stream, "", "")
	require.Equal(t, http.StatusUnauthorized, status, "once")

	tk, _ := ticket(mine)
	status, _ = follow(t, a, "/trips/"+other+"/events?ticket="+url.QueryEscape(tk), "", "")
	require.Equal(t, http.StatusUnauthorized, status, "not another trip's stream")
	status, _ = follow(t, a, "/trips/"+mine+"/events?ticket="+url.QueryEscape(tk), "", "")
	require.Equal(t, http.StatusUnauthorized, status, "a refused ticket is spent")

	tk, _ = ticket(mine)
	for _, path := range []string{"/trips/" + mine, "/trips/" + mine + "/detail", "/trips"} {
		res := a.Do(t, "GET", path+"?ticket="+url.QueryEscape(tk), "", nil)
		require.Equal(t, http.StatusUnauthorized, res.Status, "%s: a ticket is no credential elsewhere", path)
		res = a.Do(t, "GET", path, tk, nil)
		require.Equal(t, http.StatusUnauthorized, res.Status, "%s: nor a bearer token", path)
	}
	status, _ = follow(t, a, "/trips/"+mine+"/events", tk, "")
	require.Equal(t, http.StatusUnauthorized, status, "nor a bearer token for the stream itself")

	stranger := newEnv(t, a)
	res := a.Do(t, "POST", "/trips/"+mine+"/events/ticket", stranger.token, nil)
	require.Equal(t, http.StatusNotFound, res.Status, "no ticket for someone else's trip")
}
