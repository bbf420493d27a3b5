package trips

import (
	"context"
	"sync"

	"cairn.dev/cairn/recent"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// keptDetails keeps get_trip's answers encoded, by trip: an answer is a
// function of the trip's revision (which every write to the trip, its
// days or its share moves on: Store.touch) and of whether the trip is
// locked, which turns with the calendar day. Encoding a 16-day answer
// costs about a fifth of the read over HTTP; a trip read again at the
// same revision, as most are between two edits, is encoded once. The
// recently read are kept (recent.Cache), within a bound in bytes.
type keptDetails struct {
	mu   sync.Mutex
	held *recent.Cache[string, keptDetail]
}

// keptDetail is one trip's answer, encoded, and what it was read at.
type keptDetail struct {
	revision int64
	locked   bool
	json     []byte
}

// maxKeptDetailBytes bounds the answers kept: about 4,000 trips of 16
// days.
const maxKeptDetailBytes = 16 << 20

func newKeptDetails() *keptDetails {
	return &keptDetails{held: recent.New(maxKeptDetailBytes, func(id string, k keptDetail) int { return len(id) + len(k.json) })}
}

// encoded is the JSON of d, the answer of trip tr read at tr.Revision:
// kept, or encoded and kept. Inside a transaction it is nil (the output is
// then marshalled by the face): the revision read there may be rolled back,
// and another write commit the same number over other rows. A nil
// keptDetails keeps nothing.
func (k *keptDetails) encoded(ctx context.Context, tr *Trip, d *Detail) []byte {
	if _, inTx := storage.SQLTx(ctx); inTx || k == nil {
		return nil
	}
	k.mu.Lock()
	held, ok := k.held.Get(tr.ID)
	k.mu.Unlock()
	if ok && held.revision == tr.Revision && held.locked == d.IsLocked {
		return held.json
	}
	b, err := registry.Marshal(d)
	if err != nil {
		return nil
	}
	k.mu.Lock()
	// Two readers may race: the later revision is the one kept.
	if prev, ok := k.held.Get(tr.ID); !ok || prev.revision <= tr.Revision {
		k.held.Put(tr.ID, keptDetail{revision: tr.Revision, locked: d.IsLocked, json: b})
	}
	k.mu.Unlock()
	return b
}
