package trips

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// TestASettingsImpactNamesWhatARecutLoses: a change that recuts the days
// names how many days are recut and each chosen accommodation lost, by its
// day; a change that recuts nothing names no day. Read inside the
// read-only transaction the guards give it, as they run it.
func TestASettingsImpactNamesWhatARecutLoses(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		trips := &Trips{store: s}
		user := readFixture(t, db, "impact@example.com")
		tr := newTrip(user, "00000000-0000-7000-8000-0000000000a1", "Alps", time.Now().UTC(), nil, nil)
		require.NoError(t, s.Insert(ctx, tr))
		require.NoError(t, s.ReplaceStages(ctx, tr.ID, fullStages(tr.ID)))
		prev, err := s.Get(ctx, tr.ID)
		require.NoError(t, err)

		impact := func(change func(*Trip)) registry.Impact {
			merged := prev.clone()
			change(merged)
			var im registry.Impact
			require.NoError(t, storage.Tx{DB: db}.ReadOnly(ctx, "impact", func(ctx context.Context) error {
				im, err = trips.settingsImpact(ctx, &registry.Call{Previous: prev, Merged: merged, Now: time.Now()})
				return err
			}))
			return im
		}
		recut := impact(func(t *Trip) { t.MaxDistancePerDay = 95 })
		require.Equal(t, []string{
			"the 3 current days are recut from the route, with every change made to them by hand (labels, moves, rest days, added or deleted days)",
			`day 1: the chosen accommodation "Camping du Lac"`,
		}, recut.Loses)
		require.Contains(t, recut.Summary, "maxDistancePerDay")

		speed := impact(func(t *Trip) { t.AverageSpeed = 21 })
		require.Empty(t, speed.Loses, "a new speed recuts nothing")
		require.Equal(t, "nothing changes: the values sent are the stored ones", impact(func(*Trip) {}).Summary)
	})
}
