package registry_test

import (
	"encoding/json"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
)

// keptAnswer is an output that carries its JSON, or none.
type keptAnswer struct {
	Name string `json:"name"`
	kept []byte
}

func (k keptAnswer) EncodedJSON() []byte { return k.kept }

// An output's own JSON is what both faces send; one without is marshalled.
func TestEncodeSendsTheOutputsOwnJSON(t *testing.T) {
	t.Parallel()
	kept := []byte(`{"name":"kept"}`)
	tests := []struct {
		name string
		out  any
		want string
	}{
		{"its own JSON", keptAnswer{Name: "read", kept: kept}, `{"name":"kept"}`},
		{"none kept", keptAnswer{Name: "read"}, `{"name":"read"}`},
		{"not Encoded", struct {
			N int `json:"n"`
		}{1}, `{"n":1}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := registry.Encode(tt.out)
			require.NoError(t, err)
			require.Equal(t, tt.want, string(got))
		})
	}
	got, err := registry.Encode(keptAnswer{kept: kept})
	require.NoError(t, err)
	require.Same(t, &kept[0], &got[0], "the kept bytes are sent, not a copy")
}

// tricky holds what encoders most often disagree on, of the values both
// encoders write (registry.FastEncodable): characters escaped for HTML and
// JavaScript, invalid UTF-8, floats at the edges of their formats, times
// in zones, empty against absent, sorted map keys, and a promoted field
// beside one of the same name.
type tricky struct {
	Inner
	Name    string             `json:"name"`
	Same    int                `json:"same,omitempty"`
	Floats  []float64          `json:"floats"`
	Small   float32            `json:"small"`
	At      time.Time          `json:"at"`
	Zoned   *time.Time         `json:"zoned,omitempty"`
	Empty   []string           `json:"empty"`
	Absent  []string           `json:"absent,omitempty"`
	Keys    map[string]int     `json:"keys"`
	IntKeys map[int]string     `json:"intKeys"`
	Bytes   []byte             `json:"bytes"`
	Nested  map[string][]Inner `json:"nested,omitempty"`
	Skipped string             `json:"-"`
	hidden  string
}

// Inner is embedded in tricky, one of its names colliding.
type Inner struct {
	Same  int    `json:"same"`
	Label string `json:"label,omitempty"`
}

// Each of these holds a value on which segmentio/encoding's encoder
// writes otherwise than encoding/json, or refuses what it takes.
type (
	zeroed struct {
		At    time.Time `json:"at,omitzero"`
		Count int       `json:"count,omitzero"`
	}
	quoted struct {
		Name *string `json:"name,string"`
		N    int64   `json:"n,string"`
	}
	lasting struct {
		For time.Duration `json:"for"`
	}
	spaced struct {
		Raw json.RawMessage `json:"raw"`
		Own ownJSON         `json:"own"`
	}
	holding struct {
		Any any `json:"any"`
	}
	texted struct {
		Keys map[textKey]int `json:"keys"`
		Text textKey         `json:"text"`
	}
)

// twice is a struct of two fields of one name (made at run time: vet
// refuses the tag written twice), which encoding/json both leaves out.
func twice() any {
	t := reflect.StructOf([]reflect.StructField{
		{Name: "X", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
		{Name: "Y", Type: reflect.TypeFor[int](), Tag: `json:"x"`},
	})
	v := reflect.New(t).Elem()
	v.Field(0).SetInt(1)
	v.Field(1).SetInt(2)
	return v.Interface()
}

// ownJSON answers JSON with spaces, which encoding/json compacts.
type ownJSON struct{}

func (ownJSON) MarshalJSON() ([]byte, error) { return []byte(` { "a" : "<" } `), nil }

// textKey is a map key that writes itself as text.
type textKey struct{ s string }

func (k textKey) MarshalText() ([]byte, error) { return []byte("<" + k.s), nil }

func TestMarshalGivesWhatEncodingJSONGives(t *testing.T) {
	t.Parallel()
	zone := time.FixedZone("", -(3*3600 + 30*60))
	zoned := time.Date(2031, 5, 1, 8, 0, 0, 123456789, zone)
	full := tricky{
		Inner:   Inner{Same: 7, Label: "promoted"},
		Name:    "<b>Tom & Jerry</b> \u2028\u2029 \x00 \xff bad utf-8 é ☃ \"quoted\" \\",
		Floats:  []float64{0, -0.0000001, 1e-7, 123456789, 1e20, 1e21, 1.5e300, 0.1 + 0.2, -83.45678},
		Small:   3.4028235e38,
		At:      time.Date(2026, 12, 7, 10, 33, 0, 0, time.UTC),
		Zoned:   &zoned,
		Empty:   []string{},
		Keys:    map[string]int{"z": 1, "a": 2, "<": 3, "é": 4},
		IntKeys: map[int]string{10: "ten", -1: "minus one", 2: "two"},
		Bytes:   []byte{0, 1, 2, 250},
		Nested:  map[string][]Inner{"b": {{Same: 1}}, "a": nil},
		Skipped: "never",
		hidden:  "never",
	}
	require.True(t, registry.FastEncodable(reflect.TypeFor[tricky]()), "tricky is written by the faster encoder")
	name := "<x>"
	tests := []struct {
		name string
		v    any
		fast bool // written by the faster encoder
	}{
		{"every tricky field", full, true},
		{"a pointer to it", &full, true},
		{"its zero", tricky{}, true},
		{"a nil pointer", (*tricky)(nil), true},
		{"a slice of them", []tricky{full, {}}, true},
		{"a bare string", "<&>", true},
		{"nil", nil, false},
		{"omitzero", zeroed{}, false},
		{"omitzero set", zeroed{At: zoned, Count: 2}, false},
		{"the string option", quoted{N: -42}, false},
		{"the string option set", quoted{Name: &name, N: 1}, false},
		{"a duration", lasting{For: time.Second}, false},
		{"JSON of its own with spaces", spaced{Raw: json.RawMessage(` {"b" : 1} `)}, false},
		{"an interface holding omitzero", holding{Any: zeroed{}}, false},
		{"an interface holding a map", holding{Any: map[string]any{"b": 1, "a": []any{"<", nil, 2.5}}}, false},
		{"two fields of one name", twice(), false},
		{"text of its own", texted{Keys: map[textKey]int{{"b"}: 1, {"a"}: 2}, Text: textKey{"t"}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.v != nil {
				require.Equal(t, tt.fast, registry.FastEncodable(reflect.TypeOf(tt.v)))
			}
			want, err := json.Marshal(tt.v)
			require.NoError(t, err)
			got, err := registry.Marshal(tt.v)
			require.NoError(t, err)
			require.Equal(t, string(want), string(got))
		})
	}
}

// A value encoding/json refuses is refused.
func TestMarshalRefusesWhatEncodingJSONRefuses(t *testing.T) {
	t.Parallel()
	for _, v := range []any{
		struct{ F float64 }{math.NaN()},
		struct{ F []float64 }{[]float64{math.Inf(1)}},
		struct{ C chan int }{make(chan int)},
	} {
		_, want := json.Marshal(v)
		require.Error(t, want)
		_, err := registry.Marshal(v)
		require.Error(t, err, "%T", v)
	}
}
