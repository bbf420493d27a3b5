package trips

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"
)

// A trip held in its kept form reads back as it was, every field of it
// (filled by reflection, so a field added to Trip and not kept fails
// here), nil told from empty, times in their zones.
func TestKeptTripReadsAsWritten(t *testing.T) {
	t.Parallel()
	filled := new(Trip)
	fill(t, reflect.ValueOf(filled).Elem())
	filled.Alerts = nil // held beside the kept form
	filled.CreatedAt = time.Date(2031, 5, 1, 8, 0, 0, 123, time.UTC)
	filled.UpdatedAt = time.Date(2031, 5, 2, 8, 0, 0, 0, time.FixedZone("", 2*3600))
	empty := &Trip{EnabledAccommodationTypes: TypeList{}, ComputationStatus: StatusMap{}, Coverage: Coverage{},
		CreatedAt: time.Date(2031, 5, 1, 8, 0, 0, 0, time.Local)}
	tests := []struct {
		name string
		trip *Trip
	}{
		{"every field set", filled},
		{"nothing set", &Trip{}},
		{"empty lists and maps", empty},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeTrip(encodeTrip(tt.trip))
			require.NoError(t, err)
			require.Equal(t, tt.trip, got)
			require.Equal(t, tt.trip.CreatedAt.Location(), got.CreatedAt.Location())
		})
	}
	whole := encodeTrip(filled)
	for i := range whole {
		_, err := decodeTrip(whole[:i])
		require.Error(t, err, "cut at %d", i)
	}
	_, err := decodeTrip(append(whole, 0))
	require.Error(t, err, "a byte more")
}

// fill sets every field of v to a value that is not its zero.
func fill(t *testing.T, v reflect.Value) {
	for i := range v.NumField() {
		f, sf := v.Field(i), v.Type().Field(i)
		if sf.Type == reflect.TypeFor[bun.BaseModel]() {
			continue
		}
		switch {
		case sf.Type == reflect.TypeFor[time.Time]():
			f.Set(reflect.ValueOf(time.Date(2031, 5, 1, 8, 0, 0, 0, time.UTC)))
		case f.Kind() == reflect.String:
			f.SetString(sf.Name + " value")
		case f.Kind() == reflect.Pointer && f.Type().Elem().Kind() == reflect.String:
			s := sf.Name + " set"
			f.Set(reflect.ValueOf(&s))
		case f.Kind() == reflect.Float64:
			f.SetFloat(float64(i) + 0.25)
		case f.Kind() == reflect.Int, f.Kind() == reflect.Int64:
			f.SetInt(int64(i) + 1)
		case f.Kind() == reflect.Bool:
			f.SetBool(true)
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
			f.Set(reflect.MakeSlice(f.Type(), 2, 2))
			f.Index(0).SetString(AccommodationTypes[0])
			f.Index(1).SetString("other")
		case f.Kind() == reflect.Map && f.Type().Key().Kind() == reflect.String && f.Type().Elem().Kind() == reflect.String:
			f.Set(reflect.MakeMap(f.Type()))
			f.SetMapIndex(reflect.ValueOf(ComputeStages).Convert(f.Type().Key()), reflect.ValueOf(StatusDone).Convert(f.Type().Elem()))
			f.SetMapIndex(reflect.ValueOf("mine").Convert(f.Type().Key()), reflect.ValueOf(fmt.Sprint(i)).Convert(f.Type().Elem()))
		case sf.Name == "Alerts":
		default:
			t.Fatalf("Trip.%s (%s): the kept form does not know this kind of field", sf.Name, sf.Type)
		}
	}
}

// Whatever bytes are held, reading them fails or gives a trip that is
// written and read again the same.
func FuzzKeptTrip(f *testing.F) {
	title := "Alps"
	f.Add(encodeTrip(&Trip{ID: "t1", Title: &title, ComputationStatus: StatusMap{ComputeStages: StatusDone}}))
	f.Add([]byte{0})
	f.Fuzz(func(t *testing.T, b []byte) {
		tr, err := decodeTrip(b)
		if err != nil {
			return
		}
		again, err := decodeTrip(encodeTrip(tr))
		require.NoError(t, err)
		// The maps compared apart, the rest by its encoding (a NaN is not
		// equal to itself, and a map's order is not kept).
		require.Equal(t, tr.ComputationStatus, again.ComputationStatus)
		require.Equal(t, tr.Coverage, again.Coverage)
		tr.ComputationStatus, tr.Coverage, again.ComputationStatus, again.Coverage = nil, nil, nil, nil
		require.Equal(t, encodeTrip(tr), encodeTrip(again))
	})
}
