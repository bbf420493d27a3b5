package alerts_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/modules/route/geo"
)

// TestUnavailable checks that the default providers answer "not available",
// never an empty answer that would read as "nothing found".
func TestUnavailable(t *testing.T) {
	t.Parallel()

	ctx := context.Background()
	line := []geo.Point{paris, oslo}
	var p alerts.Unavailable

	_, err := p.WaysAlong(ctx, line)
	assert.True(t, errors.Is(err, alerts.ErrUnavailable), "roads")
	_, err = p.PlacesNear(ctx, line, 2000, alerts.PlaceWater)
	assert.True(t, errors.Is(err, alerts.ErrUnavailable), "places")
	_, err = p.Forecast(ctx, paris, time.Date(2025, 6, 21, 0, 0, 0, 0, time.UTC))
	assert.True(t, errors.Is(err, alerts.ErrUnavailable), "forecasts")
	_, err = p.CountryAt(ctx, paris)
	assert.True(t, errors.Is(err, alerts.ErrUnavailable), "countries")
	_, err = p.PublicHolidays(ctx, "FR", 2025)
	assert.True(t, errors.Is(err, alerts.ErrUnavailable), "holidays")
}
