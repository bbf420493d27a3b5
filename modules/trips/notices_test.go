package trips

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/metrics"
	"cairn.dev/cairn/migrations"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// TestReplicasHearEachOthersWrites: two replicas over one PostgreSQL
// database, each hearing the other's notices. While heard, a remembered
// digest is given without reading the revision; a write through the other
// replica is read as soon as its notice is heard; a write made outside
// both is read once heardFor has passed; and with listening lost, every
// read checks the revision again (digest_cache_ttl 0 here).
func TestReplicasHearEachOthersWrites(t *testing.T) {
	t.Parallel()
	a, b, notices, clock := hearingReplicas(t)
	b.SetCheckEvery(0)
	b.counts = countsOn(metrics.New().Counter("cairn_trips_memory_reads_total", "test", "memory", "outcome"))

	ctx := context.Background()
	user := readFixture(t, a.db, "heard@example.com")
	tr := newTrip(user, "00000000-0000-7000-8000-0000000000ee", "Heard", time.Now().UTC(), nil, nil)
	created(t, a, b, tr)

	type counts struct{ held, checked, read float64 }
	now := func() counts {
		return counts{b.counts.digestHeld.Value(), b.counts.digestChecked.Value(), b.counts.digestRead.Value()}
	}
	read := func() int64 {
		t.Helper()
		got, _, _, err := b.Digest(ctx, tr.ID)
		require.NoError(t, err)
		return got.Revision
	}

	first := read()
	require.Equal(t, first, read())
	require.Equal(t, counts{held: 1, read: 1}, now(), "while heard, a remembered digest is given without a check")

	require.NoError(t, a.touch(ctx, tr.ID))
	require.Eventually(t, func() bool {
		b.mu.Lock()
		defer b.mu.Unlock()
		_, ok := b.digests.Get(tr.ID)
		return !ok
	}, 20*time.Second, 10*time.Millisecond, "the other replica's write was not heard")
	second := read()
	require.Greater(t, second, first, "the write heard is read")
	require.Equal(t, counts{held: 1, read: 2}, now())

	writtenElsewhere(t, a.db, tr.ID, "Behind every replica's back")
	require.Equal(t, second, read(), "a write announced by nobody is not read within heardFor")
	*clock = clock.Add(heardFor)
	require.Greater(t, read(), second, "once heardFor has passed, the revision is read again")
	require.Equal(t, counts{held: 2, read: 3}, now())

	require.NoError(t, a.Delete(ctx, tr.ID))
	require.Eventually(t, func() bool {
		_, _, _, err := b.Digest(ctx, tr.ID)
		return err != nil
	}, 20*time.Second, 10*time.Millisecond, "the other replica's deletion was not heard")

	kept := newTrip(user, "00000000-0000-7000-8000-0000000000ed", "Kept", time.Now().UTC(), nil, nil)
	created(t, a, b, kept)
	_, _, _, err := b.Digest(ctx, kept.ID)
	require.NoError(t, err)
	before := now()
	notices.Close()
	_, _, _, err = b.Digest(ctx, kept.ID)
	require.NoError(t, err)
	require.Equal(t, before.checked+1, now().checked, "not heard: every read checks the revision")
}

// heardFor is the time a replica gives what it remembers while it hears
// the others, in these tests.
const heardFor = time.Minute

// hearingReplicas are two replicas over one PostgreSQL database, the
// second hearing the notices (SetNotices, heardFor) on a clock of the
// test's own.
func hearingReplicas(t *testing.T) (a, b *Store, notices *storage.Notices, clock *time.Time) {
	t.Helper()
	url := storagetest.PostgresURL(t)
	open := func() *Store {
		db, _, err := storage.Open(url, "")
		require.NoError(t, err)
		t.Cleanup(func() { db.Close() })
		return NewStore(db)
	}
	a, b = open(), open()
	ms, err := migrations.Collect(readSources...)
	require.NoError(t, err)
	_, err = storage.Migrate(context.Background(), a.db, ms)
	require.NoError(t, err)

	notices = storage.NewNotices(b.db, slog.New(slog.DiscardHandler))
	b.SetNotices(notices, heardFor)
	at := time.Now()
	clock = &at
	b.now = func() time.Time { return *clock }
	notices.Start()
	t.Cleanup(notices.Close)
	require.Eventually(t, func() bool { return notices.Heard() != 0 }, 20*time.Second, 10*time.Millisecond)
	return a, b, notices, clock
}

// created stores tr through a and waits until b has heard it (its owner's
// stamp forgotten, the last of the notices a creation sends), so that
// nothing heard later belongs to it.
func created(t *testing.T, a, b *Store, tr *Trip) {
	t.Helper()
	forgets := func() epoch {
		b.mu.Lock()
		defer b.mu.Unlock()
		return b.stampForgets.of(tr.UserID)
	}
	before := forgets()
	require.NoError(t, a.Insert(context.Background(), tr))
	require.Eventually(t, func() bool { return forgets() != before }, 20*time.Second, 10*time.Millisecond,
		"the creation's notice was not heard")
}

// TestReplicasHearEachOthersListings: while heard, a user's listing stamp
// is remembered; a write through the other replica moves it as soon as its
// notice is heard, one through this replica at once; one made by hand
// within heardFor; and with listening lost, every call reads it.
func TestReplicasHearEachOthersListings(t *testing.T) {
	t.Parallel()
	a, b, notices, clock := hearingReplicas(t)
	ctx := context.Background()
	user := readFixture(t, a.db, "listed@example.com")
	tr := newTrip(user, "00000000-0000-7000-8000-0000000000ef", "Listed", time.Now().UTC(), nil, nil)
	created(t, a, b, tr)
	stamp := func() int64 {
		t.Helper()
		got, err := b.listingStamp(ctx, user)
		require.NoError(t, err)
		return got
	}
	byHand := func() {
		t.Helper()
		_, err := a.db.NewRaw("UPDATE trip_listing_stamps SET stamp = stamp + 100 WHERE user_id = ?", user).Exec(ctx)
		require.NoError(t, err)
	}

	first := stamp()
	byHand()
	require.Equal(t, first, stamp(), "while heard, the stamp is remembered")
	*clock = clock.Add(heardFor)
	second := stamp()
	require.Greater(t, second, first, "once heardFor has passed, the stamp is read again")

	require.NoError(t, a.touch(ctx, tr.ID))
	require.Eventually(t, func() bool { return stamp() > second }, 20*time.Second, 10*time.Millisecond,
		"the other replica's write was not heard")
	third := stamp()

	require.NoError(t, b.touch(ctx, tr.ID))
	require.Greater(t, stamp(), third, "this replica's own write is listed at once")

	notices.Close()
	fourth := stamp()
	byHand()
	require.Greater(t, stamp(), fourth, "not heard: every call reads the stamp")
}

// BenchmarkWrite is the smallest write to a trip, in a transaction of its
// own (touch): what every write does before it commits, the revision moved,
// the days kept on the row, the listing stamp and, on PostgreSQL, the two
// notices. ns/op holds the round trips; cpu-ns/op is this process's CPU
// (PostgreSQL's backend not counted).
func BenchmarkWrite(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run("engine="+engine, func(b *testing.B) {
			s, id := benchTrip(b, engine, importedStages(benchTripID, 16, 100, 5))
			ctx := context.Background()
			measureCPU(b, func() error {
				return storage.Tx{DB: s.db}.InTx(ctx, func(ctx context.Context) error { return s.touch(ctx, id) })
			})
		})
	}
}
