package trips

import (
	"context"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"
	"github.com/uptrace/bun/schema"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/storage/storagetest"
)

// TestStoredRouteReadsBack: a route reads back as it was written (the
// points to six decimals and a decimetre, the time to the microsecond) on
// both engines, its points bound on SQLite and in bun's text on
// PostgreSQL, signs and extremes included.
func TestStoredRouteReadsBack(t *testing.T) {
	t.Parallel()
	raw := Points{{Lat: -89.999999, Lon: -179.5, Ele: -432.1}, {Lat: 0, Lon: 0, Ele: 0}, {Lat: 45.123456, Lon: 6.654321, Ele: 8848.8}}
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		user := readFixture(t, db, "points@example.com")
		tr := newTrip(user, "00000000-0000-7000-8000-0000000000a1", "Points", time.Now().UTC(), nil, nil)
		require.NoError(t, s.Insert(ctx, tr))
		title, created := "Col du Galibier", time.Date(2026, 7, 1, 6, 30, 15, 123456789, time.FixedZone("CEST", 2*3600))
		require.NoError(t, s.SaveRoute(ctx, &RouteRecord{TripID: tr.ID, Title: &title, SourceType: "gpx_upload", Raw: raw, Decimated: raw[:2],
			TrackStarts: Ints{0, 2}, Distance: 12.5, Ascent: 830, Descent: 12, PointCount: 3, CreatedAt: created}))
		got, err := s.Route(ctx, tr.ID)
		require.NoError(t, err)
		require.Equal(t, raw, got.Raw)
		require.Equal(t, raw[:2], got.Decimated)
		require.Equal(t, &title, got.Title)
		require.Equal(t, Ints{0, 2}, got.TrackStarts)
		require.Equal(t, []float64{12.5, 830, 12}, []float64{got.Distance, got.Ascent, got.Descent})
		require.Equal(t, 3, got.PointCount)
		require.True(t, created.Truncate(time.Microsecond).Equal(got.CreatedAt), "created_at read back as %v", got.CreatedAt)
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

// longestQuery records the longest statement text bun sends.
type longestQuery struct {
	mu sync.Mutex
	n  int
}

func (h *longestQuery) BeforeQuery(ctx context.Context, _ *bun.QueryEvent) context.Context {
	return ctx
}

func (h *longestQuery) AfterQuery(_ context.Context, e *bun.QueryEvent) {
	h.mu.Lock()
	h.n = max(h.n, len(e.Query))
	h.mu.Unlock()
}

// TestARoutesPointsAreBound: on SQLite, storing a route sends its points
// bound to the statement, never in bun's text, which SQLite would hold
// twice more while it builds the row (the densest upload peaked 40 MB
// higher). PostgreSQL's driver holds less of bun's text than of a bound
// one (insertRouteRow); the route reads back on both.
func TestARoutesPointsAreBound(t *testing.T) {
	t.Parallel()
	raw := make(Points, 50_000)
	for i := range raw {
		raw[i] = geo.Point{Lat: 45 + float64(i)*1e-5, Lon: 6, Ele: 1000}
	}
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		h := &longestQuery{}
		s := NewStore(db.WithQueryHook(h))
		user := readFixture(t, db, "bound@example.com")
		tr := newTrip(user, "00000000-0000-7000-8000-0000000000a2", "Bound", time.Now().UTC(), nil, nil)
		require.NoError(t, s.Insert(ctx, tr))
		h.mu.Lock()
		h.n = 0 // the trip's own insert
		h.mu.Unlock()
		require.NoError(t, s.SaveRoute(ctx, &RouteRecord{TripID: tr.ID, SourceType: "gpx_upload", Raw: raw, Decimated: raw[:2], CreatedAt: time.Now()}))
		h.mu.Lock()
		longest := h.n
		h.mu.Unlock()
		if db.Dialect().Name() == dialect.PG {
			require.Greater(t, longest, len(raw)*20, "PostgreSQL is sent bun's text")
		} else {
			require.Less(t, longest, 4096, "a statement carried the route's %d points in its text", len(raw))
		}
		got, err := s.Route(ctx, tr.ID)
		require.NoError(t, err)
		require.Len(t, got.Raw, len(raw))
	})
}

// TestTheBoundRouteInsertNamesEveryColumn: the route's bound insert
// (SQLite) names the columns bun's model of a route has, in its order, so
// a column added to RouteRecord is not left out on one engine.
func TestTheBoundRouteInsertNamesEveryColumn(t *testing.T) {
	t.Parallel()
	db := storagetest.SQLite(t, readSources...)
	var want []string
	for _, f := range db.Table(reflect.TypeFor[RouteRecord]()).Fields {
		want = append(want, f.Name)
	}
	insert := NewStore(db).insertRoute.SQL()
	from, to := strings.Index(insert, "("), strings.Index(insert, ")")
	require.Positive(t, from)
	got := strings.Split(insert[from+1:to], ",")
	for i := range got {
		got[i] = strings.TrimSpace(got[i])
	}
	require.Equal(t, want, got)
	require.Equal(t, len(want), strings.Count(insert, "?"), "one argument a column")
}
