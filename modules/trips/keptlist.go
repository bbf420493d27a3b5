package trips

import (
	"context"

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
// alike, or reads it, encodes it and keeps it. The stamp is read before the
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
// the stamp stands.
func (s *Store) listingStamp(ctx context.Context, userID string) (int64, error) {
	row, err := s.reads.listingStamp.QueryRow(ctx, userID)
	if err != nil {
		return 0, err
	}
	var stamp int64
	if err := row.Scan(&stamp); err != nil && !storage.NoRows(err) {
		return 0, err
	}
	return stamp, nil
}

// stamped moves the listing stamp of trip id's owner on, inside the
// transaction ctx carries, after its writes and before it commits (at once
// outside one): a stamp moved before a write, a listing read meanwhile
// would be kept at the new stamp with the old rows. Outside a transaction
// a failure is left, as keepDigest's is: the write stands.
func (s *Store) stamped(ctx context.Context, id string) {
	_ = storage.BeforeCommit(ctx, "trips.listing:"+id, func(ctx context.Context) error {
		_, err := s.reads.stampOwner.Exec(ctx, id)
		return err
	})
}

// stampedUser moves userID's listing stamp on as stamped does, for the
// writes after which the trip is gone (its owner is then read from the
// deletion).
func (s *Store) stampedUser(ctx context.Context, userID string) {
	_ = storage.BeforeCommit(ctx, "trips.listing-user:"+userID, func(ctx context.Context) error {
		_, err := s.reads.stampUser.Exec(ctx, userID)
		return err
	})
}
