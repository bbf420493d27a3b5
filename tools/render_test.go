package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
)

func TestRender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		give   string
		budget int
		want   string
	}{
		{"scalars in order", `{"id":"t1","version":3,"partial":false,"note":null}`, TextBudget,
			"id: t1\nversion: 3\npartial: false\nnote: null"},
		{"strings that would read as something else are quoted", `{"a":"","b":"12","c":"x|y","d":"true"}`, TextBudget,
			`a: ""` + "\n" + `b: "12"` + "\n" + `c: "x|y"` + "\n" + `d: "true"`},
		{"nested object indented", `{"settings":{"title":"Alps","speed":15}}`, TextBudget,
			"settings:\n  title: Alps\n  speed: 15"},
		{"list of scalars", `{"types":["hotel","hostel"],"none":[]}`, TextBudget,
			"types: [hotel, hostel]\nnone: []"},
		{"list of objects as a table, absent and empty kept apart",
			`{"days":[{"id":"d1","km":80,"end":{"lat":1,"lon":2},"alerts":[]},{"id":"d2","km":70.5,"alerts":[{"code":"gap","type":"critical"}]}]}`,
			TextBudget,
			"days: 2 rows\n  id | km | end.lat | end.lon | alerts\n  d1 | 80 | 1 | 2 | []\n  d2 | 70.5 |  |  | [{code=gap type=critical}]"},
		{"a row without the last columns of the row before it leaves them empty",
			`{"days":[{"id":"d1","km":80,"rest":true},{"id":"d2"}]}`, TextBudget,
			"days: 2 rows\n  id | km | rest\n  d1 | 80 | true\n  d2"},
		{"over budget, lists of objects are left to the structured content",
			`{"id":"t1","days":[{"id":"d1"},{"id":"d2"}],"version":2}`, 10,
			"id: t1\ndays: 2 rows, in structuredContent\nversion: 2"},
		{"over budget, objects are left to the structured content too, scalars and lists of scalars kept",
			`{"id":"t1","settings":{"title":"Alps","speed":15},"none":{},"types":["hotel"],"version":2}`, 10,
			"id: t1\nsettings: 2 fields, in structuredContent\nnone: {}\ntypes: [hotel]\nversion: 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := render([]byte(tt.give), tt.budget)
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
			require.False(t, strings.Contains(got, `{"`), "no JSON repeated")
		})
	}
}

func TestDefName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give []string
		want string
	}{
		{[]string{"endPoint", "startPoint"}, "point"},
		{[]string{"from", "to"}, "from"},
		{[]string{"homeAddress", "workAddress"}, "address"},
	}
	for _, tt := range tests {
		require.Equal(t, tt.want, defName(tt.give), tt.give)
	}
}

// TestSlimKeepsWhatAModelNeeds: types, enums, nullability, requirements and
// descriptions stay; number formats, bounds, lengths, a spelled-out date
// format and nested additionalProperties go; the top level still refuses
// unknown arguments.
func TestSlimKeepsWhatAModelNeeds(t *testing.T) {
	t.Parallel()
	give := map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"speed"},
		"properties": map[string]any{
			"speed": map[string]any{"type": "number", "format": "double", "minimum": 5, "maximum": 50, "description": "Speed (5 to 50)."},
			"day":   map[string]any{"type": []any{"string", "null"}, "format": "date", "description": "A day (YYYY-MM-DD)."},
			"site":  map[string]any{"type": "string", "format": "uri", "maxLength": 2048, "description": "An address."},
			"kind":  map[string]any{"type": "string", "enum": []any{"a", "b"}, "description": "Which."},
			"at": map[string]any{"type": "object", "additionalProperties": false, "required": []any{"lat"},
				"properties": map[string]any{"lat": map[string]any{"type": "number", "minimum": -90, "description": "Latitude."}}},
		},
	}
	want := map[string]any{
		"type": "object", "additionalProperties": false, "required": []any{"speed"},
		"properties": map[string]any{
			"speed": map[string]any{"type": "number", "description": "Speed (5 to 50)."},
			"day":   map[string]any{"type": []any{"string", "null"}, "description": "A day (YYYY-MM-DD)."},
			"site":  map[string]any{"type": "string", "format": "uri", "description": "An address."},
			"kind":  map[string]any{"type": "string", "enum": []any{"a", "b"}, "description": "Which."},
			"at": map[string]any{"type": "object", "required": []any{"lat"},
				"properties": map[string]any{"lat": map[string]any{"type": "number", "description": "Latitude."}}},
		},
	}
	require.Equal(t, want, slim(give))
	require.Contains(t, give["properties"].(map[string]any)["speed"], "minimum", "the source schema is not changed")
}

// The text read from a Go value is the text read from its JSON, for every
// shape of output encoding/json knows.
func TestRenderGoMatchesTheJSON(t *testing.T) {
	t.Parallel()
	type point struct {
		Lat float64 `json:"lat"`
		Lon float64 `json:"lon"`
	}
	type Base struct {
		ID      string `json:"id"`
		Version int64  `json:"version"`
	}
	type hidden struct{ Inner string }
	type day struct {
		ID     string    `json:"id"`
		Km     float64   `json:"km"`
		End    *point    `json:"end,omitempty"`
		Alerts *[]string `json:"alerts,omitempty"`
		Label  *string   `json:"label"`
		Rest   bool      `json:"rest,omitempty"`
	}
	type output struct {
		Base
		*hidden
		Title    string `json:"title"`
		Skipped  string `json:"-"`
		Untagged int
		private  int
		When     time.Time         `json:"when"`
		Zero     time.Time         `json:"zero,omitzero"`
		Local    time.Time         `json:"local"`
		At       *time.Time        `json:"at"`
		Days     []day             `json:"days"`
		Empty    []day             `json:"empty"`
		Nil      []day             `json:"nil"`
		Status   map[string]string `json:"status"`
		Raw      json.RawMessage   `json:"raw"`
		Number   json.Number       `json:"number"`
		Small    float64           `json:"small"`
		Large    float64           `json:"large"`
		Single   float32           `json:"single"`
		Bytes    []byte            `json:"bytes"`
		Array    [2]uint8          `json:"array"`
		Any      any               `json:"any"`
		Odd      string            `json:"odd"`
		Quoted   string            `json:"quoted"`
	}
	label := "Over the pass"
	alerts := []string{"steep", "gap"}
	full := output{
		Base: Base{ID: "t1", Version: 3}, hidden: &hidden{Inner: "in"}, Title: "Alps", Skipped: "no",
		Untagged: 7, private: 1, When: time.Date(2026, 5, 1, 8, 0, 0, 0, time.UTC),
		Local: time.Date(2026, 5, 1, 8, 0, 0, 120, time.FixedZone("", 2*3600)), At: &time.Time{},
		Days: []day{{ID: "d1", Km: 80.5, End: &point{43.6, 1.44}, Alerts: &alerts, Label: &label},
			{ID: "d2", Km: 1e21, Rest: true}, {ID: "d3", Km: 0.0000001}},
		Empty: []day{}, Status: map[string]string{"stages": "done", "alerts": "running", "b\xffad": "x"},
		Raw: json.RawMessage(`{"z":1,"a":[true,null]}`), Number: "12.50", Small: 1e-7, Large: 123456789,
		Single: 3.14, Bytes: []byte("hi"), Array: [2]uint8{1, 2}, Any: map[string]any{"k": []any{1, "two"}},
		Odd: "bad \xff byte", Quoted: "12",
	}
	// Lists and objects in every place a rendering reads them, all of them
	// followed (none read from the JSON).
	type shapes struct {
		Title  string           `json:"title"`
		Days   []day            `json:"days"`
		Grid   [][]int          `json:"grid"`
		Mixed  []any            `json:"mixed"`
		Ptrs   []*point         `json:"ptrs"`
		Nested map[string][]day `json:"nested"`
		Listed *[]day           `json:"listed"`
		Inner  struct {
			Days []day `json:"days"`
		} `json:"inner"`
	}
	shaped := shapes{Title: "shapes", Days: full.Days, Grid: [][]int{{1, 2}, {3}}, Mixed: []any{point{1, 2}, 3},
		Ptrs: []*point{{5, 6}, nil}, Nested: map[string][]day{"b": {{ID: "n1"}}, "a": {}}}
	shaped.Inner.Days = full.Days[:1]
	shaped.Listed = &shaped.Inner.Days
	_, ok := treeOf(reflect.ValueOf(shaped), false)
	require.True(t, ok, "every part of shapes is followed")
	type collide struct {
		Base
		ID string `json:"id"`
	}
	type stringOpt struct {
		N int `json:"n,string"`
	}
	// Colliding names, as encoding/json settles them: the shallowest field,
	// then the one tagged, else none. (Untagged fields collide by their Go
	// names, which vet lets a test spell.)
	type Tagged struct {
		X string `json:"ID"`
		Y string `json:"Label"`
	}
	type Untagged struct {
		ID    string
		Label string
	}
	type One struct{ Name string }
	type Two struct{ Name string }
	type tie struct {
		Tagged
		Untagged
		Kept string `json:"kept"`
	}
	type dropped struct {
		One
		Two
		Kept string `json:"kept"`
	}
	type hiddenTie struct {
		One
		Two
		Name string
	}
	type digestLike struct {
		Base
		Version int `json:"version,omitempty"`
		Date    string
	}
	followed := []any{
		collide{Base: Base{ID: "inner"}, ID: "outer"},
		tie{Tagged: Tagged{X: "tagged", Y: "a"}, Untagged: Untagged{ID: "untagged", Label: "b"}, Kept: "k"},
		dropped{One: One{Name: "a"}, Two: Two{Name: "b"}, Kept: "k"},
		hiddenTie{One: One{Name: "a"}, Two: Two{Name: "b"}, Name: "outer"},
		[]digestLike{{Base: Base{ID: "d1", Version: 4}, Date: "2031-05-01"}},
	}
	for i, v := range followed {
		typ := reflect.TypeOf(v)
		if typ.Kind() == reflect.Slice {
			typ = typ.Elem()
		}
		_, ok := fieldsOf(typ)
		require.True(t, ok, "value %d: its colliding names are followed, not read from the JSON", i)
	}
	// What an abridged answer's text is rendered from, decoded from its
	// JSON (renderEncoded): a type that decodes back to its JSON.
	type decodable struct {
		Base
		Title  string            `json:"title"`
		When   time.Time         `json:"when"`
		Local  time.Time         `json:"local"`
		Days   []day             `json:"days"`
		Nil    []day             `json:"nil"`
		Grid   [][]int           `json:"grid"`
		Ptrs   []*point          `json:"ptrs"`
		Nested map[string][]day  `json:"nested"`
		Listed *[]day            `json:"listed"`
		Status map[string]string `json:"status"`
		Odd    string            `json:"odd"`
		Quoted string            `json:"quoted"`
		Bytes  []byte            `json:"bytes"`
	}
	decoded := decodable{Base: full.Base, Title: "Alps", When: full.When, Local: full.Local, Days: full.Days, Grid: shaped.Grid,
		Ptrs: shaped.Ptrs, Nested: shaped.Nested, Listed: shaped.Listed, Status: full.Status, Odd: full.Odd, Quoted: full.Quoted,
		Bytes: full.Bytes}
	require.True(t, registry.FastEncodable(reflect.TypeOf(decoded)), "decodable is decoded, not rendered from its JSON")
	values := append([]any{
		full, &full, output{}, shaped, []any{shaped, shaped}, []day{{ID: "x"}}, map[string]int{"b": 2, "a": 1}, "plain", 42, nil,
		stringOpt{N: 5}, decoded, &decoded,
	}, followed...)
	for i, v := range values {
		raw, err := json.Marshal(v)
		require.NoError(t, err)
		// Around the full rendering's length too: a rendering stops once
		// past its budget, and one that fits exactly is given in full.
		whole, err := render(raw, math.MaxInt)
		require.NoError(t, err)
		for _, budget := range []int{TextBudget, 40, len(whole) - 1, len(whole), len(whole) + 1} {
			want, err := render(raw, budget)
			require.NoError(t, err)
			got, err := renderGo(v, raw, budget)
			require.NoError(t, err)
			require.Equal(t, want, got, "value %d, budget %d", i, budget)
			var abridged any // a value of v's type holding nothing
			if v != nil {
				abridged = reflect.Zero(reflect.TypeOf(v)).Interface()
			}
			got, err = renderEncoded(abridged, raw, budget)
			require.NoError(t, err)
			require.Equal(t, want, got, "value %d decoded, budget %d", i, budget)
		}
	}
}

func BenchmarkRender(b *testing.B) {
	type day struct {
		ID       string   `json:"id"`
		Day      int      `json:"dayNumber"`
		Distance float64  `json:"distance"`
		Ascent   float64  `json:"ascent"`
		Label    *string  `json:"label"`
		Sleep    *string  `json:"sleep,omitempty"`
		Alerts   []string `json:"alerts,omitempty"`
	}
	type settings struct {
		MaxDistancePerDay float64 `json:"maxDistancePerDay"`
		AverageSpeed      float64 `json:"averageSpeed"`
		EbikeMode         bool    `json:"ebikeMode"`
	}
	type detail struct {
		ID       string            `json:"id"`
		Title    string            `json:"title"`
		Status   map[string]string `json:"computationStatus"`
		Version  int64             `json:"version"`
		Days     []day             `json:"days"`
		Updated  time.Time         `json:"updatedAt"`
		Partial  bool              `json:"partial"`
		Settings settings          `json:"settings"`
	}
	sleep := "Camping du Lac"
	v := detail{ID: "0190a6f0-0000-7000-8000-000000000001", Title: "Alps", Version: 4, Updated: time.Now(),
		Status:   map[string]string{"stages": "done", "terrain": "done", "weather": "done", "accommodations": "done"},
		Settings: settings{MaxDistancePerDay: 80, AverageSpeed: 15},
		Days: []day{{ID: "a", Day: 1, Distance: 61.2, Ascent: 812, Sleep: &sleep}, {ID: "b", Day: 2, Distance: 58.9},
			{ID: "c", Day: 3, Distance: 60.1, Alerts: []string{"steep_climb"}}}}
	// Sixteen days, as get_trip gives them, render past TextBudget: the
	// text is the summary.
	long := v
	long.Days = nil
	label := "Saint-Étienne-de-Tinée"
	for i := range 16 {
		long.Days = append(long.Days, day{ID: fmt.Sprintf("0190a6f0-0000-7000-8000-%012d", i), Day: i + 1,
			Distance: 60.5 + float64(i), Ascent: 812, Label: &label, Sleep: &sleep, Alerts: []string{"steep_climb", "water_gap"}})
	}
	longJSON, err := json.Marshal(long)
	require.NoError(b, err)
	if whole, _ := render(longJSON, math.MaxInt); len(whole) <= TextBudget {
		b.Fatalf("the long result renders in %d bytes, within the budget", len(whole))
	}
	for _, c := range []struct {
		name string
		v    detail
	}{{"days=3", v}, {"days=16", long}} {
		raw, _ := json.Marshal(c.v)
		b.Run(c.name+"/from=json", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = render(raw, TextBudget)
			}
		})
		b.Run(c.name+"/from=value", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = renderGo(c.v, raw, TextBudget)
			}
		})
		b.Run(c.name+"/from=abridged", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_, _ = renderEncoded(detail{}, raw, TextBudget)
			}
		})
	}
}

// jsonNumber tells a number as encoding/json reads one.
func TestJSONNumberAsTheDecoderReadsIt(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"0", "-0", "7", "-12", "01", "-01", "1.", "1.5", ".5", "1e5", "1E+5", "1e-05", "1e", "1e+",
		"-", "--1", "1.5e3x", "2031-05-01", "0190a6f0-0000-7000-8000-00000000000b", "12abc", "0x10", "1_000", "1 ", " -2\n", "\t"} {
		var n json.Number
		want := json.Unmarshal([]byte(s), &n) == nil
		require.Equal(t, want, jsonNumber(s), "%q", s)
	}
}

// fuzzed is a result of the kinds a kept answer holds: embedded and nested
// objects, pointers, lists of objects, maps, times.
type fuzzed struct {
	fuzzedBase
	Title  *string           `json:"title,omitempty"`
	When   time.Time         `json:"when"`
	Days   []fuzzedDay       `json:"days,omitempty"`
	Status map[string]string `json:"status"`
	Tags   []string          `json:"tags"`
	Grid   [][]float64       `json:"grid"`
	Next   *fuzzedDay        `json:"next"`
}

type fuzzedBase struct {
	ID      string `json:"id"`
	Version int64  `json:"version"`
}

type fuzzedDay struct {
	ID     string      `json:"id"`
	Km     float64     `json:"km"`
	Label  *string     `json:"label,omitempty"`
	End    *[2]float64 `json:"end,omitempty"`
	Rest   bool        `json:"rest,omitempty"`
	Counts *struct {
		Warning int `json:"warning,omitempty"`
	} `json:"counts,omitempty"`
}

// Whatever value of a type that decodes back to its JSON, its text is the
// same rendered from the value, from the JSON decoded into its type (an
// abridged answer's), and from the JSON in order.
func FuzzRenderEncoded(f *testing.F) {
	if !registry.FastEncodable(reflect.TypeFor[fuzzed]()) {
		f.Fatal("fuzzed would be rendered from its JSON, not decoded")
	}
	f.Add([]byte(`{"id":"t1","version":3,"title":"Alps","when":"2031-05-01T08:00:00Z","days":[{"id":"d1","km":80.5,"label":"Col","end":[45.1,6.2]},{"id":"d2","km":1e21,"rest":true,"counts":{"warning":2}}],"status":{"stages":"done"},"tags":["a","12"],"grid":[[1,2],[]],"next":null}`))
	f.Add([]byte(`{"title":"","days":[],"status":{},"tags":null,"when":"2031-05-01T08:00:00.5+02:00"}`))
	f.Add([]byte(`{"id":"\u2028 \"quoted\"\n","days":[{"id":"","km":-0}]}`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		var v fuzzed
		if json.Unmarshal(doc, &v) != nil {
			return
		}
		raw, err := json.Marshal(v)
		if err != nil {
			return // a time json cannot write (a year past 9999)
		}
		for _, budget := range []int{TextBudget, 64} {
			want, err := render(raw, budget)
			require.NoError(t, err)
			fromValue, err := renderGo(v, raw, budget)
			require.NoError(t, err)
			require.Equal(t, want, fromValue, "from the value, budget %d", budget)
			decoded, err := renderEncoded(fuzzed{}, raw, budget)
			require.NoError(t, err)
			require.Equal(t, want, decoded, "from the JSON decoded, budget %d", budget)
		}
	})
}
