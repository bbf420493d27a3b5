package openinghours_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/openinghours"
)

func TestAt(t *testing.T) {
	t.Parallel()
	// 2027-06-07 is a Monday.
	at := func(day, hour, minute int) time.Time { return time.Date(2027, 6, day, hour, minute, 0, 0, time.UTC) }
	tests := []struct {
		name  string
		hours string
		give  time.Time
		want  openinghours.State
	}{
		{"open on a weekday", "Mo-Fr 08:00-19:00", at(7, 12, 30), openinghours.Open},
		{"closed on Sunday", "Mo-Sa 08:00-19:00", at(13, 12, 30), openinghours.Closed},
		{"closed over lunch", "Mo-Fr 08:00-12:00,14:00-18:00", at(8, 12, 30), openinghours.Closed},
		{"a later rule replaces the day", "Mo-Sa 08:00-19:00; We off", at(9, 10, 0), openinghours.Closed},
		{"another day keeps the first rule", "Mo-Sa 08:00-19:00; We off", at(10, 10, 0), openinghours.Open},
		{"past midnight, the night before", "Fr 20:00-02:00", at(12, 1, 0), openinghours.Open},
		{"around the clock", "24/7", at(13, 3, 0), openinghours.Open},
		{"months", "Apr-Sep Mo-Su 09:00-18:00", at(7, 10, 0), openinghours.Open},
		{"months around the new year", "Nov-Mar Mo-Su 09:00-18:00", at(7, 10, 0), openinghours.Closed},
		{"the end is not open", "Mo-Fr 08:00-19:00", at(7, 19, 0), openinghours.Closed},
		{"a whole day", "Tu", at(8, 23, 0), openinghours.Open},
		{"sunrise is beyond the subset", "Mo-Fr sunrise-sunset", at(7, 12, 0), openinghours.Unknown},
		{"public holidays are beyond the subset", "Mo-Fr 08:00-19:00; PH off", at(7, 12, 0), openinghours.Unknown},
		{"a comment is beyond the subset", `Mo-Fr 08:00-12:00 "call first"`, at(7, 10, 0), openinghours.Unknown},
		{"empty", "", at(7, 10, 0), openinghours.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			h, ok := openinghours.Parse(tt.hours)
			if tt.want == openinghours.Unknown {
				require.False(t, ok)
			}
			require.Equal(t, tt.want, h.At(tt.give))
		})
	}
}
