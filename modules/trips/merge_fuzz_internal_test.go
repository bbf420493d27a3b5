package trips

import (
	"context"
	"encoding/json"
	"reflect"
	"slices"
	"testing"
	"time"

	"cairn.dev/cairn/operations"
	"cairn.dev/cairn/registry"
)

// FuzzMergeUpdate sends any JSON object as the settings patch of a trip,
// through the schema check both faces run and then the merge: the merge
// never panics nor touches the stored trip, changes only what was sent, and
// the same patch applied to its own result changes nothing more (a retried
// patch is the patch). A name the schema does not publish is always refused
// by name before any merge.
func FuzzMergeUpdate(f *testing.F) {
	for _, seed := range []string{
		`{"averageSpeed":20}`, `{"title":null}`, `{"title":"Alps","startDate":"2027-06-01","endDate":"2027-06-04"}`,
		`{"zzUnpublished":1}`, `{"averageSpeed":null}`, `{"enabledAccommodationTypes":["hotel","hostel"]}`,
		`{"sourceUrl":"https://www.strava.com/routes/1","ebikeMode":true,"departureHour":6}`, `{"Title":"x"}`, `{}`,
	} {
		f.Add([]byte(seed))
	}
	schemas := operations.NewSchemas(operations.NewSchemaRegistry())
	op := &registry.Operation{ID: "trips.update_settings", InputType: reflect.TypeFor[UpdateInput]()}
	published := map[string]bool{}
	for name := range schemas.Resolved(op.InputType).Properties {
		published[name] = true
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var args map[string]json.RawMessage
		if json.Unmarshal(body, &args) != nil || args == nil {
			return // not an object: the face refuses it as unreadable
		}
		vs := schemas.CheckArguments(op, args)
		for name := range args {
			if !published[name] && !slices.ContainsFunc(vs, func(v registry.Violation) bool { return v.Field == registry.Clip(name) }) {
				t.Fatalf("%q is not published, yet the schema check did not name it: %v", name, vs)
			}
		}
		if len(vs) > 0 {
			return
		}
		raw, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		in := new(UpdateInput)
		if json.Unmarshal(raw, in) != nil {
			return // the arguments guard refuses it
		}
		stored := storedTrip()
		before := stored.clone()
		tr := &Trips{}
		r, err := tr.mergeUpdate(context.Background(), &registry.Call{Args: args, Previous: stored}, in)
		if err != nil {
			t.Fatal(err)
		}
		merged := r.(*Trip)
		if !reflect.DeepEqual(before, stored) {
			t.Fatalf("the merge changed the stored trip")
		}
		for _, name := range changes(stored, merged) {
			if _, sent := args[name]; !sent {
				t.Fatalf("%s changed, but was not sent", name)
			}
		}
		again, err := tr.mergeUpdate(context.Background(), &registry.Call{Args: args, Previous: merged}, in)
		if err != nil {
			t.Fatal(err)
		}
		if d := changes(merged, again.(*Trip)); len(d) > 0 {
			t.Fatalf("the patch applied to its own result changed %v again", d)
		}
	})
}

// storedTrip is a trip as the store reads it, every setting set.
func storedTrip() *Trip {
	title, start, end, src := "Stored", "2027-05-01", "2027-05-05", "strava_route"
	return &Trip{
		ID: "t", UserID: "u", Title: &title, SourceURL: "https://www.strava.com/routes/9", SourceType: &src,
		StartDate: &start, EndDate: &end, FatigueFactor: DefaultFatigueFactor, ElevationPenalty: DefaultElevationPenalty,
		MaxDistancePerDay: DefaultMaxDistancePerDay, AverageSpeed: DefaultAverageSpeed, DepartureHour: DefaultDepartureHour,
		EnabledAccommodationTypes: TypeList(AccommodationTypes), Locale: "en", Status: StatusReady,
		ComputationStatus: StatusMap{"terrain": "done"}, Version: 3, Generation: 2,
		CreatedAt: time.Unix(1_800_000_000, 0).UTC(), UpdatedAt: time.Unix(1_800_000_000, 0).UTC(),
	}
}
