package gpx_test

import (
	"io"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/text"
)

// TestParseBoundsTheTitle reads a track name of 5,000,000 characters,
// streamed: the title keeps text.MaxTitle of them.
func TestParseBoundsTheTitle(t *testing.T) {
	t.Parallel()
	name := strings.Repeat("é", 5_000_000)
	r := io.MultiReader(
		strings.NewReader(`<gpx version="1.1" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>`),
		strings.NewReader(name),
		strings.NewReader(`</name><trkseg><trkpt lat="45" lon="6"/></trkseg></trk></gpx>`),
	)

	got, err := gpx.Parse(r)

	require.NoError(t, err)
	assert.Equal(t, text.MaxTitle, utf8.RuneCountInString(got.Title))
	assert.Equal(t, name[:2*text.MaxTitle], got.Title)
}

func TestParseCleansTheTitle(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give string // the <name> element's content, as written in the file
		want string
	}{
		{name: "white space collapsed", give: "\n  Tour\tdu   Mont\r\nBlanc  \n", want: "Tour du Mont Blanc"},
		{name: "character references to white space", give: "Tour&#x9;&#xA;du&#xD;Mont&#160;Blanc", want: "Tour du Mont Blanc"},
		{name: "DEL and C1 controls dropped", give: "Tour\u007f du\u009b Mont Blanc", want: "Tour du Mont Blanc"},
		{name: "next line is a line break", give: "Tour\u0085du", want: "Tour du"},
		{name: "bidi override dropped", give: "Tour \u202Enalb tnom", want: "Tour nalb tnom"},
		{name: "CDATA joined with text", give: "Tour <![CDATA[du  Mont]]> Blanc", want: "Tour du Mont Blanc"},
		{name: "markup inside is skipped, its text kept", give: "Tour <b>du</b> Mont", want: "Tour du Mont"},
		{name: "only white space is no title", give: " \t ", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := gpx.Parse(strings.NewReader(doc(`<trk><name>` + tt.give + `</name><trkseg><trkpt lat="1" lon="1"/></trkseg></trk>`)))

			require.NoError(t, err)
			assert.Equal(t, tt.want, got.Title)
		})
	}
}
