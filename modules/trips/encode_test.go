package trips

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
)

// answers are a 16-day get_trip answer and a page of 20 trips, as a trip
// imported in the Alps reads: labels past ASCII, alerts, a share.
func answers() (Detail, List) {
	at := time.Date(2031, 5, 1, 8, 0, 0, 0, time.UTC)
	d := Detail{ID: "0190a6f0-0000-7000-8000-00000000000b", Status: StatusReady, Version: 7,
		ComputationStatus: map[string]string{ComputeStages: StatusDone, "weather": StatusDone, "terrain": StatusDone},
		Shared:            true, ShareURL: "https://cairn.example/s/abcdefgh", CreatedAt: at, UpdatedAt: at.Add(time.Hour),
		Settings: Settings{Locale: "fr", EnabledAccommodationTypes: []string{"hotel", "camp_site"}, MaxDistancePerDay: 80, AverageSpeed: 15}}
	for i := range 16 {
		label := fmt.Sprintf("Saint-Étienne-de-Tinée %d", i)
		day := DigestDay{Day: Day{ID: fmt.Sprintf("0190a6f0-0000-7000-8000-%012d", i), DayNumber: i + 1,
			Distance: 83.4 + float64(i), Ascent: 1204, Descent: 1187, Label: &label, Alerts: &AlertCount{Warning: i % 3}},
			Date: at.AddDate(0, 0, i).Format(dateLayout), End: LatLon{45.12345, 5.54321}, EndLabel: &label}
		d.Days = append(d.Days, day)
	}
	var l List
	for i := range 20 {
		title, start := fmt.Sprintf("Trip <%d> é", i), "2031-05-01"
		l.Member = append(l.Member, Summary{ID: fmt.Sprintf("0190a6f0-0000-7000-8000-%012d", 100+i), Title: &title,
			StartDate: &start, EndDate: &start, StageCount: i, TotalDistance: 1234.5 + float64(i), Status: StatusReady,
			CreatedAt: at, UpdatedAt: at})
	}
	l.Page, l.ItemsPerPage, l.TotalItems = 1, 20, 100
	return d, l
}

// The hot answers take the faster encoder, and read as encoding/json
// writes them.
func TestAnswersEncodeAsEncodingJSON(t *testing.T) {
	t.Parallel()
	d, l := answers()
	for _, v := range []any{d, l} {
		require.True(t, registry.FastEncodable(reflect.TypeOf(v)), "%T", v)
		want, err := json.Marshal(v)
		require.NoError(t, err)
		got, err := registry.Marshal(v)
		require.NoError(t, err)
		require.Equal(t, string(want), string(got))
	}
}

// BenchmarkEncodeAnswer encodes a 16-day get_trip answer and a page of
// list_trips, through encoding/json and through registry.Marshal.
func BenchmarkEncodeAnswer(b *testing.B) {
	d, l := answers()
	for _, a := range []struct {
		name string
		v    any
	}{{"get_trip", d}, {"list_trips", l}} {
		for _, e := range []struct {
			name    string
			marshal func(any) ([]byte, error)
		}{{"encoding-json", json.Marshal}, {"registry", registry.Marshal}} {
			b.Run(a.name+"/"+e.name, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := e.marshal(a.v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
