package trips

import (
	"context"
	"sync"

	"cairn.dev/cairn/recent"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// keptDetails keeps get_trip's answers, encoded, by trip: an answer is a
// function of the trip's revision (which every write to the trip, its
// days or its share moves on: Store.touch) and of whether the trip is
// locked, which turns with the calendar day. Encoding a 16-day answer
// costs about a fifth of the read over HTTP, and decoding the remembered
// digest it is built from about a tenth; a trip read again at the same
// revision, as most are between two edits, is decoded and encoded once. The
// recently read are kept (recent.Cache), within a bound in bytes.
type keptDetails struct {
	mu   sync.Mutex
	held *recent.Cache[string, keptDetail]
}

// keptDetail is one trip's answer, with its JSON, and what it was read at.
// The answer is shared by every call given it: nothing changes an answer.
type keptDetail struct {
	revision int64
	locked   bool
	detail   Detail
}

// maxKeptDetailBytes bounds the answers kept, their JSON and about as much
// again for their values: about 4,000 trips of 16 days.
const maxKeptDetailBytes = 32 << 20

func newKeptDetails() *keptDetails {
	return &keptDetails{held: recent.New(maxKeptDetailBytes, func(id string, k keptDetail) int { return len(id) + 2*len(k.detail.json) })}
}

// kept is the answer of trip id kept at revision and lockedness, if any.
// A nil keptDetails keeps nothing.
func (k *keptDetails) kept(id string, revision int64, locked bool) (Detail, bool) {
	if k == nil {
		return Detail{}, false
	}
	k.mu.Lock()
	held, ok := k.held.Get(id)
	k.mu.Unlock()
	if !ok || held.revision != revision || held.locked != locked {
		return Detail{}, false
	}
	return held.detail, true
}

// encoded is the JSON of d, the answer of trip tr read at tr.Revision,
// which it keeps with d. Inside a transaction it is nil (the output is then
// marshalled by the face): the revision read there may be rolled back, and
// another write commit the same number over other rows. A nil keptDetails
// keeps nothing.
func (k *keptDetails) encoded(ctx context.Context, tr *Trip, d Detail) []byte {
	if _, inTx := storage.SQLTx(ctx); inTx || k == nil {
		return nil
	}
	if held, ok := k.kept(tr.ID, tr.Revision, d.IsLocked); ok {
		return held.json
	}
	b, err := registry.Marshal(d)
	if err != nil {
		return nil
	}
	d.json = b
	k.mu.Lock()
	// Two readers may race: the later revision is the one kept.
	if prev, ok := k.held.Get(tr.ID); !ok || prev.revision <= tr.Revision {
		k.held.Put(tr.ID, keptDetail{revision: tr.Revision, locked: d.IsLocked, detail: d})
	}
	k.mu.Unlock()
	return b
}
