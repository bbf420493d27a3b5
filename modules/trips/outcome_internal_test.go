package trips

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/route/alerts"
	"cairn.dev/cairn/storage"
	"cairn.dev/cairn/storage/storagetest"
)

// TestAnOutcomeWritesItsOwnKindAlone: an enrichment's outcome writes its
// group of alerts, its coverage and the day column it owns, and leaves
// every other enrichment's as it was, on both engines.
func TestAnOutcomeWritesItsOwnKindAlone(t *testing.T) {
	t.Parallel()
	storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
		ctx := context.Background()
		s, id := tripWith(t, db, importedStages(benchTripID, 2, 100, 5))
		stages, err := s.Stages(ctx, id)
		require.NoError(t, err)
		save := func(name string, o outcome) {
			t.Helper()
			require.NoError(t, storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
				return s.saveOutcome(ctx, id, name, stages, o)
			}))
		}
		forecast := []*Weather{{Icon: "rain", TempMax: 14}, nil}
		save(ComputeWeather, outcome{weather: forecast, days: [][]alerts.Alert{{{Code: "RAIN", Severity: "warning", Message: "rain"}}},
			dayCoverage: []string{"", CoverageBeyondForecast}})
		shops := []*Resupply{{}, {}}
		save(ComputeTerrain, outcome{resupply: shops, days: [][]alerts.Alert{nil, {{Code: "STEEP", Severity: "nudge", Message: "steep"}}},
			dayCoverage: []string{CoverageNoMapData, ""}})

		got, err := s.Stages(ctx, id)
		require.NoError(t, err)
		require.Len(t, got, 2)
		require.Equal(t, forecast[0], got[0].Weather, "the terrain's outcome kept the weather")
		require.Nil(t, got[1].Weather)
		require.NotNil(t, got[0].Resupply)
		require.Nil(t, got[0].Events, "no outcome wrote events")
		require.Equal(t, []string{"RAIN"}, codes(got[0].Alerts[ComputeWeather]))
		require.Empty(t, got[0].Alerts[ComputeTerrain])
		require.Equal(t, []string{"STEEP"}, codes(got[1].Alerts[ComputeTerrain]))
		require.Empty(t, got[1].Alerts[ComputeWeather])
		require.Equal(t, Coverage{ComputeTerrain: CoverageNoMapData}, got[0].Coverage)
		require.Equal(t, Coverage{ComputeWeather: CoverageBeyondForecast}, got[1].Coverage)

		// The weather again, clearing what it found: the terrain's stay.
		save(ComputeWeather, outcome{weather: []*Weather{nil, nil}, days: [][]alerts.Alert{nil, nil}})
		got, err = s.Stages(ctx, id)
		require.NoError(t, err)
		require.Nil(t, got[0].Weather)
		require.NotNil(t, got[0].Resupply)
		require.Empty(t, got[0].Alerts[ComputeWeather])
		require.Equal(t, []string{"STEEP"}, codes(got[1].Alerts[ComputeTerrain]))
		require.Nil(t, got[1].Coverage)
	})
}

func codes(list []AlertRecord) []string {
	var out []string
	for _, a := range list {
		out = append(out, a.Code)
	}
	return out
}

// BenchmarkSaveOutcome is the write every enrichment of every recut ends
// with, for a trip of 16 days: a dozen run after each change of settings.
func BenchmarkSaveOutcome(b *testing.B) {
	for _, engine := range []string{"sqlite", "postgres"} {
		b.Run("engine="+engine, func(b *testing.B) {
			s, id := benchTrip(b, engine, importedStages(benchTripID, 16, 100, 5))
			ctx := context.Background()
			stages, err := s.Stages(ctx, id)
			require.NoError(b, err)
			o := outcome{days: make([][]alerts.Alert, len(stages)), weather: make([]*Weather, len(stages))}
			for i := range stages {
				o.days[i] = []alerts.Alert{{Code: "RAIN", Severity: "warning", Message: "rain all day"}}
				o.weather[i] = &Weather{Icon: "rain", TempMin: 8, TempMax: 14}
			}
			measureCPU(b, func() error {
				return storage.Tx{DB: s.db}.InTx(ctx, func(ctx context.Context) error {
					return s.saveOutcome(ctx, id, ComputeWeather, stages, o)
				})
			})
		})
	}
}
