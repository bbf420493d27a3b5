package trips

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/recent"
	"cairn.dev/cairn/storage/storagetest"
)

// TestAReadIsKeptBesideAnotherTripsWrite: a read that raced with the
// write of another trip is remembered; one that raced with a write of its
// own trip, or of every trip, is not.
func TestAReadIsKeptBesideAnotherTripsWrite(t *testing.T) {
	t.Parallel()
	s := &Store{digests: recent.New[string, remembered](maxDigests, nil), forgets: newEpochs()}
	const id = "00000000-0000-7000-8000-000000000001"
	other := ""
	for i := 2; other == ""; i++ {
		if c := fmt.Sprintf("00000000-0000-7000-8000-%012d", i); s.forgets.stripe(c) != s.forgets.stripe(id) {
			other = c
		}
	}
	tests := []struct {
		name     string
		meantime func()
		want     bool
	}{
		{"nothing written", func() {}, true},
		{"another trip written", func() { s.forget(other) }, true},
		{"this trip written", func() { s.forget(id) }, false},
		{"every trip written", s.forgetAll, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) { // not parallel: one store
			s.forget(id)
			s.mu.Lock()
			e := s.forgets.of(id)
			s.mu.Unlock()
			tt.meantime()
			s.keep(id, rememberedOf(digest{trip: &Trip{ID: id}}, time.Now()), e)
			s.mu.Lock()
			_, ok := s.digests.Get(id)
			s.mu.Unlock()
			require.Equal(t, tt.want, ok)
		})
	}
}

// TestAHotDigestOutlivesManyTrips: over more trips than the store
// remembers, a trip read between the others is never read from the
// database again (a change made behind the store's back stays unseen
// while the revision stands), on both engines.
func TestAHotDigestOutlivesManyTrips(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		s.SetCheckEvery(time.Hour)
		user := readFixture(t, db, "many@example.com")
		created := time.Now().UTC()
		n := maxDigests + maxDigests/2
		trips := make([]*Trip, n)
		for i := range trips {
			trips[i] = newTrip(user, fmt.Sprintf("00000000-0000-7000-8000-%012d", i+1), "Trip", created, nil, nil)
		}
		require.NoError(t, s.Seed(ctx, trips, nil))
		hot := trips[0].ID
		_, _, _, err := s.Digest(ctx, hot)
		require.NoError(t, err)
		_, err = db.NewRaw("UPDATE trips SET title = 'Changed behind the store' WHERE id = ?", hot).Exec(ctx)
		require.NoError(t, err)
		for i, tr := range trips[1:] {
			_, _, _, err := s.Digest(ctx, tr.ID)
			require.NoError(t, err)
			got, _, _, err := s.Digest(ctx, hot)
			require.NoError(t, err)
			require.Equal(t, "Trip", *got.Title, "the hot trip was read again after %d other trips", i+1)
		}
	})
}
