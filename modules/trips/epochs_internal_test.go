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
// own trip, or of every trip, is not. The same holds of a listing stamp
// and its user.
func TestAReadIsKeptBesideAnotherTripsWrite(t *testing.T) {
	t.Parallel()
	s := &Store{digests: recent.New[string, remembered](maxDigests, nil), forgets: newEpochs(),
		stamps: recent.New[string, heardStamp](maxStamps, nil), stampForgets: newEpochs()}
	const id = "00000000-0000-7000-8000-000000000001"
	memories := []struct {
		name   string
		forget func(id string)
		epochs *epochs
		keep   func(id string, e epoch)
		held   func(id string) bool
	}{
		{"digest", s.forget, &s.forgets,
			func(id string, e epoch) { s.keep(id, rememberedOf(digest{trip: &Trip{ID: id}}, time.Now()), e) },
			func(id string) bool { _, ok := s.digests.Get(id); return ok }},
		{"listing stamp", s.forgetStamp, &s.stampForgets,
			func(id string, e epoch) { s.keepStamp(id, heardStamp{stamp: 1, heard: 1, at: time.Now()}, e) },
			func(id string) bool { _, ok := s.stamps.Get(id); return ok }},
	}
	for _, m := range memories {
		other := "" // in another stripe than id's
		for i := 2; other == ""; i++ {
			if c := fmt.Sprintf("00000000-0000-7000-8000-%012d", i); m.epochs.stripe(c) != m.epochs.stripe(id) {
				other = c
			}
		}
		tests := []struct {
			name     string
			meantime func()
			want     bool
		}{
			{"nothing written", func() {}, true},
			{"another written", func() { m.forget(other) }, true},
			{"this one written", func() { m.forget(id) }, false},
			{"every trip written", s.forgetAll, false},
		}
		for _, tt := range tests {
			t.Run(m.name+"/"+tt.name, func(t *testing.T) { // not parallel: one store
				m.forget(id)
				s.mu.Lock()
				e := m.epochs.of(id)
				s.mu.Unlock()
				tt.meantime()
				m.keep(id, e)
				s.mu.Lock()
				ok := m.held(id)
				s.mu.Unlock()
				require.Equal(t, tt.want, ok)
			})
		}
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
