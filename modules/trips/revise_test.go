package trips

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/storage/storagetest"
)

// TestReviseStagesStoresTheNewDays: whatever an edit did to the days (a
// label, an end moved with its geometry, a day gone, one added, the order
// changed, nothing), the days read back are the new ones, the trip's
// status follows their count and its revision moves on.
func TestReviseStagesStoresTheNewDays(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		edit   func(days []Stage) []Stage
		status string
	}{
		{"a label", func(d []Stage) []Stage {
			l := "By the lake"
			d[2].Label = &l
			return d
		}, StatusReady},
		{"an end moved", func(d []Stage) []Stage {
			d[0].EndPoint = Point{Lat: 45.3, Lon: 6.5}
			d[0].Geometry = append(d[0].Geometry, geo.Point{Lat: 45.3, Lon: 6.5, Ele: 450})
			d[0].Distance += 12
			d[0].Accommodations = nil
			return d
		}, StatusReady},
		{"a day gone", func(d []Stage) []Stage { return append(d[:1], d[2]) }, StatusReady},
		{"a day added", func(d []Stage) []Stage {
			return append(d, Stage{ID: "added", Distance: 30, StartPoint: d[2].EndPoint, EndPoint: Point{Lat: 45, Lon: 5.9},
				Geometry: Points{geo.Point(d[2].EndPoint), {Lat: 45, Lon: 5.9}}})
		}, StatusReady},
		{"the order changed", func(d []Stage) []Stage { return []Stage{d[2], d[0], d[1]} }, StatusReady},
		{"down to one day", func(d []Stage) []Stage { return d[1:2] }, StatusDraft},
		{"nothing", func(d []Stage) []Stage { return d }, StatusReady},
	}
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s := NewStore(db)
		user := readFixture(t, db, "reviser@example.com")
		for i, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				tr := newTrip(user, "0190a6f0-0000-7000-8000-00000000010"+string(rune('0'+i)), "Jura", time.Now().UTC(), nil, nil)
				require.NoError(t, s.Insert(ctx, tr))
				require.NoError(t, s.ReplaceStages(ctx, tr.ID, fullStages(tr.ID)))
				prev, err := s.Stages(ctx, tr.ID)
				require.NoError(t, err)
				before, err := s.Get(ctx, tr.ID)
				require.NoError(t, err)

				next := tt.edit(cloneStages(prev))
				for k := range next {
					next[k].Position, next[k].TripID = k, tr.ID
				}
				require.NoError(t, s.ReviseStages(ctx, tr.ID, prev, next))

				got, err := s.Stages(ctx, tr.ID)
				require.NoError(t, err)
				require.Equal(t, normalized(next), normalized(got))
				after, err := s.Get(ctx, tr.ID)
				require.NoError(t, err)
				require.Equal(t, tt.status, after.Status)
				require.Greater(t, after.Revision, before.Revision)
			})
		}
	})
}

// cloneStages copies days deep enough for an edit: the slices a test
// changes are the copy's own.
func cloneStages(days []Stage) []Stage {
	out := slices.Clone(days)
	for i := range out {
		out[i].Geometry = slices.Clone(out[i].Geometry)
	}
	return out
}

// normalized is days as the store reads them back: an empty list and none
// read alike.
func normalized(days []Stage) []Stage {
	out := cloneStages(days)
	for i := range out {
		if out[i].Alerts == nil {
			out[i].Alerts = AlertGroups{}
		}
	}
	return out
}

// TestChangedColumnsNamesEachField: a change to any stored field of a day
// names its column alone, so a field added to Stage is written by an edit
// that changes it.
func TestChangedColumnsNamesEachField(t *testing.T) {
	t.Parallel()
	base := fullStages("trip")[0]
	typ := reflect.TypeFor[Stage]()
	seen := 0
	for i := range typ.NumField() {
		name, ok := stageColumns[i]
		if !ok {
			continue
		}
		seen++
		changed := base
		changed.Geometry = slices.Clone(base.Geometry)
		differ(reflect.ValueOf(&changed).Elem().Field(i))
		require.Equal(t, []string{name}, changedColumns(&base, &changed), "field %s", typ.Field(i).Name)
	}
	require.Empty(t, changedColumns(&base, &base))
	require.Equal(t, typ.NumField()-2, seen, "every field but the model and the key is a column")
}

// differ sets v to a value other than its own: zero when it is set, else
// a value of its kind that is not zero.
func differ(v reflect.Value) {
	if !v.IsZero() {
		v.SetZero()
		return
	}
	switch v.Kind() {
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
	case reflect.Slice:
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Float64:
		v.SetFloat(1)
	case reflect.Int, reflect.Int64:
		v.SetInt(1)
	case reflect.String:
		v.SetString("x")
	case reflect.Struct:
		differ(v.Field(0))
	default:
		panic("differ: a field of kind " + v.Kind().String())
	}
}
