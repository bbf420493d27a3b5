package storage

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestTimestampsReadAsTimeParseReadsThem: a time as bun writes it is read
// as time.Parse reads it (instant and location), whatever the local zone;
// other texts are left to the layouts.
func TestTimestampsReadAsTimeParseReadsThem(t *testing.T) { // not parallel: it sets time.Local
	const layout = "2006-01-02 15:04:05.999999999-07:00"
	texts := []string{
		"2026-12-03 12:24:26.123456+00:00", "2026-12-03 12:24:26+00:00", "2026-12-03 12:24:26.1+00:00",
		"2026-07-01 06:30:15.123456789+02:00", "2026-01-31 23:59:59.999999-05:30", "2024-02-29 00:00:00+00:00",
		"0001-01-01 00:00:00+00:00", "9999-12-31 23:59:59.999999+14:00",
	}
	refused := []string{
		"2026-12-03T12:24:26Z", "2026-13-03 12:24:26+00:00", "2025-02-29 12:00:00+00:00", "2026-12-03 24:00:00+00:00",
		"2026-12-03 12:24:26.+00:00", "2026-12-03 12:24:26,5+00:00", "2026-12-03 12:24:26.1234567890+00:00",
		"2026-12-03 12:24:26+0000", "2026-12-03 12:24:2a+00:00", "2026-12-03 12:24:26 +00:00", "",
	}
	saved := time.Local
	t.Cleanup(func() { time.Local = saved })
	paris, err := time.LoadLocation("Europe/Paris")
	if err != nil {
		paris = time.FixedZone("CET", 3600) // no zone database: an offset of its own
	}
	for _, local := range []*time.Location{time.UTC, paris, time.FixedZone("IST", 19800)} {
		time.Local = local
		for _, text := range texts {
			want, err := time.Parse(layout, text)
			require.NoError(t, err, text)
			got, ok := parseWritten(text)
			require.True(t, ok, text)
			require.Equal(t, want, got, "%s in %s", text, local)
		}
		for _, text := range refused {
			_, ok := parseWritten(text)
			require.False(t, ok, text)
		}
	}
}

// BenchmarkTimestamp is the read of one time as bun writes it.
func BenchmarkTimestamp(b *testing.B) {
	b.ReportAllocs()
	var v NullTime
	for b.Loop() {
		if err := v.Scan("2026-12-03 12:24:26.123456+00:00"); err != nil {
			b.Fatal(err)
		}
	}
}
