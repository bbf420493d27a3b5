package planner_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/registry"
)

// TestAnAddressThatIsNoURIIsNotEchoed: a caller's value never comes back
// beyond registry.MaxQuote characters, the schema's own format check
// included (it quotes the value whole, and its parse error again). A
// 1,500-character address once came back whole in a 1,786-byte 422.
func TestAnAddressThatIsNoURIIsNotEchoed(t *testing.T) {
	t.Parallel()
	a := plannertest.New(t)
	e := newEnv(t, a)
	id := e.trip(t, nil)
	for _, bad := range []string{
		"https://exa mple.com/" + strings.Repeat("a", 1500),
		"https://example.com/%zz" + strings.Repeat("b", 1500),
		"https://[::1" + strings.Repeat("c", 1500),
	} {
		res := a.Do(t, "POST", "/trips/"+id+"/stages/any/accommodations/manual", e.token, map[string]any{
			"name": "Camping", "address": "Annecy", "url": bad,
		})
		require.Equal(t, http.StatusUnprocessableEntity, res.Status, string(res.Body))
		require.Less(t, len(res.Body), 600, "the refusal stays small: %s", res.Body)
		require.NotContains(t, string(res.Body), bad[12:12+registry.MaxQuote+1], "the value is clipped")
		require.Contains(t, fields(res.JSON(t)), "url", "the field is named")
	}
}
