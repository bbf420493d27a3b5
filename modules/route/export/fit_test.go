package export_test

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/muktihari/fit/decoder"
	"github.com/muktihari/fit/profile/filedef"
	"github.com/muktihari/fit/profile/typedef"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/routefixture"
)

// Global message numbers of the FIT profile.
const (
	mesgFileID      = 0
	mesgLap         = 19
	mesgRecord      = 20
	mesgEvent       = 21
	mesgCourse      = 31
	mesgCoursePoint = 32
)

// stage is a small stage with a waypoint of each course point type.
func stage() export.Track {
	return export.Track{
		Name: "Grenoble → La Mure",
		Link: "https://example.org/ignored-by-fit",
		Points: []geo.Point{
			{Lat: 45.1885, Lon: 5.7245, Ele: 212},
			{Lat: 45.1203, Lon: 5.7011, Ele: 260.4},
			{Lat: 45.0556, Lon: 5.6717, Ele: 310},
			{Lat: 44.9019, Lon: 5.7856, Ele: 880.6},
		},
		Waypoints: []export.Waypoint{
			{Name: "Boulangerie du Centre", Lat: 45.0561, Lon: 5.6722, Category: "bakery"},
			{Name: "Fontaine", Lat: 45.0012, Lon: 5.7101, Category: "drinking_water"},
			{Name: "Pharmacie", Lat: 44.9030, Lon: 5.7850, Category: "pharmacy"},
			{Name: "Belvédère", Lat: 44.95, Lon: 5.75, Category: "viewpoint"},
			{Name: "Camping Le Lac", Lat: 44.9, Lon: 5.79, Category: "camp_site"},
		},
	}
}

func writeFIT(t *testing.T, tr export.Track) []byte {
	t.Helper()
	var buf bytes.Buffer
	require.NoError(t, export.WriteFIT(&buf, tr))
	return buf.Bytes()
}

func semicircles(deg float64) int32 { return int32(math.Round(deg / 180 * (1 << 31))) }

func TestWriteFITFraming(t *testing.T) {
	t.Parallel()
	b := writeFIT(t, stage())

	f, err := readFIT(b) // verifies both CRCs and the data size
	require.NoError(t, err)
	assert.Equal(t, byte(14), f.headerSize)
	assert.Equal(t, byte(0x20), f.protocol)
	assert.Equal(t, uint16(0x0814), f.profile)
	assert.Equal(t, len(b)-16, int(f.dataSize))

	var order []uint16
	for _, m := range f.messages {
		order = append(order, m.global)
	}
	assert.Equal(t, []uint16{
		mesgFileID, mesgCourse, mesgEvent,
		mesgRecord, mesgRecord, mesgRecord, mesgRecord,
		mesgCoursePoint, mesgCoursePoint, mesgCoursePoint, mesgCoursePoint, mesgCoursePoint,
		mesgLap, mesgEvent,
	}, order, "the order of exports-and-sharing.md")
}

func TestWriteFITMessages(t *testing.T) {
	t.Parallel()
	tr := stage()
	f, err := readFIT(writeFIT(t, tr))
	require.NoError(t, err)

	fileID := f.ofGlobal(mesgFileID)[0]
	assert.Equal(t, byte(6), fileID.u8(0), "type course")
	assert.Equal(t, uint16(255), fileID.u16(1), "manufacturer development")
	assert.Equal(t, uint16(0), fileID.u16(2), "product")

	course := f.ofGlobal(mesgCourse)[0]
	assert.Equal(t, "Grenoble → La", course.str(5), "15 bytes at most, cut on a rune")
	assert.Len(t, course.fields[5], 16)
	assert.Equal(t, byte(2), course.u8(4), "sport cycling")

	events := f.ofGlobal(mesgEvent)
	require.Len(t, events, 2)
	assert.Equal(t, [2]byte{0, 0}, [2]byte{events[0].u8(0), events[0].u8(1)}, "timer start")
	assert.Equal(t, [2]byte{0, 4}, [2]byte{events[1].u8(0), events[1].u8(1)}, "timer stop_all")

	records := f.ofGlobal(mesgRecord)
	require.Len(t, records, len(tr.Points))
	metres := 0.0
	for i, r := range records {
		p := tr.Points[i]
		if i > 0 {
			metres += geo.Haversine(tr.Points[i-1], p)
		}
		assert.Equal(t, semicircles(p.Lat), r.s32(0), "record %d lat", i)
		assert.Equal(t, semicircles(p.Lon), r.s32(1), "record %d lon", i)
		assert.InDelta(t, p.Ele, float64(r.u16(2))/5-500, 0.1, "record %d altitude", i)
		assert.Equal(t, uint32(math.Round(metres*100)), r.u32(5), "record %d cumulative cm", i)
	}

	points := f.ofGlobal(mesgCoursePoint)
	require.Len(t, points, len(tr.Waypoints))
	wantTypes := []byte{4, 3, 9, 1, 0} // food, water, first_aid, summit, generic
	wantNames := []string{"Boulangerie du", "Fontaine", "Pharmacie", "Belvédère", "Camping Le Lac"}
	for i, p := range points {
		wp := tr.Waypoints[i]
		assert.Equal(t, semicircles(wp.Lat), p.s32(2))
		assert.Equal(t, semicircles(wp.Lon), p.s32(3))
		assert.Equal(t, wantTypes[i], p.u8(5), "%s", wp.Category)
		assert.Equal(t, wantNames[i], p.str(6))
		assert.Len(t, p.fields[6], 16)
	}

	lap := f.ofGlobal(mesgLap)[0]
	first, last := tr.Points[0], tr.Points[len(tr.Points)-1]
	assert.Equal(t, []int32{semicircles(first.Lat), semicircles(first.Lon), semicircles(last.Lat), semicircles(last.Lon)},
		[]int32{lap.s32(3), lap.s32(4), lap.s32(5), lap.s32(6)})
	assert.Equal(t, records[len(records)-1].u32(5), lap.u32(9), "total distance")
}

// TestWriteFITDecodesWithMuktihari reads the file with a maintained FIT
// SDK port, which checks the framing and the profile's field types.
func TestWriteFITDecodesWithMuktihari(t *testing.T) {
	t.Parallel()
	tr := stage()
	tr.Points = routefixture.Route(7, 2_000, 25)

	fit, err := decoder.New(bytes.NewReader(writeFIT(t, tr))).Decode()
	require.NoError(t, err)
	course := filedef.NewCourse(fit.Messages...)

	assert.Equal(t, typedef.FileCourse, course.FileId.Type)
	assert.Equal(t, typedef.ManufacturerDevelopment, course.FileId.Manufacturer)
	require.NotNil(t, course.Course)
	assert.Equal(t, "Grenoble → La", course.Course.Name)
	assert.Equal(t, typedef.SportCycling, course.Course.Sport)

	require.Len(t, course.Records, len(tr.Points))
	first := course.Records[0]
	assert.Equal(t, semicircles(tr.Points[0].Lat), first.PositionLat)
	assert.Equal(t, semicircles(tr.Points[0].Lon), first.PositionLong)
	assert.InDelta(t, tr.Points[0].Ele, first.EnhancedAltitudeScaled(), 0.1)
	assert.Zero(t, first.Distance)

	require.Len(t, course.CoursePoints, len(tr.Waypoints))
	assert.Equal(t, typedef.CoursePointFood, course.CoursePoints[0].Type)
	assert.Equal(t, typedef.CoursePointWater, course.CoursePoints[1].Type)
	assert.Equal(t, typedef.CoursePointFirstAid, course.CoursePoints[2].Type)
	assert.Equal(t, typedef.CoursePointSummit, course.CoursePoints[3].Type)
	assert.Equal(t, typedef.CoursePointGeneric, course.CoursePoints[4].Type)
	assert.Equal(t, "Fontaine", course.CoursePoints[1].Name)

	require.NotNil(t, course.Lap)
	assert.Equal(t, course.Records[len(course.Records)-1].Distance, course.Lap.TotalDistance)
	assert.InDelta(t, geo.Length(tr.Points), course.Lap.TotalDistanceScaled(), geo.Length(tr.Points)*0.005,
		"haversine and the ellipsoid agree within half a percent")

	require.Len(t, course.Events, 2)
	assert.Equal(t, typedef.EventTypeStart, course.Events[0].EventType)
	assert.Equal(t, typedef.EventTypeStopAll, course.Events[1].EventType)
}

func TestWriteFITWithoutWaypointsDefinesNoCoursePoint(t *testing.T) {
	t.Parallel()
	tr := stage()
	tr.Waypoints = nil

	b := writeFIT(t, tr)
	f, err := readFIT(b)
	require.NoError(t, err)
	assert.Empty(t, f.ofGlobal(mesgCoursePoint))
	// A definition of global 32 would hold its number little-endian.
	assert.NotContains(t, string(b), "\x00\x00\x20\x00\x04", "no course_point definition")
}

func TestWriteFITSinglePoint(t *testing.T) {
	t.Parallel()
	// A rest day's geometry is one point.
	f, err := readFIT(writeFIT(t, export.Track{Name: "Rest", Points: []geo.Point{{Lat: 45, Lon: 180, Ele: -20}}}))
	require.NoError(t, err)

	records := f.ofGlobal(mesgRecord)
	require.Len(t, records, 1)
	assert.Equal(t, int32(math.MinInt32), records[0].s32(1), "+180° written as −180°")
	assert.Equal(t, uint16(2400), records[0].u16(2))
	assert.Zero(t, f.ofGlobal(mesgLap)[0].u32(9))
}

func TestWriteFITNamesAreUntrusted(t *testing.T) {
	t.Parallel()
	tr := stage()
	tr.Name = "\x00hidden"
	tr.Waypoints = []export.Waypoint{{Name: strings.Repeat("é", 20), Lat: 45, Lon: 6}}

	f, err := readFIT(writeFIT(t, tr))
	require.NoError(t, err)
	assert.Equal(t, "hidden", f.ofGlobal(mesgCourse)[0].str(5), "a NUL cannot end the name early")
	assert.Equal(t, strings.Repeat("é", 7), f.ofGlobal(mesgCoursePoint)[0].str(6))
}

func TestWriteFITRefuses(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give func(*export.Track)
		want error
	}{
		{name: "no points", give: func(tr *export.Track) { tr.Points = nil }, want: export.ErrNoPoints},
		{name: "latitude out of range", give: func(tr *export.Track) { tr.Points[1].Lat = 91 }, want: export.ErrInvalidCoordinate},
		{name: "NaN elevation", give: func(tr *export.Track) { tr.Points[2].Ele = math.NaN() }, want: export.ErrInvalidCoordinate},
		{name: "waypoint longitude", give: func(tr *export.Track) { tr.Waypoints[0].Lon = 200 }, want: export.ErrInvalidCoordinate},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tr := stage()
			tt.give(&tr)
			var buf bytes.Buffer
			assert.ErrorIs(t, export.WriteFIT(&buf, tr), tt.want)
			assert.Zero(t, buf.Len(), "nothing written")
		})
	}
}

func TestWriteFITReportsTheWriterError(t *testing.T) {
	t.Parallel()
	assert.ErrorIs(t, export.WriteFIT(failingWriter{}, stage()), errDiskFull)
}

var errDiskFull = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }
