package tools

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/registry"
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

// keptTitled is titled given again from memory (registry.Kept): its JSON,
// its rendering, and when abridged no value.
type keptTitled struct {
	ID        string `json:"id"`
	Title     string `json:"title" text:"third-party"`
	json      []byte
	rendering *registry.Rendering
	abridged  bool
}

func (k keptTitled) EncodedJSON() []byte            { return k.json }
func (k keptTitled) Abridged() bool                 { return k.abridged }
func (k keptTitled) Rendering() *registry.Rendering { return k.rendering }

// TestAKeptAnswersTextIsKeptBesideIt: the first call given a kept answer
// renders its text and keeps it in the answer's rendering, for every call
// given the answer after it, abridged or not, without holding it among the
// texts; an abridged answer whose text is not kept yet (the first call was
// over HTTP) is rendered from its JSON, not from the value it lacks.
func TestAKeptAnswersTextIsKeptBesideIt(t *testing.T) {
	t.Parallel()
	full := keptTitled{ID: "1", Title: "Col du Galibier"}
	b, err := json.Marshal(full)
	require.NoError(t, err)
	want, err := textOf(titled{ID: "1", Title: "Col du Galibier"}, b)
	require.NoError(t, err)
	require.Contains(t, want, DataNotice)
	require.Contains(t, want, "Galibier")

	x := newTexts()
	full.json, full.rendering = b, new(registry.Rendering)
	got, err := x.text(full, b)
	require.NoError(t, err)
	require.Equal(t, want, got, "rendered from the value")
	kept, ok := full.rendering.Text()
	require.True(t, ok, "kept beside the answer")
	require.Equal(t, want, kept)
	require.Zero(t, x.held.Len(), "not held twice")

	abridged := keptTitled{json: b, rendering: full.rendering, abridged: true}
	full.rendering.Keep("the kept text")
	got, err = x.text(abridged, b)
	require.NoError(t, err)
	require.Equal(t, "the kept text", got, "read from the rendering, not rendered again")

	unrendered := keptTitled{json: b, rendering: new(registry.Rendering), abridged: true}
	got, err = x.text(unrendered, b)
	require.NoError(t, err)
	require.Equal(t, want, got, "rendered from the JSON")
	kept, _ = unrendered.rendering.Text()
	require.Equal(t, want, kept)
}
