package holidays_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/holidays"
)

func TestOn(t *testing.T) {
	t.Parallel()
	day := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name     string
		country  string
		give     time.Time
		wantName string
	}{
		{"Bastille Day", "FR", day(2027, time.July, 14), "Fête Nationale"},
		{"Easter Monday moves with Easter", "FR", day(2027, time.March, 29), "Lundi de Pâques"},
		{"an ordinary Tuesday", "FR", day(2027, time.July, 13), ""},
		{"Swiss National Day", "CH", day(2027, time.August, 1), "Bundesfeiertag"},
		{"Belgian National Day is no French one", "FR", day(2027, time.July, 21), ""},
		{"Belgian National Day", "BE", day(2027, time.July, 21), "Nationale Feestdag"},
		{"a country the library does not know", "LU", day(2027, time.June, 23), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, ok := holidays.On(tt.country, tt.give)
			require.Equal(t, tt.wantName != "", ok)
			require.Equal(t, tt.wantName, h.Name)
		})
	}
	require.True(t, holidays.Known("FR"))
	require.False(t, holidays.Known("LU"))
}
