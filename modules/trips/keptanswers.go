package trips

import (
	"context"
	"sync"
	"time"

	"cairn.dev/cairn/recent"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// keptAnswers keeps a read's answers, each with its JSON, by key and by the
// version and UTC day it was read at: get_trip's by trip, at the trip's
// revision (which every write to the trip, its days or its share moves on),
// and list_trips' by user and query, at the user's listing stamp (which
// every write to one of the user's trips moves on). The day is part of
// both, for it turns a trip locked. Encoding a 16-day answer costs about a
// fifth of get_trip over HTTP and decoding the digest it is built from
// about a tenth; a page and its count about 130 µs of list_trips on
// SQLite. An answer is shared by every call given it: nothing changes an
// answer.
//
// An answer is kept abridged (registry.Kept): its JSON, its text once a
// face renders one, and of its value only its head, what the faces read
// (H). A decoded 16-day answer was about 90 objects for the collector to
// follow at every cycle, and at 100,000 trips the kept answers made most
// of the heap; the whole value kept abridged, a struct of mostly empty
// fields, still took the collector a third longer than its head alone
// (BenchmarkCollectKeptAnswers). The recently read are kept
// (recent.Cache), within a bound in bytes. A nil keptAnswers keeps
// nothing.
type keptAnswers[K comparable, V registry.Kept, H any] struct {
	mu       sync.Mutex
	held     *recent.Cache[K, keptAt[H]]
	head     func(V) H             // what is kept of an answer's value
	abridged func(heldAnswer, H) V // the answer given again
	counts   answerCounts          // answers given from memory, and not (memoryreads.go)
}

// keptAt is one answer as it is kept, and what it was read at.
type keptAt[H any] struct {
	version int64
	day     string
	held    heldAnswer
	head    H
}

// heldAnswer is what an answer given from memory carries beside its value
// (registry.Kept): its JSON, the rendering kept beside it, and whether the
// value is abridged. The zero value is an answer read, not kept.
type heldAnswer struct {
	json      []byte              // the answer encoded; nil when not kept
	rendering *registry.Rendering // its text, kept beside it; nil when not kept
	abridged  bool                // the value holds only its head (keptAnswers)
}

// EncodedJSON implements registry.Encoded.
func (h heldAnswer) EncodedJSON() []byte { return h.json }

// Abridged implements registry.Kept.
func (h heldAnswer) Abridged() bool { return h.abridged }

// Rendering implements registry.Kept.
func (h heldAnswer) Rendering() *registry.Rendering { return h.rendering }

// hold encodes v, the answer h is part of, to be kept: its JSON, and a
// rendering shared with the kept answer, so this call's text serves the
// next. False, keeping nothing, when v cannot be encoded: the face then
// marshals it, and reports what fails.
func (h *heldAnswer) hold(v any) bool {
	b, err := registry.Marshal(v)
	if err != nil {
		return false
	}
	h.json, h.rendering = b, new(registry.Rendering)
	return true
}

// maxKeptAnswerBytes bounds each kind of answer kept: about 15,000 trips
// of 16 days, or 9,000 pages of 20 trips. Kept as bytes and a head, an
// answer costs the collector a small part of what it did decoded
// (BenchmarkCollectKeptAnswers), though a larger heap still takes longer
// to mark: the bound trades that and memory for the reads that decode a
// digest and encode it again, fewer the more answers are held over
// 100,000 trips read Zipf-wise (docs/benchmarks.md).
const maxKeptAnswerBytes = 96 << 20

// maxTextBytes is the most a kept answer's text is counted for: a text is
// more compact than its JSON, and past 2 KB it is a summary.
const maxTextBytes = 2 << 10

func newKeptAnswers[K comparable, V registry.Kept, H any](counts answerCounts, head func(V) H, abridged func(heldAnswer, H) V) *keptAnswers[K, V, H] {
	return &keptAnswers[K, V, H]{counts: counts, head: head, abridged: abridged, held: recent.New(maxKeptAnswerBytes, func(_ K, a keptAt[H]) int {
		return 256 + len(a.held.json) + min(len(a.held.json), maxTextBytes)
	})}
}

// newKeptDetails keeps get_trip's answers.
func newKeptDetails() *keptAnswers[string, Detail, detailHead] {
	return newKeptAnswers[string](answerCountsOn(MemoryReads, "get_trip"), Detail.keptHead, abridgedDetail)
}

// newKeptLists keeps list_trips' answers.
func newKeptLists() *keptAnswers[listKey, List, registry.PageInfo] {
	return newKeptAnswers[listKey](answerCountsOn(MemoryReads, "list_trips"), List.keptHead, abridgedList)
}

// get is the answer kept for key at version on day, abridged.
func (k *keptAnswers[K, V, H]) get(key K, version int64, day string) (V, bool) {
	var none V
	if k == nil {
		return none, false
	}
	k.mu.Lock()
	held, ok := k.held.Get(key)
	k.mu.Unlock()
	if !ok || held.version != version || held.day != day {
		k.counts.built.Inc()
		return none, false
	}
	k.counts.kept.Inc()
	return k.abridged(held.held, held.head), true
}

// put keeps answer, read at version on day and encoded, unless one read
// at a later version is kept already (two readers raced).
func (k *keptAnswers[K, V, H]) put(key K, version int64, day string, answer V) {
	if k == nil {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if prev, ok := k.held.Get(key); ok && prev.version > version {
		return
	}
	held := heldAnswer{json: answer.EncodedJSON(), rendering: answer.Rendering(), abridged: true}
	k.held.Put(key, keptAt[H]{version: version, day: day, held: held, head: k.head(answer)})
}

// keeping reports whether answers read in ctx may be kept: not inside a
// transaction, whose writes may be rolled back, and whose versions another
// write may commit over other rows.
func keeping(ctx context.Context) bool {
	_, inTx := storage.SQLTx(ctx)
	return !inTx
}

// utcDay is the calendar day an answer read at now is kept for.
func utcDay(now time.Time) string { return now.UTC().Format(dateLayout) }
