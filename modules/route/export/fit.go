package export

import (
	"encoding/binary"
	"errors"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/text"
)

// ErrTooLarge refuses a track whose FIT data would not fit the header's
// 32-bit size: hundreds of millions of points, never a real route.
var ErrTooLarge = errors.New("export: the track is too large for a FIT file")

// The FIT header: protocol 2.0 and the profile version it was written
// against (20.68, as the original exports announce).
const (
	fitHeaderSize      = 14
	fitProtocolVersion = 0x20
	fitProfileVersion  = 0x0814
)

// FIT base types: the byte a definition gives each field, size and
// endianness flag included (FIT protocol, base type table).
const (
	fitEnum   byte = 0x00
	fitString byte = 0x07
	fitUint16 byte = 0x84
	fitSint32 byte = 0x85
	fitUint32 byte = 0x86
)

// fitField is one field of a definition message.
type fitField struct{ num, size, base byte }

// fitMessage is a message layout: the local type data messages refer to,
// the global (profile) message number, and its fields in the order the
// data messages write them.
type fitMessage struct {
	local  byte
	global uint16
	fields []fitField
}

// fitNameSize is the bytes of a course or course point name: at most 15
// bytes of text, then at least one NUL, as devices show no more.
const fitNameSize = 16

// The messages of a course file, with the fields exports-and-sharing.md
// lists and nothing else: field numbers are the FIT profile's.
var (
	fitFileID = fitMessage{local: 0, global: 0, fields: []fitField{
		{0, 1, fitEnum},   // type
		{1, 2, fitUint16}, // manufacturer
		{2, 2, fitUint16}, // product
	}}
	fitCourse = fitMessage{local: 1, global: 31, fields: []fitField{
		{5, fitNameSize, fitString}, // name
		{4, 1, fitEnum},             // sport
	}}
	fitEvent = fitMessage{local: 2, global: 21, fields: []fitField{
		{0, 1, fitEnum}, // event
		{1, 1, fitEnum}, // event_type
	}}
	fitRecord = fitMessage{local: 3, global: 20, fields: []fitField{
		{0, 4, fitSint32}, // position_lat, semicircles
		{1, 4, fitSint32}, // position_long, semicircles
		{2, 2, fitUint16}, // altitude, (m + 500) × 5
		{5, 4, fitUint32}, // distance, cm
	}}
	fitCoursePoint = fitMessage{local: 4, global: 32, fields: []fitField{
		{2, 4, fitSint32},           // position_lat
		{3, 4, fitSint32},           // position_long
		{5, 1, fitEnum},             // type
		{6, fitNameSize, fitString}, // name
	}}
	fitLap = fitMessage{local: 5, global: 19, fields: []fitField{
		{3, 4, fitSint32}, // start_position_lat
		{4, 4, fitSint32}, // start_position_long
		{5, 4, fitSint32}, // end_position_lat
		{6, 4, fitSint32}, // end_position_long
		{9, 4, fitUint32}, // total_distance, cm
	}}
)

// Profile values the messages carry.
const (
	fitFileCourse         = 6   // file: course
	fitManufacturerDev    = 255 // manufacturer: development
	fitSportCycling       = 2   // sport: cycling
	fitEventTimer         = 0   // event: timer
	fitEventTypeStart     = 0   // event_type: start
	fitEventTypeStopAll   = 4   // event_type: stop_all
	fitAltitudeMax        = 0xFFFE
	fitDistanceMax        = 0xFFFFFFFE // 0xFFFFFFFF means "invalid"
	fitSemicirclesPerTurn = 1 << 32
)

// WriteFIT writes t as a FIT course file, little-endian: the 14-byte header
// (protocol 2.0, profile 20.68, data size, ".FIT", header CRC), then
// file_id (course, development manufacturer, product 0), course (t.Name cut
// to 15 bytes, sport cycling), event timer start, one record per point
// (position in semicircles, altitude, cumulative haversine distance), one
// course_point per waypoint (position, type from CoursePointTypeOf, name
// cut to 15 bytes), a lap from the first to the last point with the total
// distance, event timer stop_all, and the file CRC. Each message type is
// defined once, just before its first data message.
//
// Names follow the rule of package text and are cut on a rune boundary, so
// a name never ends early, holds no control character nor breaks UTF-8. Distances use geo.Haversine, as devices do,
// so the course length matches what the device measures on the ride.
//
// It fails with ErrNoPoints, ErrInvalidCoordinate or ErrTooLarge before
// writing, or with w's error.
func WriteFIT(w io.Writer, t Track) error {
	if err := t.check(); err != nil {
		return err
	}
	e := fitEncoder{b: make([]byte, 0, 256+len(t.Points)*16+len(t.Waypoints)*27)}

	e.define(fitFileID)
	e.data(fitFileID)
	e.u8(fitFileCourse)
	e.u16(fitManufacturerDev)
	e.u16(0)

	e.define(fitCourse)
	e.data(fitCourse)
	e.name(t.Name)
	e.u8(fitSportCycling)

	e.define(fitEvent)
	e.data(fitEvent)
	e.u8(fitEventTimer)
	e.u8(fitEventTypeStart)

	e.define(fitRecord)
	metres := 0.0
	for i, p := range t.Points {
		if i > 0 {
			metres += geo.Haversine(t.Points[i-1], p)
		}
		e.data(fitRecord)
		e.s32(semicircles(p.Lat))
		e.s32(semicircles(p.Lon))
		e.u16(fitAltitude(p.Ele))
		e.u32(centimetres(metres))
	}

	if len(t.Waypoints) > 0 {
		e.define(fitCoursePoint)
	}
	for _, wp := range t.Waypoints {
		e.data(fitCoursePoint)
		e.s32(semicircles(wp.Lat))
		e.s32(semicircles(wp.Lon))
		e.u8(byte(CoursePointTypeOf(wp.Category)))
		e.name(wp.Name)
	}

	first, last := t.Points[0], t.Points[len(t.Points)-1]
	e.define(fitLap)
	e.data(fitLap)
	e.s32(semicircles(first.Lat))
	e.s32(semicircles(first.Lon))
	e.s32(semicircles(last.Lat))
	e.s32(semicircles(last.Lon))
	e.u32(centimetres(metres))

	e.data(fitEvent)
	e.u8(fitEventTimer)
	e.u8(fitEventTypeStopAll)

	if uint64(len(e.b)) > math.MaxUint32 {
		return ErrTooLarge
	}
	header := make([]byte, fitHeaderSize, fitHeaderSize+len(e.b)+2)
	header[0] = fitHeaderSize
	header[1] = fitProtocolVersion
	binary.LittleEndian.PutUint16(header[2:], fitProfileVersion)
	binary.LittleEndian.PutUint32(header[4:], uint32(len(e.b)))
	copy(header[8:12], ".FIT")
	binary.LittleEndian.PutUint16(header[12:], crc16(0, header[:12]))
	// The file CRC covers the whole header, its own CRC included, and the
	// data.
	file := append(header, e.b...)
	file = binary.LittleEndian.AppendUint16(file, crc16(0, file))
	_, err := w.Write(file)
	return err
}

// fitEncoder appends FIT records to b. The whole file is built in memory
// because the header, written first, holds the data size; at 15 bytes a
// point a long trip is a few MiB.
type fitEncoder struct{ b []byte }

// define appends a definition message: record header with the definition
// bit, a reserved byte, architecture 0 (little-endian), the global message
// number, the field count, and each field's number, size and base type.
func (e *fitEncoder) define(m fitMessage) {
	e.b = append(e.b, 0x40|m.local, 0, 0)
	e.b = binary.LittleEndian.AppendUint16(e.b, m.global)
	e.b = append(e.b, byte(len(m.fields)))
	for _, f := range m.fields {
		e.b = append(e.b, f.num, f.size, f.base)
	}
}

// data appends the record header of a data message of m's local type; the
// field values follow in m's order.
func (e *fitEncoder) data(m fitMessage) { e.b = append(e.b, m.local) }

func (e *fitEncoder) u8(v byte)    { e.b = append(e.b, v) }
func (e *fitEncoder) u16(v uint16) { e.b = binary.LittleEndian.AppendUint16(e.b, v) }
func (e *fitEncoder) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *fitEncoder) s32(v int32)  { e.b = binary.LittleEndian.AppendUint32(e.b, uint32(v)) }

// name appends s as a NUL-padded string field of fitNameSize bytes.
func (e *fitEncoder) name(s string) {
	s = fitText(s)
	e.b = append(e.b, s...)
	for range fitNameSize - len(s) {
		e.b = append(e.b, 0)
	}
}

// fitText is s under the rule of package text (valid UTF-8, no control
// character: a NUL would end the string early on the device, a line break
// would break its display), cut on a rune boundary to leave room for the
// terminating NUL, without the spaces a cut can leave at the end.
func fitText(s string) string {
	s = text.Clean(s, fitNameSize-1) // runes, then bytes below
	if len(s) < fitNameSize {
		return s
	}
	cut := fitNameSize - 1
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strings.TrimRight(s[:cut], " ")
}

// semicircles converts degrees to FIT semicircles, 2^31 per 180°. +180°
// would need 2^31, one past int32; it is the same meridian as −180°, which
// fits.
func semicircles(deg float64) int32 {
	s := math.Round(deg / 180 * (1 << 31))
	if s >= 1<<31 {
		s -= fitSemicirclesPerTurn
	}
	return int32(s)
}

// fitAltitude encodes metres as (m + 500) × 5, clamped to the field's
// range (−500 m to about 12,607 m) rather than wrapped to a wrong height.
func fitAltitude(ele float64) uint16 {
	return uint16(math.Min(math.Max(math.Round((ele+500)*5), 0), fitAltitudeMax))
}

// centimetres encodes a distance for a uint32 field, clamped below the
// invalid value (about 42,950 km).
func centimetres(m float64) uint32 {
	return uint32(math.Min(math.Round(m*100), fitDistanceMax))
}

// crc16 continues the FIT checksum, CRC-16/ARC (reflected polynomial
// 0xA001, initial value 0), over p.
func crc16(crc uint16, p []byte) uint16 {
	for _, b := range p {
		crc ^= uint16(b)
		for range 8 {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0xA001
			} else {
				crc >>= 1
			}
		}
	}
	return crc
}
