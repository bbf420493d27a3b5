package trips

import (
	"context"
	"sync"

	"cairn.dev/cairn/recent"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// keptLists keeps list_trips' answers, encoded, by user and query: an
// answer is a function of the user's trips, which every write to one of
// them stamps (Store.stamped, before it commits), and of the calendar day,
// which turns a trip locked. A listing read again at the same stamp and on
// the same day is given as it was, checked by one read of a key on every
// call, on every replica alike; on SQLite the listing's page and count cost
// about 130 µs of CPU, most of list_trips. The recently read are kept
// (recent.Cache), within a bound in bytes.
type keptLists struct {
	mu   sync.Mutex
	held *recent.Cache[listKey, keptList]
}

// listKey is one listing: whose, and which page of which trips.
type listKey struct {
	user          string
	filter        Filter
	offset, limit int
}

// keptList is one listing's answer and what it was read at. The answer's
// members are shared by every call given it: nothing changes an answer.
type keptList struct {
	stamp int64
	day   string
	list  List
}

// maxKeptListBytes bounds the listings kept: about 2,000 pages of 20
// trips, their JSON and their values.
const maxKeptListBytes = 16 << 20

func newKeptLists() *keptLists {
	return &keptLists{held: recent.New(maxKeptListBytes, func(k listKey, l keptList) int {
		return len(k.user) + 2*len(l.list.json) // the JSON, and about as much again for the values
	})}
}

// get is the listing k kept at stamp on day.
func (k *keptLists) get(key listKey, stamp int64, day string) (List, bool) {
	k.mu.Lock()
	held, ok := k.held.Get(key)
	k.mu.Unlock()
	if !ok || held.stamp != stamp || held.day != day {
		return List{}, false
	}
	return held.list, true
}

// put keeps l, read at stamp on day, unless a listing read at a later
// stamp is kept already (two readers raced).
func (k *keptLists) put(key listKey, stamp int64, day string, l List) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if prev, ok := k.held.Get(key); ok && prev.stamp > stamp {
		return
	}
	k.held.Put(key, keptList{stamp: stamp, day: day, list: l})
}

// list answers list_trips from a listing kept at the user's stamp and day,
// or reads it, encodes it and keeps it. The stamp is read before the
// listing, so what is kept is at least as new as the stamp it is kept at.
// Inside a transaction nothing is kept or given: a write it made would not
// be stamped until it commits, and may be rolled back.
func (k *keptLists) list(ctx context.Context, s *Store, key listKey, day string, read func() (List, error)) (List, error) {
	if _, inTx := storage.SQLTx(ctx); inTx || k == nil {
		return read()
	}
	stamp, err := s.ListingStamp(ctx, key.user)
	if err != nil {
		return List{}, err
	}
	if l, ok := k.get(key, stamp, day); ok {
		return l, nil
	}
	l, err := read()
	if err != nil {
		return List{}, err
	}
	if l.json, err = registry.Marshal(l); err != nil {
		l.json = nil // the face marshals it, and reports what fails
		return l, nil
	}
	k.put(key, stamp, day, l)
	return l, nil
}

// ListingStamp is how often the trips of userID were written (0 before
// the first write stamped): a listing read at a stamp is the same while
// the stamp stands.
func (s *Store) ListingStamp(ctx context.Context, userID string) (int64, error) {
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
