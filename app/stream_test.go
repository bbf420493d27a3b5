package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
)

// TestARevokedTokenClosesItsOpenStream: an event stream opened with a
// token receives events until the token is revoked; at the next re-check
// it ends with the problem a new call would get, and a stream of another
// token goes on.
func TestARevokedTokenClosesItsOpenStream(t *testing.T) {
	t.Parallel()
	p := newProduct()
	a := start(t, p, nil, func(_ testing.TB, c *config.Config) { c.StreamRecheck = 50 * time.Millisecond })
	revoked := a.Token(t, "stream@example.com")
	kept := a.Token(t, "stream@example.com")
	topic := topicOf(p.tokens.userID("stream@example.com"))

	doomed, other := openStream(t, a, revoked), openStream(t, a, kept)
	for _, s := range []*sse{doomed, other} {
		require.Equal(t, "status", s.next(t).event)
	}
	publish := func(n int) {
		require.NoError(t, (*p.hub).Publish(context.Background(), topic, progress.Event{Type: "made", Data: map[string]int{"n": n}}))
	}
	publish(1)
	require.Equal(t, event{"made", `{"n":1}`}, doomed.next(t), "events flow while the token holds")
	require.Equal(t, event{"made", `{"n":1}`}, other.next(t))

	p.tokens.revoke(revoked)
	var last event
	for e := doomed.next(t); e.event != ""; e = doomed.next(t) {
		last = e // events published before the re-check noticed may still arrive
	}
	require.Equal(t, operations.ProblemEvent, last.event, "the stream ends saying why")
	var problem registry.Problem
	require.NoError(t, json.Unmarshal([]byte(last.data), &problem))
	require.Equal(t, registry.ProblemTypeBase+registry.KindUnauthenticated.String(), problem.Type)

	publish(2)
	require.Equal(t, event{"made", `{"n":2}`}, other.next(t), "another token's stream goes on")
	require.Equal(t, 401, a.Do(t, "GET", "/things/events", revoked, nil).Status, "and the token opens nothing new")
}

// rawStream opens path as an event stream, with token as bearer when
// given, and returns the response unread.
func rawStream(t *testing.T, a *apptest.App, path, token string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, a.URL+path, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := (&http.Client{Timeout: 20 * time.Second}).Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// frames reads the next n blocks of a stream (up to each blank line),
// lines kept as sent.
func frames(t *testing.T, rd *bufio.Reader, n int) [][]string {
	t.Helper()
	var out [][]string
	var cur []string
	for len(out) < n {
		line, err := rd.ReadString('\n')
		require.NoError(t, err, "the stream ended after %v", out)
		line = strings.TrimSuffix(line, "\n")
		if line == "" {
			out, cur = append(out, cur), nil
			continue
		}
		cur = append(cur, line)
	}
	return out
}

// TestStreamsSayWhenToRetryAndNameTheirEvents: a stream opens with its
// reconnection delay, and every event published through the hub goes out
// with its id, which a reconnecting EventSource sends back.
func TestStreamsSayWhenToRetryAndNameTheirEvents(t *testing.T) {
	t.Parallel()
	p := newProduct()
	a := start(t, p, nil)
	token := a.Token(t, "ids@example.com")
	res := rawStream(t, a, "/things/events", token)
	require.Equal(t, http.StatusOK, res.StatusCode)
	rd := bufio.NewReader(res.Body)
	got := frames(t, rd, 2)
	require.Equal(t, []string{"retry: " + strconv.FormatInt(operations.StreamRetry.Milliseconds(), 10)}, got[0], "first, how long to wait before reconnecting")
	require.Equal(t, []string{"event: status", `data: {"following":true}`}, got[1], "an event without an id has no id line")

	topic := topicOf(p.tokens.userID("ids@example.com"))
	require.NoError(t, (*p.hub).Publish(context.Background(), topic, progress.Event{Type: "made", Data: map[string]int{"n": 1}}))
	made := frames(t, rd, 1)[0]
	require.Len(t, made, 3, "%v", made)
	require.True(t, strings.HasPrefix(made[0], "id: ") && len(made[0]) > len("id: "), "%v", made)
	require.Equal(t, []string{"event: made", `data: {"n":1}`}, made[1:])

	sub, err := (*p.hub).Subscribe(context.Background(), topic, strings.TrimPrefix(made[0], "id: "))
	require.NoError(t, err)
	require.True(t, sub.Resumed, "the id is the hub's: a stream can resume from it")
}

// TestAStreamTicketOpensOneStreamOnce: a browser's EventSource cannot send
// Authorization, so a stream opens with a ticket in its query instead. The
// ticket opens the stream it was issued for, once; it is refused, as every
// invalid ticket is, for another stream, a second time, and as a bearer
// token; the stream it opened runs under the credential of whoever asked
// for it, so revoking that token closes it.
func TestAStreamTicketOpensOneStreamOnce(t *testing.T) {
	t.Parallel()
	p := newProduct()
	a := start(t, p, nil, func(_ testing.TB, c *config.Config) { c.StreamRecheck = 50 * time.Millisecond })
	token := a.Token(t, "ticket@example.com")
	issue := func(op, credential string) string {
		ticket, _, err := (*p.tickets).Issue(context.Background(), progress.Grant{Op: op, Credential: credential}, time.Minute)
		require.NoError(t, err)
		return ticket
	}
	refused := func(res *http.Response, why string) {
		t.Helper()
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, why)
		var problem registry.Problem
		require.NoError(t, json.NewDecoder(res.Body).Decode(&problem))
		require.Equal(t, registry.ProblemTypeBase+registry.KindUnauthenticated.String(), problem.Type, why)
		require.Contains(t, res.Header.Get("WWW-Authenticate"), "Bearer", why)
	}

	ticket := issue("things.events", token)
	opened := rawStream(t, a, "/things/events?ticket="+url.QueryEscape(ticket), "")
	require.Equal(t, http.StatusOK, opened.StatusCode, "the ticket opens its stream")
	s := &sse{res: opened, rd: bufio.NewReader(opened.Body)}
	require.Equal(t, "status", s.next(t).event)

	refused(rawStream(t, a, "/things/events?ticket="+url.QueryEscape(ticket), ""), "a ticket opens one stream, once")
	refused(rawStream(t, a, "/things/events?ticket="+url.QueryEscape(issue("things.create", token)), ""), "a ticket for another operation")
	refused(rawStream(t, a, "/things/events?ticket=cairn_st_forged", ""), "a ticket never issued")
	refused(rawStream(t, a, "/things/events", issue("things.events", token)), "a ticket is no bearer token")
	res := a.Do(t, "POST", "/things?ticket="+url.QueryEscape(issue("things.events", token)), "", map[string]any{"name": "x"}, "Idempotency-Key", "a-key-of-sixteen-chars")
	require.Equal(t, http.StatusUnauthorized, res.Status, "nor does any other operation take one")

	p.tokens.revoke(token)
	var last event
	for e := s.next(t); e.event != ""; e = s.next(t) {
		last = e
	}
	require.Equal(t, operations.ProblemEvent, last.event, "revoking the token closes the stream its ticket opened")
	refused(rawStream(t, a, "/things/events?ticket="+url.QueryEscape(issue("things.events", token)), ""), "a ticket of a revoked token opens nothing")
}
