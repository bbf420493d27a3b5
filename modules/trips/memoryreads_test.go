package trips

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/metrics"
	"cairn.dev/cairn/storage/storagetest"
)

// TestMemoryReadsCountHowReadsWereAnswered: each get_trip counts how its
// digest was found (held, checked, read) and whether its answer was kept
// or built, as the operator reads them on the metrics listener.
func TestMemoryReadsCountHowReadsWereAnswered(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		counter := metrics.New().Counter("cairn_trips_memory_reads_total", "test", "memory", "outcome")
		s := NewStore(db)
		s.counts = countsOn(counter)
		s.SetCheckEvery(250 * time.Millisecond)
		clock := time.Now()
		s.now = func() time.Time { return clock }
		answers := answerCountsOn(counter, "get_trip")
		trips := &Trips{store: s, details: newKeptDetails()}
		trips.details.counts = answers
		user := readFixture(t, db, "counted@example.com")
		tr := newTrip(user, "00000000-0000-7000-8000-0000000000dd", "Counted", time.Now().UTC(), nil, nil)
		require.NoError(t, s.Insert(ctx, tr))

		type counts struct{ held, checked, read, kept, built float64 }
		now := func() counts {
			return counts{s.counts.digestHeld.Value(), s.counts.digestChecked.Value(), s.counts.digestRead.Value(),
				answers.kept.Value(), answers.built.Value()}
		}
		steps := []struct {
			name    string
			advance time.Duration
			before  func()
			want    counts
		}{
			{name: "first read: the digest read, the answer built", want: counts{read: 1, built: 1}},
			{name: "within the check's time: held, kept", advance: 100 * time.Millisecond, want: counts{held: 1, read: 1, kept: 1, built: 1}},
			{name: "past it, unchanged: checked, kept", advance: 200 * time.Millisecond, want: counts{held: 1, checked: 1, read: 1, kept: 2, built: 1}},
			{name: "past it, written elsewhere: read, built", advance: 300 * time.Millisecond,
				before: func() { writtenElsewhere(t, db, tr.ID, "Moved") }, want: counts{held: 1, checked: 1, read: 2, kept: 2, built: 2}},
		}
		for _, step := range steps {
			if step.before != nil {
				step.before()
			}
			clock = clock.Add(step.advance)
			_, err := trips.Detail(ctx, tr.ID, clock)
			require.NoError(t, err, step.name)
			require.Equal(t, step.want, now(), step.name)
		}
	})
}
