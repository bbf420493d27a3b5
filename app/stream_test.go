package app_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

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
