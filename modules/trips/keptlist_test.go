package trips

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// A kept listing is given again only while its owner's stamp stands: every
// write to one of the user's trips moves it on once it commits, creations
// and deletions included, and the answer given after each is the listing
// read afresh.
func TestKeptListingFollowsEveryWrite(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		kept := &Trips{store: s, details: newKeptDetails(), lists: newKeptLists()}
		afresh := &Trips{store: s} // keeps nothing
		user := readFixture(t, db, "lister@example.com")
		other := readFixture(t, db, "other@example.com")
		start, end := "2031-05-01", "2031-05-03"
		tr := newTrip(user, "00000000-0000-7000-8000-000000000011", "Alps", time.Now().UTC(), &start, &end)
		require.NoError(t, s.Insert(ctx, tr))
		require.NoError(t, s.ReplaceStages(ctx, tr.ID, fullStages(tr.ID)))
		now := time.Now()
		call := &registry.Call{Now: now, Vars: map[string]string{"id": tr.ID}, Principal: &registry.Principal{UserID: user}}
		in := &ListInput{PageInput: registry.PageInput{Page: 1, ItemsPerPage: 20}}

		// listed is the kept path's answer at now, which must be the
		// listing read afresh, kept encoded as encoding/json encodes it.
		listed := func(now time.Time, what string) List {
			c := *call
			c.Now = now
			got, err := kept.list(ctx, &c, in)
			require.NoError(t, err)
			want, err := afresh.list(ctx, &c, in)
			require.NoError(t, err)
			require.Nil(t, want.EncodedJSON())
			wantJSON, err := json.Marshal(want)
			require.NoError(t, err)
			require.Equal(t, string(wantJSON), string(got.EncodedJSON()), "%s: the kept listing is the listing read", what)
			return got
		}
		stamp := func() int64 {
			n, err := s.listingStamp(ctx, user)
			require.NoError(t, err)
			return n
		}
		second := newTrip(user, "00000000-0000-7000-8000-000000000012", "Pyrenees", time.Now().UTC(), nil, nil)
		tests := append(append([]aWrite{
			{"a creation (Insert)", func() error { return s.Insert(ctx, second) }},
		}, everyWrite(t, s, kept, tr, call)...),
			aWrite{"a deletion (Delete)", func() error { return s.Delete(ctx, second.ID) }})
		listed(now, "the first read")
		for _, tt := range tests {
			before := stamp()
			require.NoError(t, tt.write(), tt.name)
			require.Greater(t, stamp(), before, "%s moves the owner's stamp on", tt.name)
			listed(now, "after "+tt.name)
		}

		// Read again at the same stamp, the answer is the kept one, until
		// the day turns and the trip's start date locks it.
		first, again := listed(now, "a first read"), listed(now, "a second read")
		require.Same(t, &first.EncodedJSON()[0], &again.EncodedJSON()[0], "the second read answers the kept bytes")
		started := listed(time.Date(2031, 6, 1, 12, 0, 0, 0, time.UTC), "on the start date")
		require.True(t, started.Member[0].IsLocked)

		// Another user's writes leave this user's stamp.
		before := stamp()
		require.NoError(t, s.Insert(ctx, newTrip(other, "00000000-0000-7000-8000-000000000013", "Elsewhere", time.Now().UTC(), nil, nil)))
		require.Equal(t, before, stamp(), "another user's trip is not this user's listing")

		// A write rolled back moves no stamp, and a read inside a
		// transaction keeps nothing: the listing kept stands.
		rollback := errors.New("rolled back")
		err := storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
			require.NoError(t, s.Insert(ctx, newTrip(user, "00000000-0000-7000-8000-000000000014", "Never", time.Now().UTC(), nil, nil)))
			inside, err := kept.list(ctx, call, in)
			require.NoError(t, err)
			require.Len(t, inside.Member, 2, "the transaction lists its own write")
			require.Nil(t, inside.EncodedJSON(), "a listing read inside a transaction is not kept")
			return rollback
		})
		require.ErrorIs(t, err, rollback)
		require.Equal(t, before, stamp())
		after := listed(now, "after the rollback")
		require.Len(t, after.Member, 1)

		// The account's deletion forgets its trips and its stamp.
		require.NoError(t, NewAccountData(s).Forget(ctx, user))
		var stamps int
		require.NoError(t, db.NewRaw("SELECT COUNT(*) FROM trip_listing_stamps WHERE user_id = ?", user).Scan(ctx, &stamps))
		require.Zero(t, stamps, "no row names the deleted account")
	})
}
