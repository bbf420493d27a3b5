package progress

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/storage/storagetest"
)

// TestAnExpiredTicketOpensNothing: past its life a ticket gives nothing,
// and issuing forgets the expired ones.
func TestAnExpiredTicketOpensNothing(t *testing.T) {
	t.Parallel()
	now := time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)
	l := NewLocalTickets()
	l.now = func() time.Time { return now }
	ticket, _, err := l.Issue(context.Background(), Grant{Op: "x", Credential: "c"}, TicketTTL)
	require.NoError(t, err)
	now = now.Add(TicketTTL)
	_, ok, err := l.Redeem(context.Background(), ticket)
	require.NoError(t, err)
	require.False(t, ok)

	_, _, _ = l.Issue(context.Background(), Grant{Op: "x", Credential: "c"}, TicketTTL)
	now = now.Add(TicketTTL)
	_, _, _ = l.Issue(context.Background(), Grant{Op: "x", Credential: "c"}, TicketTTL)
	require.Len(t, l.tickets, 1, "the expired ticket is forgotten")
}

// TestAStoredTicketRevealsNoCredential: what Redis holds of a ticket is
// sealed by the ticket, under a name that is not the ticket: without the
// ticket, neither the credential nor the grant can be read.
func TestAStoredTicketRevealsNoCredential(t *testing.T) {
	t.Parallel()
	rc, prefix := storagetest.Redis(t)
	store := RedisTickets{Client: rc, Prefix: prefix}
	ctx := context.Background()
	ticket, _, err := store.Issue(ctx, Grant{Op: "trips.events", ID: "trip-1", Credential: "cairn_pat_secret"}, time.Minute)
	require.NoError(t, err)
	keys, err := rc.Keys(ctx, prefix+"*").Result()
	require.NoError(t, err)
	require.Len(t, keys, 1)
	require.NotContains(t, keys[0], ticket[len(TicketPrefix):])
	raw, err := rc.Get(ctx, keys[0]).Bytes()
	require.NoError(t, err)
	for _, clear := range []string{"cairn_pat_secret", "trips.events", "trip-1"} {
		require.NotContains(t, string(raw), clear)
	}
	ttl, err := rc.TTL(ctx, keys[0]).Result()
	require.NoError(t, err)
	require.Positive(t, ttl, "Redis forgets it by itself")
}
