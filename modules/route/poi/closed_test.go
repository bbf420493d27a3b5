package poi_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/poi"
)

func TestPossiblyClosed(t *testing.T) {
	t.Parallel()
	day := func(m time.Month, d int) *time.Time {
		v := time.Date(2027, m, d, 0, 0, 0, 0, time.UTC)
		return &v
	}
	tests := []struct {
		name string
		give poi.Tags
		date *time.Time
		want bool
	}{
		{name: "no date claims nothing", give: poi.Tags{"opening_hours": "Apr-Oct"}, date: nil, want: false},
		{name: "no tags", date: day(time.January, 1), want: false},

		// Month ranges.
		{name: "inside Apr-Oct", give: poi.Tags{"opening_hours": "Apr-Oct"}, date: day(time.July, 14), want: false},
		{name: "first day of Apr-Oct", give: poi.Tags{"opening_hours": "Apr-Oct"}, date: day(time.April, 1), want: false},
		{name: "last day of Apr-Oct", give: poi.Tags{"opening_hours": "Apr-Oct"}, date: day(time.October, 31), want: false},
		{name: "outside Apr-Oct", give: poi.Tags{"opening_hours": "Apr-Oct"}, date: day(time.November, 1), want: true},
		{name: "before Apr-Oct", give: poi.Tags{"opening_hours": "Apr-Oct"}, date: day(time.March, 31), want: true},
		{name: "with times", give: poi.Tags{"opening_hours": "May-Sep 08:00-20:00"}, date: day(time.October, 2), want: true},
		{name: "times right after the month", give: poi.Tags{"opening_hours": "Jun-Sep 07:00-21:00"}, date: day(time.September, 20), want: false},
		{name: "with colon and weekdays", give: poi.Tags{"opening_hours": "Jun-Sep: Mo-Su 07:00-21:00"}, date: day(time.May, 20), want: true},
		{name: "lower case", give: poi.Tags{"opening_hours": "jun-sep"}, date: day(time.May, 20), want: true},
		{name: "wrapping Dec-Mar in January", give: poi.Tags{"opening_hours": "Dec-Mar"}, date: day(time.January, 20), want: false},
		{name: "wrapping Dec-Mar in July", give: poi.Tags{"opening_hours": "Dec-Mar"}, date: day(time.July, 20), want: true},
		{name: "with days", give: poi.Tags{"opening_hours": "May 15-Sep 30"}, date: day(time.May, 10), want: true},
		{name: "with days, inside", give: poi.Tags{"opening_hours": "May 15-Sep 30"}, date: day(time.May, 15), want: false},
		{name: "several ranges", give: poi.Tags{"opening_hours": "Jan-Mar,Jun-Sep"}, date: day(time.April, 10), want: true},
		{name: "several ranges, inside", give: poi.Tags{"opening_hours": "Jan-Mar, Jun-Sep"}, date: day(time.August, 10), want: false},
		{name: "single month", give: poi.Tags{"opening_hours": "Aug"}, date: day(time.August, 31), want: false},
		{name: "single month, outside", give: poi.Tags{"opening_hours": "Aug"}, date: day(time.September, 1), want: true},
		{name: "two rules", give: poi.Tags{"opening_hours": "Jun-Aug 07:00-22:00; May,Sep 09:00-18:00"}, date: day(time.May, 5), want: false},
		{name: "two rules, outside", give: poi.Tags{"opening_hours": "Jun-Aug 07:00-22:00; May,Sep 09:00-18:00"}, date: day(time.October, 5), want: true},

		// Closing rules.
		{name: "Nov-Mar off", give: poi.Tags{"opening_hours": "Mo-Su 08:00-20:00; Nov-Mar off"}, date: day(time.February, 1), want: true},
		{name: "Nov-Mar off, in summer", give: poi.Tags{"opening_hours": "Mo-Su 08:00-20:00; Nov-Mar off"}, date: day(time.June, 1), want: false},
		{name: "closed spelled out", give: poi.Tags{"opening_hours": "Jan closed"}, date: day(time.January, 9), want: true},

		// No month selector: year round, seasonal decides.
		{name: "24/7", give: poi.Tags{"opening_hours": "24/7"}, date: day(time.January, 1), want: false},
		{name: "weekdays only", give: poi.Tags{"opening_hours": "Mo-Fr 08:00-18:00"}, date: day(time.January, 1), want: false},
		{name: "year-round rule overrides months", give: poi.Tags{"opening_hours": "Apr-Oct 08:00-20:00; Mo-Su 09:00-17:00"}, date: day(time.January, 1), want: false},
		{name: "unknown form is year round", give: poi.Tags{"opening_hours": "Jun 1-15"}, date: day(time.January, 1), want: false},
		{name: "a year is not read", give: poi.Tags{"opening_hours": "2027 Apr-Oct"}, date: day(time.January, 1), want: false},
		{name: "Sunday is no month", give: poi.Tags{"opening_hours": "Sunday"}, date: day(time.January, 1), want: false},

		// seasonal=yes: closed November to March.
		{name: "seasonal in December", give: poi.Tags{"seasonal": "yes"}, date: day(time.December, 24), want: true},
		{name: "seasonal in March", give: poi.Tags{"seasonal": "yes"}, date: day(time.March, 31), want: true},
		{name: "seasonal in April", give: poi.Tags{"seasonal": "yes"}, date: day(time.April, 1), want: false},
		{name: "seasonal in October", give: poi.Tags{"seasonal": "yes"}, date: day(time.October, 31), want: false},
		{name: "seasonal summer", give: poi.Tags{"seasonal": "summer"}, date: day(time.November, 1), want: true},
		{name: "seasonal no", give: poi.Tags{"seasonal": "no"}, date: day(time.January, 1), want: false},
		{name: "seasonal without a date", give: poi.Tags{"seasonal": "yes"}, date: nil, want: false},
		{name: "months beat seasonal", give: poi.Tags{"seasonal": "yes", "opening_hours": "Dec-Apr"}, date: day(time.January, 5), want: false},
		{name: "hours without months leave seasonal", give: poi.Tags{"seasonal": "yes", "opening_hours": "Mo-Su 08:00-20:00"}, date: day(time.January, 5), want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			require.Equal(t, tt.want, poi.PossiblyClosed(tt.give, tt.date))
		})
	}
}
