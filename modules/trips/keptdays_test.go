package trips

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The days a trip's row keeps read back as they were written, every
// optional field present or absent, empty strings and zero counts kept
// apart from absent ones; anything else in their place is not read.
func TestKeptDaysReadAsWritten(t *testing.T) {
	t.Parallel()
	label, empty, sleep, town := "Col day", "", "Camping du Lac", "Bourg"
	start := LatLon{45.12345, 6.54321}
	tests := []struct {
		name string
		days []DigestDay
	}{
		{"no days", nil},
		{"a bare day", []DigestDay{{Day: Day{ID: "d1", DayNumber: 1}, End: LatLon{45, 6}}}},
		{"every field", []DigestDay{
			{Day: Day{ID: "d1", DayNumber: 1, Distance: 61.2, Ascent: 813, Descent: 311, Label: &label, Sleep: &sleep,
				Alerts: &AlertCount{Critical: 1, Warning: 2, Nudge: 3}}, Date: "2031-05-01", Start: &start, StartLabel: &town,
				End: LatLon{45.2, 6.4}, EndLabel: &town},
			{Day: Day{ID: "d2", DayNumber: 2, IsRestDay: true, Label: &empty, Sleep: &empty, Alerts: &AlertCount{}},
				DayNumber: 7, Date: "2031-05-02", End: LatLon{-45.2, -179.99999}, EndLabel: &empty},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := decodeDays(encodeDays(tt.days))
			require.NoError(t, err)
			require.Equal(t, tt.days, got)
		})
	}
	// The days' texts are their own: the bytes they were read from (a
	// remembered digest's) may be written over after.
	from := encodeDays(tests[2].days)
	got, err := decodeDays(from)
	require.NoError(t, err)
	clear(from)
	require.Equal(t, tests[2].days, got)

	whole := encodeDays(tests[2].days)
	for _, bad := range [][]byte{nil, {}, {2, 0}, whole[:len(whole)-1], append(append([]byte{}, whole...), 0), []byte(`[{"d":{}}]`)} {
		_, err := decodeDays(bad)
		require.Error(t, err, "%q", bad)
	}
}

// Whatever a row holds, reading it fails or gives days that are written
// and read again the same (compared written: a NaN is not equal to itself).
func FuzzKeptDays(f *testing.F) {
	label := "x"
	f.Add(encodeDays([]DigestDay{{Day: Day{ID: "d1", Label: &label, Alerts: &AlertCount{Nudge: 1}}, Date: "2031-05-01"}}))
	f.Add([]byte{1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		days, err := decodeDays(b)
		if err != nil {
			return
		}
		written := encodeDays(days)
		again, err := decodeDays(written)
		require.NoError(t, err)
		require.Equal(t, written, encodeDays(again))
	})
}
