package source

import (
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/text"
)

// FuzzKomootPage feeds any page to the Komoot readers, which undo a
// JavaScript string literal and decode the JSON inside: nothing panics,
// every point read is a coordinate, titles follow the text rule, and the
// tour ids of a collection are digits only, the one shape that goes into a
// request path.
func FuzzKomootPage(f *testing.F) {
	for _, seed := range []string{
		`<script>kmtBoot.setProps("{\"page\":{\"_embedded\":{\"tour\":{\"name\":\"A \\u0000 b\",\"_embedded\":{\"coordinates\":{\"items\":[{\"lat\":45.1,\"lng\":6.2,\"alt\":1200.5}]}}}}}}");</script>`,
		`<script>kmtBoot.setProps("{\"page\":{\"_embedded\":{\"collectionHal\":{\"name\":\"C\",\"_embedded\":{\"compilation\":{\"_embedded\":{\"items\":[{\"id\":1,\"type\":\"tour_planned\"},{\"id\":\"../2\"},{\"id\":\"3\",\"type\":\"highlight\"}]}}}}}}}");</script>`,
		`kmtBoot.setProps("\x3cb\x3e \' \v \0 \u00e9 \
")`,
		`kmtBoot.setProps("{\"page\":{\"_embedded\":{\"tour\":{\"_embedded\":{\"coordinates\":{\"items\":[{\"lat\":91,\"lng\":0}]}}}}}}")`,
		`kmtBoot.setProps("\x`,
		`no data`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, page []byte) {
		if title, points, err := parseKomootTour(page); err == nil {
			require.Equal(t, text.Clean(title, text.MaxTitle), title)
			for _, p := range points {
				require.True(t, validPoint(p.Lat, p.Lon), "point %+v", p)
			}
		}
		if title, ids, err := parseKomootCollection(page); err == nil {
			require.Equal(t, text.Clean(title, text.MaxTitle), title)
			for _, id := range ids {
				require.True(t, digits(id), "id %q", id)
			}
		}
	})
}
