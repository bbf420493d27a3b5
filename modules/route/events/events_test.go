package events_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/events"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/upstream"
)

// feed is an iCalendar document: a festival over two days beside Annecy, a
// concert one evening 15 km away, a market 40 km away, one event with no
// place.
const feed = "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n" +
	"BEGIN:VEVENT\r\nUID:1\r\nDTSTAMP:20270101T000000Z\r\nDTSTART;VALUE=DATE:20270703\r\nDTEND;VALUE=DATE:20270705\r\n" +
	"SUMMARY:Fête du lac\r\nGEO:45.899;6.129\r\nURL:https://fete.example\r\nCATEGORIES:Festival,Music\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:2\r\nDTSTAMP:20270101T000000Z\r\nDTSTART:20270704T190000Z\r\nDTEND:20270704T220000Z\r\n" +
	"SUMMARY:Concert\r\nGEO:45.99;6.25\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:3\r\nDTSTAMP:20270101T000000Z\r\nDTSTART;VALUE=DATE:20270704\r\n" +
	"SUMMARY:Marché\r\nGEO:46.2;6.6\r\nEND:VEVENT\r\n" +
	"BEGIN:VEVENT\r\nUID:4\r\nDTSTAMP:20270101T000000Z\r\nDTSTART;VALUE=DATE:20270704\r\nSUMMARY:Nowhere\r\nEND:VEVENT\r\n" +
	"END:VCALENDAR\r\n"

var annecy = geo.Point{Lat: 45.899, Lon: 6.129}

func serve(t *testing.T, failFirst int64) (string, *atomic.Int64) {
	var calls atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) <= failFirst {
			http.Error(w, "down", http.StatusBadGateway)
			return
		}
		w.Header().Set("Content-Type", "text/calendar")
		fmt.Fprint(w, feed)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/events.ics", &calls
}

func TestNear(t *testing.T) {
	t.Parallel()
	url, calls := serve(t, 1)
	f, err := events.New(url, upstream.Options{MinWait: time.Millisecond})
	require.NoError(t, err)
	day := func(d int) time.Time { return time.Date(2027, 7, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name string
		day  time.Time
		want []string
	}{
		{"the festival's first day", day(3), []string{"Fête du lac"}},
		{"its second day, with the concert", day(4), []string{"Fête du lac", "Concert"}},
		{"the day after: an all-day event ends at midnight", day(5), nil},
	}
	for _, tt := range tests {
		got, err := f.Near(context.Background(), annecy, 20_000, tt.day)
		require.NoError(t, err, tt.name)
		var names []string
		for _, e := range got {
			names = append(names, e.Name)
		}
		require.Equal(t, tt.want, names, tt.name)
	}
	got, err := f.Near(context.Background(), annecy, 20_000, day(3))
	require.NoError(t, err)
	require.Equal(t, "festival", got[0].Category)
	require.Equal(t, "https://fete.example", got[0].URL)
	require.EqualValues(t, 2, calls.Load(), "one failure retried, then the feed is fetched once an hour")
}

func TestNearProviderDown(t *testing.T) {
	t.Parallel()
	url, calls := serve(t, 100)
	f, err := events.New(url, upstream.Options{MinWait: time.Millisecond})
	require.NoError(t, err)
	_, err = f.Near(context.Background(), annecy, 20_000, time.Date(2027, 7, 4, 0, 0, 0, 0, time.UTC))
	require.True(t, errors.Is(err, upstream.ErrUpstream), "%v", err)
	require.EqualValues(t, 3, calls.Load(), "one try and two retries")
}
