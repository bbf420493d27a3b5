package poi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/route/text"
)

// hostileTags are an accommodation's tags as a hostile extract or
// Overpass instance could hold them: huge values, control and bidi
// characters, line breaks, and a website that is a script.
func hostileTags() map[string]string {
	return map[string]string{
		"tourism":       " hotel ",
		"name":          "\u202E Hôtel\t\tdu\u0085Col \u007f" + strings.Repeat("x", 100_000),
		"description":   strings.Repeat("Vue sur les lacs.\n", 1000),
		"opening_hours": "Apr-Oct\u0000" + strings.Repeat(" ", 10_000) + strings.Repeat("; Mo 08:00-12:00", 100),
		"phone":         "+33\u00a04\u00a092",
		"website":       "javascript:alert(document.cookie)",
		"addr:street":   "Rue\r\nHaute" + strings.Repeat("é", 1000),
		"addr:city":     "Briançon",
	}
}

// requireBounded checks what fromOSM keeps of hostileTags, whichever
// entry point it came through.
func requireBounded(t *testing.T, name, category string, tags poi.Tags) {
	t.Helper()
	assert.Equal(t, "hotel", category)
	assert.Equal(t, text.MaxName, utf8.RuneCountInString(name))
	assert.True(t, strings.HasPrefix(name, "Hôtel du Col xxx"), "%.40q", name)
	assert.Equal(t, text.MaxDescription, utf8.RuneCountInString(tags[poi.TagDescription]))
	assert.NotContains(t, tags[poi.TagDescription], "\n")
	assert.Equal(t, text.MaxValue, utf8.RuneCountInString(tags[poi.TagOpeningHours]))
	assert.True(t, strings.HasPrefix(tags[poi.TagOpeningHours], "Apr-Oct ; Mo 08:00-12:00"), "%.40q", tags[poi.TagOpeningHours])
	assert.Equal(t, "+33 4 92", tags[poi.TagPhone])
	assert.NotContains(t, tags, poi.TagWebsite, "a script is no website")
	assert.Equal(t, text.MaxAddress, utf8.RuneCountInString(tags[poi.TagAddress]))
	assert.True(t, strings.HasPrefix(tags[poi.TagAddress], "Rue Haute"), "%.40q", tags[poi.TagAddress])
	for k, v := range tags {
		assert.Equal(t, text.Clean(v, text.MaxURL), v, "tag %s does not follow the text rule", k)
	}
}

func TestImportBoundsAndCleansText(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?><osm version="0.6"><node id="7" lat="45.05" lon="6.05">`)
	for k, v := range hostileTags() {
		b.WriteString(`<tag k="` + k + `" v="`)
		b.WriteString(xmlAttr(v))
		b.WriteString(`"/>`)
	}
	b.WriteString(`</node></osm>`)
	mem := &memory{}

	_, err := poi.Import(context.Background(), mem, strings.NewReader(b.String()), poi.FormatXML)

	require.NoError(t, err)
	got, ok := mem.byID()["osm:node:7"]
	require.True(t, ok)
	requireBounded(t, got.Name, got.Category, got.Tags)
}

func TestOverpassBoundsAndCleansText(t *testing.T) {
	t.Parallel()
	answer, err := json.Marshal(map[string]any{
		"remark": "runtime error: " + strings.Repeat("\x1b[31m", 100_000),
		"elements": []map[string]any{
			{"type": "node", "id": 7, "lat": 45.001, "lon": 6.001, "tags": hostileTags()},
		},
	})
	require.NoError(t, err)
	ok, err := json.Marshal(map[string]any{
		"elements": []map[string]any{{"type": "node", "id": 7, "lat": 45.001, "lon": 6.001, "tags": hostileTags()}},
	})
	require.NoError(t, err)

	got, err := poi.NewOverpass((&fakeOverpass{}).server(t, http.StatusOK, string(ok)).URL).
		Candidates(context.Background(), geo.Point{Lat: 45, Lon: 6}, 5, nil, nil)
	require.NoError(t, err)
	require.Len(t, got, 1)
	a := got[0]
	requireBounded(t, a.Name, a.Type, poi.Tags{
		poi.TagDescription: a.Description, poi.TagOpeningHours: a.OpeningHours, poi.TagPhone: a.Phone, poi.TagAddress: a.Address,
	})
	assert.Empty(t, a.URL)

	_, err = poi.NewOverpass((&fakeOverpass{}).server(t, http.StatusOK, string(answer)).URL).
		Candidates(context.Background(), geo.Point{Lat: 45, Lon: 6}, 5, nil, nil)
	var upstream *poi.UpstreamError
	require.ErrorAs(t, err, &upstream)
	assert.Equal(t, "runtime error: [31m[31m", upstream.Remark[:len("runtime error: [31m[31m")])
	assert.LessOrEqual(t, utf8.RuneCountInString(upstream.Remark), text.MaxMessage)
}

func TestOverpassKeepsWebLinks(t *testing.T) {
	t.Parallel()

	tests := []struct {
		give string
		want string // empty: dropped
	}{
		{give: "https://hotel-du-col.example/fr", want: "https://hotel-du-col.example/fr"},
		{give: "HTTP://hotel.example", want: "HTTP://hotel.example"},
		{give: "www.hotel.example", want: "www.hotel.example"},
		{give: "hotel.example:8080/x"}, // a browser reads the scheme "hotel.example"
		{give: " https://hotel.example ", want: "https://hotel.example"},
		{give: "javascript:alert(1)"},
		{give: "JavaScript:alert(1)"},
		{give: "data:text/html,<script>alert(1)</script>"},
		{give: "vbscript:msgbox"},
		{give: "file:///etc/passwd"},
		{give: "java\tscript:alert(1)"}, // a browser drops the tab
		{give: "https://a.example https://b.example"},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			body, err := json.Marshal(map[string]any{"elements": []map[string]any{
				{"type": "node", "id": 7, "lat": 45.001, "lon": 6.001, "tags": map[string]string{"tourism": "hotel", "website": tt.give}},
			}})
			require.NoError(t, err)

			got, err := poi.NewOverpass((&fakeOverpass{}).server(t, http.StatusOK, string(body)).URL).
				Candidates(context.Background(), geo.Point{Lat: 45, Lon: 6}, 5, nil, nil)

			require.NoError(t, err)
			require.Len(t, got, 1)
			assert.Equal(t, tt.want, got[0].URL)
		})
	}
}

// xmlAttr escapes s for a double-quoted XML attribute, writing white
// space as character references so that the parser keeps it as it is.
func xmlAttr(s string) string {
	return strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `"`, "&quot;",
		"\t", "&#9;", "\n", "&#10;", "\r", "&#13;", "\u0000", "").Replace(s)
}
