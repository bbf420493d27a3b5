package trips

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/schema"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/storage/storagetest"
)

// TestStoredRouteReadsBack: a route's points, written into the statement
// as a literal, read back as they were written (to six decimals and a
// decimetre) on both engines, signs and extremes included.
func TestStoredRouteReadsBack(t *testing.T) {
	t.Parallel()
	raw := Points{{Lat: -89.999999, Lon: -179.5, Ele: -432.1}, {Lat: 0, Lon: 0, Ele: 0}, {Lat: 45.123456, Lon: 6.654321, Ele: 8848.8}}
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		user := readFixture(t, db, "points@example.com")
		tr := newTrip(user, "00000000-0000-7000-8000-0000000000a1", "Points", time.Now().UTC(), nil, nil)
		require.NoError(t, s.Insert(ctx, tr))
		require.NoError(t, s.SaveRoute(ctx, &RouteRecord{TripID: tr.ID, SourceType: "gpx_upload", Raw: raw, Decimated: raw[:2], CreatedAt: time.Now().UTC()}))
		got, err := s.Route(ctx, tr.ID)
		require.NoError(t, err)
		require.Equal(t, raw, got.Raw)
		require.Equal(t, raw[:2], got.Decimated)
	})
}

// TestPointsAppendInPlace: the statement's literal is the points' JSON in
// quotes, written into the statement's buffer with no allocation of its
// own once the buffer holds it (a 1M-point route's text was copied twice).
func TestPointsAppendInPlace(t *testing.T) { // not parallel: AllocsPerRun refuses it
	ps := make(Points, 1000)
	for i := range ps {
		ps[i] = geo.Point{Lat: 45 + float64(i)*1e-4, Lon: 6 - float64(i)*1e-4, Ele: float64(i)}
	}
	value, err := ps.Value()
	require.NoError(t, err)
	got, err := ps.AppendQuery(schema.QueryGen{}, nil)
	require.NoError(t, err)
	require.Equal(t, "'"+value.(string)+"'", string(got))
	buf := make([]byte, 0, 2*len(got))
	allocs := testing.AllocsPerRun(10, func() { _, _ = ps.AppendQuery(schema.QueryGen{}, buf[:0]) })
	require.Zero(t, allocs)
}
