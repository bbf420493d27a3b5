package trips

import (
	"context"
	"time"

	"cairn.dev/cairn/storage"
)

// listKey is one listing: whose, and which page of which trips.
type listKey struct {
	user          string
	filter        Filter
	offset, limit int
}

// keptList answers list_trips from a page kept at the user's listing stamp
// and day, checked by one read of a key on every call on every replica
// alike (remembered while the replicas' notices are heard: listingStamp),
// or reads it, encodes it and keeps it. The stamp is read before the
// page, so what is kept is at least as new as the stamp it is kept at.
// Inside a transaction nothing is kept or given: a write it made would not
// be stamped until it commits, and may be rolled back.
func (t *Trips) keptList(ctx context.Context, key listKey, day string, read func() (List, error)) (List, error) {
	if !keeping(ctx) || t.lists == nil {
		return read()
	}
	stamp, err := t.store.listingStamp(ctx, key.user)
	if err != nil {
		return List{}, err
	}
	if l, ok := t.lists.get(key, stamp, day); ok {
		return l, nil
	}
	l, err := read()
	if err != nil {
		return List{}, err
	}
	if l.hold(l) {
		t.lists.put(key, stamp, day, l)
	}
	return l, nil
}

// listingStamp is how often the trips of userID were written (0 before
// the first write stamped): a listing read at a stamp is the same while
// the stamp stands. While the other replicas' notices are heard
// (SetNotices) a stamp read is remembered, and given again for up to
// heardFor unless a notice of a write to the user's trips forgets it.
func (s *Store) listingStamp(ctx context.Context, userID string) (int64, error) {
	heard, now := s.notices.Heard(), s.now()
	var epoch epoch
	if heard != 0 {
		s.mu.Lock()
		r, ok := s.stamps.Get(userID)
		epoch = s.stampForgets.of(userID) // a forget after this makes what is read below too old to keep
		s.mu.Unlock()
		if ok && s.stillHeard(r.heard, r.at, heard, now) {
			return r.stamp, nil
		}
	}
	row, err := s.reads.listingStamp.QueryRow(ctx, userID)
	if err != nil {
		return 0, err
	}
	var stamp int64
	if err := row.Scan(&stamp); err != nil && !storage.NoRows(err) {
		return 0, err
	}
	if heard != 0 {
		s.keepStamp(userID, heardStamp{stamp: stamp, heard: heard, at: now}, epoch)
	}
	return stamp, nil
}

// keepStamp holds r, userID's stamp as it was read, unless a write to the
// trips of a user of its stripe was forgotten since epoch, as keep does a
// digest.
func (s *Store) keepStamp(userID string, r heardStamp, epoch epoch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stampForgets.of(userID) == epoch {
		s.stamps.Put(userID, r)
	}
}

// heardStamp is a listing stamp remembered while notices were heard.
type heardStamp struct {
	stamp int64
	heard uint64 // the notices' generation it was read under
	at    time.Time
}

// maxStamps is how many users' stamps a replica remembers, the recently
// read kept: a few hundred kilobytes.
const maxStamps = 10_000

// listingsChannel is the channel a moved listing stamp is announced on,
// its payload the user's id.
const listingsChannel = "cairn_listings"

// forgetStamp drops the stamp remembered for userID, and every stamp read
// in flight.
func (s *Store) forgetStamp(userID string) {
	s.mu.Lock()
	s.stamps.Forget(userID)
	s.stampForgets.forgot(userID)
	s.mu.Unlock()
}

// stampMoved forgets userID's stamp here once ctx's transaction commits,
// and tells the other replicas, who forget it as they hear it.
func (s *Store) stampMoved(ctx context.Context, userID string) error {
	storage.AfterCommit(ctx, func() { s.forgetStamp(userID) })
	return storage.Notify(ctx, s.db, listingsChannel, userID)
}

// stamped moves the listing stamp of trip id's owner on, inside the
// transaction ctx carries, after its writes and before it commits (at once
// outside one): a stamp moved before a write, a listing read meanwhile
// would be kept at the new stamp with the old rows. Outside a transaction
// a failure is left, as keepDigest's is: the write stands. On PostgreSQL
// the same statement announces the write to the other replicas, the trip's
// and its owner's listing's, heard once it commits (SetNotices), and the
// owner's stamp is forgotten here at commit.
func (s *Store) stamped(ctx context.Context, id string) {
	_ = storage.BeforeCommit(ctx, "trips.listing:"+id, func(ctx context.Context) error {
		if !s.reads.announces {
			_, err := s.reads.stampOwner.Exec(ctx, id)
			return err
		}
		row, err := s.reads.stampOwner.QueryRow(ctx, id, id)
		if err != nil {
			return err
		}
		var owner string
		if err := row.Scan(&owner); err != nil {
			if storage.NoRows(err) {
				// The trip is gone: its deletion stamps its owner
				// (stampedUser), and the trip is announced alone.
				return storage.Notify(ctx, s.db, tripsChannel, id)
			}
			return err
		}
		storage.AfterCommit(ctx, func() { s.forgetStamp(owner) })
		return nil
	})
}

// stampedUser moves userID's listing stamp on as stamped does, for the
// writes after which the trip is gone (its owner is then read from the
// deletion).
func (s *Store) stampedUser(ctx context.Context, userID string) {
	_ = storage.BeforeCommit(ctx, "trips.listing-user:"+userID, func(ctx context.Context) error {
		if _, err := s.reads.stampUser.Exec(ctx, userID); err != nil {
			return err
		}
		return s.stampMoved(ctx, userID)
	})
}
