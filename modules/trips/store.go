package trips

import (
	"context"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/recent"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// Store keeps trips. Every method joins the transaction carried by ctx.
type Store struct {
	db    *bun.DB
	owns  *storage.Stmt // run by the owner guard on every call addressed by a trip id
	reads reads         // the hot reads (reads.go)
	// insertRoute stores a route with its points bound (insertRouteRow).
	insertRoute *storage.Stmt

	mu      sync.Mutex
	owned   map[ownerKey]time.Time            // OwnsForRead's remembered answers, until when
	digests *recent.Cache[string, remembered] // Digest's remembered answers, by trip id
	forgets epochs                            // how many times a write forgot digests
	// checkEvery is how long Digest gives a remembered digest without
	// reading the trip's revision (SetCheckEvery); now is the clock.
	checkEvery time.Duration
	now        func() time.Time
	counts     memoryCounts // how look answered (memoryreads.go)
	// notices, when set (PostgreSQL), tell this replica of the others'
	// writes as they commit: a digest remembered while they are heard is
	// given without reading its revision for up to heardFor (SetNotices).
	notices  *storage.Notices
	heardFor time.Duration
	// stamps are the listing stamps remembered while notices are heard,
	// by user (listingStamp), and stampForgets their forgets, as digests
	// and forgets are the digests'.
	stamps       *recent.Cache[string, heardStamp]
	stampForgets epochs
}

type ownerKey struct{ user, trip string }

// ownedFor is how long OwnsForRead remembers a yes, and maxOwned how many
// it remembers before starting afresh.
const (
	ownedFor = time.Minute
	maxOwned = 10_000
)

// maxDigests is how many digests Digest remembers unless told otherwise
// (SetDigestCacheSize), the recently read kept: a few megabytes.
const maxDigests = 2_000

// NewStore returns a store over db.
func NewStore(db *bun.DB) *Store {
	return &Store{db: db, reads: prepareReads(db), owned: map[ownerKey]time.Time{},
		digests: recent.New[string, remembered](maxDigests, nil), forgets: newEpochs(), now: time.Now, counts: countsOn(MemoryReads),
		stamps: recent.New[string, heardStamp](maxStamps, nil), stampForgets: newEpochs(),
		owns: storage.Prepare(db, "SELECT COUNT(*) FROM trips WHERE id = ? AND user_id = ?"),
		insertRoute: storage.Prepare(db, "INSERT INTO trip_routes (trip_id, title, source_type, raw_points, decimated, track_starts,"+
			" distance, ascent, descent, point_count, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")}
}

// SetCheckEvery sets how long a remembered digest is given without reading
// the trip's revision: how late a replica may read a write made on another
// (writes made through this store are read at once). 0 reads the revision
// on every call.
func (s *Store) SetCheckEvery(d time.Duration) { s.checkEvery = d }

// tripsChannel is the channel a write to a trip is announced on
// (storage.Notify), its payload the trip's id, or everyTrip.
const tripsChannel = "cairn_trips"

// everyTrip is the payload of a write that names no single trip.
const everyTrip = "*"

// SetNotices makes the store hear the writes the other replicas sharing
// its PostgreSQL database announce: each forgets the trip written, and its
// owner's listing stamp, as soon as its notice is heard, and a digest or a
// stamp remembered while notices are heard is given without reading the
// database for up to heardFor, which bounds how late a write made outside
// every replica (a script) is read.
// While notices are not heard (listening lost), SetCheckEvery's check
// holds. A nil n or a heardFor of 0 hears nothing. Called before the
// notices start. Every write announces itself on PostgreSQL, heard or not.
func (s *Store) SetNotices(n *storage.Notices, heardFor time.Duration) {
	if n == nil || heardFor <= 0 {
		return
	}
	s.notices, s.heardFor = n, heardFor
	n.Hear(tripsChannel, func(id string) {
		if id == everyTrip {
			s.forgetAll()
			return
		}
		s.forget(id)
	})
	n.Hear(listingsChannel, s.forgetStamp)
}

// SetDigestCacheSize sets how many digests are remembered, forgetting
// those already held. Over many trips the hit rate is what a read costs:
// a digest not held is the join of the trip, its share and its days.
func (s *Store) SetDigestCacheSize(n int) {
	s.mu.Lock()
	s.digests = recent.New[string, remembered](n, nil)
	s.forgets.forgotAll()
	s.mu.Unlock()
}

// Owns reports whether the user owns trip id. An id that is not a UUID is
// simply not owned: it gets the same answer as an unknown one.
func (s *Store) Owns(ctx context.Context, userID, id string) (bool, error) {
	if _, err := uuid.Parse(id); err != nil {
		return false, nil
	}
	row, err := s.owns.QueryRow(ctx, id, userID)
	if err != nil {
		return false, err
	}
	var n int
	err = row.Scan(&n)
	return n > 0, err
}

// OwnsForRead is Owns for the reads that load the trip themselves (get_trip,
// the trip's address, get_stage): a yes is remembered for a minute, which
// saves a query on every repeated read. A trip never changes owner, so a
// remembered yes can only be stale when the trip was deleted meanwhile, and
// then the read finds no trip and answers not found: what the check would
// have answered. A no is never remembered.
func (s *Store) OwnsForRead(ctx context.Context, userID, id string) (bool, error) {
	k, now := ownerKey{userID, id}, time.Now()
	s.mu.Lock()
	until, ok := s.owned[k]
	s.mu.Unlock()
	if ok && now.Before(until) {
		return true, nil
	}
	owns, err := s.Owns(ctx, userID, id)
	if err != nil || !owns {
		return owns, err
	}
	s.mu.Lock()
	if len(s.owned) >= maxOwned {
		s.owned = map[ownerKey]time.Time{}
	}
	s.owned[k] = now.Add(ownedFor)
	s.mu.Unlock()
	return true, nil
}

// OwnsDigest is Owns for get_trip, which reads the trip's digest next:
// it answers from the digest, read (and remembered) here, so the read that
// follows finds it remembered, and a trip not held costs one read, not
// the owner's query and the digest's.
func (s *Store) OwnsDigest(ctx context.Context, userID, id string) (bool, error) {
	if _, err := uuid.Parse(id); err != nil {
		return false, nil
	}
	f, err := s.look(ctx, id)
	if err != nil {
		if registry.AsError(err).Kind == registry.KindNotFound {
			return false, nil
		}
		return false, err
	}
	return f.owner() == userID, nil
}

// Insert stores a new trip.
func (s *Store) Insert(ctx context.Context, t *Trip) error {
	_, err := storage.Conn(ctx, s.db).NewInsert().Model(t).Exec(ctx)
	if err == nil {
		s.stamped(ctx, t.ID)
	}
	return err
}

// ErrStale is returned when a conditional write finds another version.
var ErrStale = registry.Fail(registry.KindPreconditionFailed,
	"the trip changed meanwhile; read it again and retry with its current version")

// settingsColumns are what a settings change writes: never the statuses a
// worker may be writing meanwhile, unless the change replans them.
var settingsColumns = []string{"title", "source_url", "start_date", "end_date", "fatigue_factor",
	"elevation_penalty", "max_distance_per_day", "average_speed", "departure_hour", "ebike_mode",
	"accommodation_types", "locale", "version", "updated_at"}

// Update writes t's settings when the stored version is still expected, and
// bumps the version; with replanned, it writes the new generation and its
// statuses too. The WHERE clause is what makes two writers holding one
// version give one success and one refusal.
func (s *Store) Update(ctx context.Context, t *Trip, expected int64, replanned bool) error {
	t.Version = expected + 1
	t.UpdatedAt = time.Now().UTC()
	cols := settingsColumns
	if replanned {
		t.CompletionAnnounced = false // the new plan is pending
		cols = append(slices.Clone(cols), "generation", "computation_status", "completion_announced")
	}
	res, err := storage.Conn(ctx, s.db).NewUpdate().Model(t).Column(cols...).Set(bumpRevision).WherePK().
		Where("version = ?", expected).Exec(ctx)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrStale
	}
	s.changed(ctx, t.ID)
	return nil
}

// bumpRevision is the SET clause that moves a trip's revision on, for the
// statements that write the trip's row anyway (each beside a call of
// changed); the others call touch. It leaves the days the row keeps behind
// the revision, to be kept again before the transaction commits: for the
// writes that change what the days read (the days, their alerts, the start
// date that dates them).
const bumpRevision = "revision = revision + 1"

// bumpKeeping moves the revision on as bumpRevision does, and carries the
// kept days along when they were those of the revision it leaves: for the
// writes that change nothing the days read (a status, a title, a share).
// Both engines read the row as it was before the statement on the right of
// SET, so days_digest_revision is compared with the revision left.
const bumpKeeping = bumpRevision + ", days_digest_revision = CASE WHEN days_digest_revision = revision THEN revision + 1 ELSE days_digest_revision END"

// touch moves the revision of trip id on, which a remembered digest is
// compared with (Digest), for a write that changes nothing the trip's row
// holds (its share). Every write to a trip, its days or its share moves
// it, after the write and inside its transaction when there is one: moved
// before the write, the old rows could be read and remembered at the new
// revision.
func (s *Store) touch(ctx context.Context, id string) error {
	_, err := storage.Conn(ctx, s.db).NewUpdate().Table("trips").Set(bumpKeeping).Where("id = ?", id).Exec(ctx)
	s.changed(ctx, id)
	return err
}

// Delete removes trip id.
func (s *Store) Delete(ctx context.Context, id string) error {
	var owner []string // the trip's owner, whose listing loses it
	_, err := storage.Conn(ctx, s.db).NewDelete().Model((*Trip)(nil)).Where("id = ?", id).Returning("user_id").Exec(ctx, &owner)
	s.changed(ctx, id)
	for _, o := range owner {
		s.stampedUser(ctx, o)
	}
	return err
}

// Filter narrows a listing.
type Filter struct {
	Title     string // case-insensitive substring
	StartFrom string // start date on or after (YYYY-MM-DD); ignored when malformed
	EndBy     string // end date on or before; ignored when malformed
}

func isDate(s string) bool {
	_, err := time.Parse(dateLayout, s)
	return err == nil
}

// escapeLike makes %, _ and the escape itself match literally.
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, "%", `\%`, "_", `\_`).Replace(s)
}
