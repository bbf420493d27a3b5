package tools

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
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
		{"over budget, lists of objects are left to the structured content",
			`{"id":"t1","days":[{"id":"d1"},{"id":"d2"}],"version":2}`, 10,
			"id: t1\ndays: 2 rows, in structuredContent\nversion: 2"},
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
