package trips

import (
	"encoding/binary"
	"math"
	"time"
)

// A remembered digest holds its trip in a form of the store's own, as it
// holds its days (keptdays.go): bytes the collector does not look into.
// Held as a Trip, each remembered trip was some fifty pointers (its
// statuses' map above all), followed at every collection: over 100,000
// trips, a tenth of an MCP read's CPU. The trip's own alerts are held as
// they are: most trips have none.

// Which of a kept trip's optional fields follow.
const (
	tripTitle = 1 << iota
	tripSourceType
	tripStartDate
	tripEndDate
	tripEbike
	tripAnnounced
	tripOutOfZone
)

// encodeTrip is t, but for its alerts, in the kept form.
func encodeTrip(t *Trip) []byte {
	b := make([]byte, 0, 512)
	var flags byte
	set := func(bit byte, on bool) {
		if on {
			flags |= bit
		}
	}
	set(tripTitle, t.Title != nil)
	set(tripSourceType, t.SourceType != nil)
	set(tripStartDate, t.StartDate != nil)
	set(tripEndDate, t.EndDate != nil)
	set(tripEbike, t.EbikeMode)
	set(tripAnnounced, t.CompletionAnnounced)
	set(tripOutOfZone, t.OutOfZone)
	b = append(b, flags)
	for _, s := range [...]string{t.ID, t.UserID, t.SourceURL, t.Locale, t.Status} {
		b = appendText(b, s)
	}
	for _, p := range [...]*string{t.Title, t.SourceType, t.StartDate, t.EndDate} {
		if p != nil {
			b = appendText(b, *p)
		}
	}
	for _, f := range [...]float64{t.FatigueFactor, t.ElevationPenalty, t.MaxDistancePerDay, t.AverageSpeed} {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
	}
	for _, n := range [...]int64{int64(t.DepartureHour), t.Version, t.Generation, t.Revision} {
		b = binary.AppendVarint(b, n)
	}
	b = appendList(b, t.EnabledAccommodationTypes)
	b = appendPairs(b, t.ComputationStatus)
	b = appendPairs(b, t.Coverage)
	for _, at := range [...]time.Time{t.CreatedAt, t.UpdatedAt} {
		// The binary form keeps the instant and the zone's offset: a time
		// read back is in UTC, Local or a fixed zone as it was written.
		when, _ := at.MarshalBinary() // fails only for offsets no database gives
		b = appendText(b, string(when))
	}
	return b
}

// appendList writes a list, nil told from empty.
func appendList(b []byte, list []string) []byte {
	if list == nil {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(list))+1)
	for _, s := range list {
		b = appendText(b, s)
	}
	return b
}

// appendPairs writes a map of strings, nil told from empty.
func appendPairs[M ~map[string]string](b []byte, m M) []byte {
	if m == nil {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(m))+1)
	for k, v := range m {
		b = appendText(appendText(b, k), v)
	}
	return b
}

// decodeTrip reads a trip as encodeTrip wrote it.
func decodeTrip(b []byte) (*Trip, error) {
	r := newKeptReader(b)
	t := new(Trip)
	flags := r.byte()
	for _, s := range [...]*string{&t.ID, &t.UserID, &t.SourceURL, &t.Locale, &t.Status} {
		*s = r.text()
	}
	for i, p := range [...]**string{&t.Title, &t.SourceType, &t.StartDate, &t.EndDate} {
		if flags&(tripTitle<<i) != 0 {
			*p = r.textRef()
		}
	}
	t.EbikeMode, t.CompletionAnnounced, t.OutOfZone = flags&tripEbike != 0, flags&tripAnnounced != 0, flags&tripOutOfZone != 0
	for _, f := range [...]*float64{&t.FatigueFactor, &t.ElevationPenalty, &t.MaxDistancePerDay, &t.AverageSpeed} {
		*f = r.float()
	}
	t.DepartureHour = int(r.varint())
	t.Version, t.Generation, t.Revision = r.varint(), r.varint(), r.varint()
	if n := r.count(); n > 0 {
		t.EnabledAccommodationTypes = make(TypeList, n-1)
		for i := range t.EnabledAccommodationTypes {
			t.EnabledAccommodationTypes[i] = r.text()
		}
	}
	t.ComputationStatus = readPairs[StatusMap](&r)
	t.Coverage = readPairs[Coverage](&r)
	for _, at := range [...]*time.Time{&t.CreatedAt, &t.UpdatedAt} {
		if when := r.run(); r.bad || at.UnmarshalBinary(when) != nil {
			return nil, errKeptDays
		}
	}
	if r.bad || len(r.b) != 0 {
		return nil, errKeptDays
	}
	return t, nil
}

// count reads a length written one more than it is (0 for nil); a length
// longer than what is left is malformed.
func (r *keptReader) count() uint64 {
	n := r.uvarint()
	if n > uint64(len(r.b))+1 {
		r.bad = true
		return 0
	}
	return n
}

func readPairs[M ~map[string]string](r *keptReader) M {
	n := r.count()
	if n == 0 {
		return nil
	}
	m := make(M, n-1)
	for range n - 1 {
		k := r.text()
		m[k] = r.text()
	}
	return m
}
