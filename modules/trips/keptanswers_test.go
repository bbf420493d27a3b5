package trips

import (
	"fmt"
	"reflect"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/recent"
	"cairn.dev/cairn/registry"
)

// An answer is kept abridged: the same JSON and rendering, none of the
// days or trips the JSON holds, and every method a face may call on it
// (every method of the type: Versioned, Localized, Settling, ...) answers
// as it does of the answer read, so a method added later that reads a
// field abridge drops fails here.
func TestAKeptAnswerIsAbridgedToWhatTheFacesRead(t *testing.T) {
	t.Parallel()
	label, start := "Briançon", LatLon{44.9, 6.6}
	days := []DigestDay{
		{Day: Day{ID: "d1", Distance: 80.5, Ascent: 1200, Alerts: &AlertCount{Warning: 1}}, Start: &start, StartLabel: &label, End: LatLon{45, 6.7}},
		{Day: Day{ID: "d2", Distance: 61, Label: &label}, End: LatLon{45.2, 6.9}},
	}
	read := time.Date(2031, 5, 1, 8, 0, 0, 0, time.UTC)
	done := Detail{
		ID: "t1", Settings: Settings{Locale: "fr", EnabledAccommodationTypes: []string{"hotel"}}, Status: "ready",
		ComputationStatus: map[string]string{ComputeStages: StatusDone, ComputeTerrain: StatusRunning},
		Alerts:            []TripAlert{{Code: "wind", Severity: "warning", Message: "vent"}}, Days: days,
		Version: 7, CreatedAt: read, UpdatedAt: read,
	}
	partial := Detail{ID: "t2", Settings: Settings{Locale: "en"}, ComputationStatus: map[string]string{ComputeStages: StatusRunning},
		Partial: true, RetryAfter: PartialRetryAfter, Note: "not yet", Version: 2}
	failed := Detail{ID: "t3", Settings: Settings{Locale: "en"}, ComputationStatus: map[string]string{ComputeStages: StatusFailed, ComputeRoute: StatusFailed},
		Failure: FailureNotFound, Note: failureNote(FailureNotFound), Version: 3}
	list := List{Member: []Summary{{ID: "t1", StageCount: 2, TotalDistance: 141.5, CreatedAt: read, UpdatedAt: read}},
		PageInfo: registry.PageInfo{Page: 1, ItemsPerPage: 20, TotalItems: 1}}

	details := newKeptDetails()
	for _, d := range []Detail{done, partial, failed} {
		t.Run(d.ID, func(t *testing.T) {
			d.json, d.rendering = mustMarshal(t, d), new(registry.Rendering)
			details.put(d.ID, d.Version, "2031-05-01", d)
			kept, ok := details.get(d.ID, d.Version, "2031-05-01")
			require.True(t, ok)
			require.True(t, kept.Abridged())
			require.False(t, d.Abridged())
			require.Nil(t, kept.Days)
			require.Nil(t, kept.Alerts)
			sameToTheFaces(t, d, kept)
		})
	}
	t.Run("list", func(t *testing.T) {
		lists := newKeptLists()
		list.json, list.rendering = mustMarshal(t, list), new(registry.Rendering)
		key := listKey{user: "u1", limit: 20}
		lists.put(key, 1, "2031-05-01", list)
		kept, ok := lists.get(key, 1, "2031-05-01")
		require.True(t, ok)
		require.True(t, kept.Abridged())
		require.Nil(t, kept.Member)
		sameToTheFaces(t, list, kept)
	})
}

// sameToTheFaces asserts that kept answers every method of its type as
// read does, but Abridged.
func sameToTheFaces(t *testing.T, read, kept any) {
	t.Helper()
	r, k := reflect.ValueOf(read), reflect.ValueOf(kept)
	called := 0
	for i := range r.NumMethod() {
		name := r.Type().Method(i).Name
		if name == "Abridged" || r.Method(i).Type().NumIn() != 0 {
			continue
		}
		called++
		want, got := r.Method(i).Call(nil), k.Method(i).Call(nil)
		for j := range want {
			require.Equal(t, want[j].Interface(), got[j].Interface(), "%s", name)
		}
	}
	require.GreaterOrEqual(t, called, 2, "EncodedJSON and Rendering at least")
	require.Same(t, &read.(registry.Encoded).EncodedJSON()[0], &kept.(registry.Encoded).EncodedJSON()[0], "the same bytes")
	require.Same(t, read.(registry.Kept).Rendering(), kept.(registry.Kept).Rendering(), "one rendering")
}

func mustMarshal(t testing.TB, v any) []byte {
	t.Helper()
	b, err := registry.Marshal(v)
	require.NoError(t, err)
	return b
}

// BenchmarkCollectKeptAnswers is one collection of the heap while 15,000
// 16-day get_trip answers are kept: each decoded beside its JSON (as they
// once were), as its JSON and the value abridged to what the faces read
// (a struct of mostly empty fields), or as its JSON and that value's head
// (keptAnswers): the cost every collection pays for what is kept, and the
// objects it follows.
func BenchmarkCollectKeptAnswers(b *testing.B) {
	const held = 15_000
	for _, c := range []struct {
		name string
		hold func() func(string, Detail) any // a new holder, which keeps an answer and answers what holds them
	}{
		{"held=decoded", holding(func(d Detail) Detail { return d })},
		{"held=abridged-value", holding(func(d Detail) Detail {
			return abridgedDetail(heldAnswer{json: d.json, rendering: d.rendering, abridged: true}, d.keptHead())
		})},
		{"held=head", func() func(string, Detail) any {
			kept := newKeptDetails()
			return func(id string, d Detail) any { kept.put(id, 1, "2031-05-01", d); return kept }
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			keep := c.hold()
			var kept any
			for i := range held {
				d, _ := answers()
				d.json, d.rendering = mustMarshal(b, d), new(registry.Rendering)
				kept = keep(fmt.Sprint(i), d)
			}
			for b.Loop() {
				runtime.GC()
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			b.ReportMetric(float64(m.HeapObjects), "heap-objects")
			runtime.KeepAlive(kept)
		})
	}
}

// holding makes holders that keep answers as keep makes them, in a cache
// as keptAnswers keeps its own.
func holding(keep func(Detail) Detail) func() func(string, Detail) any {
	return func() func(string, Detail) any {
		held := recent.New[string, Detail](1<<40, nil)
		return func(id string, d Detail) any { held.Put(id, keep(d)); return held }
	}
}
