package places

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// The policy's one request per second is per address, so every Nominatim
// built without its own throttle must share one, and it must allow no burst.
func TestNominatimSharesProcessThrottle(t *testing.T) {
	t.Parallel()
	a, err := NewNominatim(NominatimConfig{})
	require.NoError(t, err)
	b, err := NewNominatim(NominatimConfig{BaseURL: "https://nominatim.example.org"})
	require.NoError(t, err)

	assert.Same(t, nominatimThrottle, a.throttle)
	assert.Same(t, nominatimThrottle, b.throttle)
	assert.Equal(t, rate.Every(time.Second), nominatimThrottle.lim.Limit())
	assert.Equal(t, 1, nominatimThrottle.lim.Burst())
}
