package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRememberedTextsAreTheRenderedOnes: a result's text is the same
// whether it was rendered or remembered; a changed result, or the same
// JSON of another type (marked differently), gets a text of its own; and
// what is remembered stays within its bound.
func TestRememberedTextsAreTheRenderedOnes(t *testing.T) {
	t.Parallel()
	x := newTexts()
	textFor := func(out any) string {
		t.Helper()
		b, err := json.Marshal(out)
		require.NoError(t, err)
		got, err := x.text(out, b)
		require.NoError(t, err)
		want, err := textOf(out, b)
		require.NoError(t, err)
		require.Equal(t, want, got)
		return got
	}
	first := textFor(titled{ID: "1", Title: "Col du Galibier"})
	require.Equal(t, first, textFor(titled{ID: "1", Title: "Col du Galibier"}), "read again")
	require.Equal(t, 1, x.held.Len(), "remembered once")
	changed := textFor(titled{ID: "1", Title: "Col de l'Iseran"})
	require.NotEqual(t, first, changed)
	require.Contains(t, changed, "Iseran")

	// ownTitle and titled write the same JSON; only titled carries
	// third-party text.
	own := textFor(ownTitle{ID: "1", Title: "x"})
	third := textFor(titled{ID: "1", Title: "x"})
	require.NotContains(t, own, DataNotice)
	require.Contains(t, third, DataNotice)

	// A result read once every few others stays held however many others
	// pass; what is held stays within its bound.
	hot := titled{ID: "hot", Title: "Col du Galibier"}
	hotJSON, err := json.Marshal(hot)
	require.NoError(t, err)
	for i := range 4 * maxTextsBytes / maxTextJSON {
		textFor(ownTitle{ID: strings.Repeat("a", maxTextJSON/2), Title: fmt.Sprint(i)})
		if i%16 == 0 {
			textFor(hot)
		}
		require.LessOrEqual(t, x.held.Cost(), maxTextsBytes+2*maxTextJSON)
	}
	_, held := x.held.Get(textKey{reflect.TypeOf(hot), string(hotJSON)})
	require.True(t, held, "the hot result is still held")

	big := ownTitle{ID: strings.Repeat("b", maxTextJSON)}
	before := x.held.Len()
	textFor(big)
	require.Equal(t, before, x.held.Len(), "a result past maxTextJSON is rendered, not remembered")
}

// ownTitle is titled with its title the server's own.
type ownTitle struct {
	ID    string `json:"id"`
	Title string `json:"title" text:"own"`
}
