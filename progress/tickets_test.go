package progress_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/storage/storagetest"
)

func ticketStores(t *testing.T) map[string]progress.Tickets {
	rc, prefix := storagetest.Redis(t)
	return map[string]progress.Tickets{
		"local": progress.NewLocalTickets(),
		"redis": progress.RedisTickets{Client: rc, Prefix: prefix + "ticket:"},
	}
}

// TestATicketIsRedeemedOnce: a ticket gives back its grant once; redeemed
// again, or never issued, or not even shaped like a ticket, it gives
// nothing. Each ticket is new and names no credential in clear.
func TestATicketIsRedeemedOnce(t *testing.T) {
	t.Parallel()
	for name, store := range ticketStores(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			g := progress.Grant{Op: "trips.events", ID: "trip-1", Credential: "cairn_pat_secret"}
			ticket, expires, err := store.Issue(ctx, g, time.Minute)
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(ticket, progress.TicketPrefix))
			require.NotContains(t, ticket, g.Credential)
			require.WithinDuration(t, time.Now().Add(time.Minute), expires, 5*time.Second)
			other, _, err := store.Issue(ctx, g, time.Minute)
			require.NoError(t, err)
			require.NotEqual(t, ticket, other)

			got, ok, err := store.Redeem(ctx, ticket)
			require.NoError(t, err)
			require.True(t, ok)
			require.Equal(t, g, got)
			_, ok, err = store.Redeem(ctx, ticket)
			require.NoError(t, err)
			require.False(t, ok, "once")

			for _, bad := range []string{"", "cairn_pat_secret", progress.TicketPrefix + "forged", other + "x", strings.Repeat("t", 4000)} {
				_, ok, err := store.Redeem(ctx, bad)
				require.NoError(t, err)
				require.False(t, ok, bad)
			}
			_, ok, err = store.Redeem(ctx, other)
			require.NoError(t, err)
			require.True(t, ok, "the other ticket was not spent by the failed attempts")
		})
	}
}
