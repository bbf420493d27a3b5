package trips

import (
	"encoding/binary"
	"errors"
	"math"
)

// A trip's row keeps its digest's days (days_digest) in a form of their
// own, which reads back without a decoder's reflection: get_trip reads it
// on every read it does not remember, and decoding JSON cost more than
// joining the days. Its first byte names the form; a form this version does
// not know is not read, and the days are joined instead.

// keptForm is the form encodeDays writes.
const keptForm = 1

// Which of a kept day's optional fields follow.
const (
	keptRest = 1 << iota
	keptLabel
	keptSleep
	keptAlerts
	keptStart
	keptStartLabel
	keptEndLabel
)

var errKeptDays = errors.New("kept days: malformed")

// encodeDays is days as a trip's row keeps them.
func encodeDays(days []DigestDay) []byte {
	b := make([]byte, 0, 16+len(days)*96)
	b = append(b, keptForm)
	b = binary.AppendUvarint(b, uint64(len(days)))
	for i := range days {
		d := &days[i]
		var flags byte
		set := func(bit byte, on bool) {
			if on {
				flags |= bit
			}
		}
		set(keptRest, d.IsRestDay)
		set(keptLabel, d.Label != nil)
		set(keptSleep, d.Sleep != nil)
		set(keptAlerts, d.Alerts != nil)
		set(keptStart, d.Start != nil)
		set(keptStartLabel, d.StartLabel != nil)
		set(keptEndLabel, d.EndLabel != nil)
		b = append(b, flags)
		b = appendText(b, d.ID)
		b = binary.AppendVarint(b, int64(d.Day.DayNumber))
		b = binary.AppendVarint(b, int64(d.DayNumber))
		for _, f := range [...]float64{d.Distance, d.Ascent, d.Descent, d.End[0], d.End[1]} {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
		}
		b = appendText(b, d.Date)
		if d.Label != nil {
			b = appendText(b, *d.Label)
		}
		if d.Sleep != nil {
			b = appendText(b, *d.Sleep)
		}
		if d.Alerts != nil {
			for _, n := range [...]int{d.Alerts.Critical, d.Alerts.Warning, d.Alerts.Nudge} {
				b = binary.AppendVarint(b, int64(n))
			}
		}
		if d.Start != nil {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.Start[0]))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(d.Start[1]))
		}
		if d.StartLabel != nil {
			b = appendText(b, *d.StartLabel)
		}
		if d.EndLabel != nil {
			b = appendText(b, *d.EndLabel)
		}
	}
	return b
}

func appendText(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// decodeDays reads days as encodeDays wrote them.
func decodeDays(b []byte) ([]DigestDay, error) {
	r := newKeptReader(b)
	if r.byte() != keptForm {
		return nil, errKeptDays
	}
	n := r.uvarint()
	if r.bad || n > uint64(len(b)) { // a day takes more than a byte
		return nil, errKeptDays
	}
	var days []DigestDay // nil without days, as joining them reads
	if n > 0 {
		days = make([]DigestDay, n)
	}
	for i := range days {
		d := &days[i]
		flags := r.byte()
		d.IsRestDay = flags&keptRest != 0
		d.ID = r.text()
		d.Day.DayNumber = int(r.varint())
		d.DayNumber = int(r.varint())
		d.Distance, d.Ascent, d.Descent = r.float(), r.float(), r.float()
		d.End = LatLon{r.float(), r.float()}
		d.Date = r.text()
		if flags&keptLabel != 0 {
			d.Label = r.textRef()
		}
		if flags&keptSleep != 0 {
			d.Sleep = r.textRef()
		}
		if flags&keptAlerts != 0 {
			d.Alerts = &AlertCount{Critical: int(r.varint()), Warning: int(r.varint()), Nudge: int(r.varint())}
		}
		if flags&keptStart != 0 {
			d.Start = &LatLon{r.float(), r.float()}
		}
		if flags&keptStartLabel != 0 {
			d.StartLabel = r.textRef()
		}
		if flags&keptEndLabel != 0 {
			d.EndLabel = r.textRef()
		}
		if r.bad {
			return nil, errKeptDays
		}
	}
	if r.bad || len(r.b) != 0 {
		return nil, errKeptDays
	}
	return days, nil
}

// keptReader reads the kept form; past its end, or on a malformed number,
// it reads zeros and says bad.
type keptReader struct {
	b   []byte
	s   string // the whole of b as one string, which texts are cut from
	bad bool
}

// newKeptReader reads b. A 16-day digest holds some sixty texts: copied as
// one string and cut from it, they are one allocation rather than one
// each, and they keep the whole of it alive. The copy leaves them the
// reader's own: b may be written over after.
func newKeptReader(b []byte) keptReader { return keptReader{b: b, s: string(b)} }

func (r *keptReader) byte() byte {
	if len(r.b) == 0 {
		r.bad = true
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *keptReader) uvarint() uint64 { return number(r, binary.Uvarint) }

func (r *keptReader) varint() int64 { return number(r, binary.Varint) }

// number reads a varint of either sign with read.
func number[T uint64 | int64](r *keptReader, read func([]byte) (T, int)) T {
	v, n := read(r.b)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *keptReader) float() float64 {
	if len(r.b) < 8 {
		r.bad = true
		return 0
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return f
}

// text reads a run as a string, cut from s ("" when malformed: run then
// reads nothing).
func (r *keptReader) text() string {
	b := r.run()
	end := len(r.s) - len(r.b)
	return r.s[end-len(b) : end]
}

// run reads a run of bytes written with its length first.
func (r *keptReader) run() []byte {
	n := r.uvarint()
	if r.bad || n > uint64(len(r.b)) {
		r.bad = true
		return nil
	}
	b := r.b[:n]
	r.b = r.b[n:]
	return b
}

func (r *keptReader) textRef() *string {
	s := r.text()
	return &s
}
