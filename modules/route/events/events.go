// Package events reads the events near a place on a day from an
// iCalendar feed (RFC 5545) at the address the operator configures
// (events_url). iCalendar is the open format every events calendar
// publishes (tourist offices, DATAtourisme exports, festival sites) and
// every calendar reads: each VEVENT has its dates, its summary, its URL
// and, with GEO, where it is. The feed is fetched at most once an hour
// and parsed by github.com/arran4/golang-ical; events without GEO cannot
// be placed and are skipped.
package events

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	ics "github.com/arran4/golang-ical"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/text"
	"cairn.dev/cairn/modules/route/upstream"
)

// FeedTTL is how long a fetched feed is reused.
const FeedTTL = time.Hour

// Event is one event of the feed. Its texts are third-party data.
type Event struct {
	Name        string
	Category    string // the feed's first CATEGORIES value, or "event"
	Point       geo.Point
	Start, End  time.Time // End is exclusive; an all-day event ends at the next midnight
	URL         string
	Description string
}

// Feed reads one iCalendar feed.
type Feed struct {
	url  string
	http *upstream.Client
	now  func() time.Time

	mu      sync.Mutex
	events  []Event
	fetched time.Time
}

// New returns the feed at url.
func New(url string, o upstream.Options) (*Feed, error) {
	if !strings.HasPrefix(url, "http://") && !strings.HasPrefix(url, "https://") {
		return nil, errors.New("events: events_url must be an absolute http(s) URL")
	}
	if o.MaxBytes == 0 {
		o.MaxBytes = 16 << 20
	}
	return &Feed{url: url, http: upstream.New(o), now: time.Now}, nil
}

// Near returns the events within radius metres of p that are on during
// day (a UTC calendar day), nearest first.
func (f *Feed) Near(ctx context.Context, p geo.Point, radius float64, day time.Time) ([]Event, error) {
	all, err := f.load(ctx)
	if err != nil {
		return nil, err
	}
	from := day.UTC().Truncate(24 * time.Hour)
	to := from.Add(24 * time.Hour)
	type near struct {
		e Event
		d float64
	}
	var found []near
	for _, e := range all {
		if !e.Start.Before(to) || !e.End.After(from) {
			continue
		}
		if d := geo.Haversine(p, e.Point); d <= radius {
			found = append(found, near{e, d})
		}
	}
	slices.SortStableFunc(found, func(a, b near) int { return cmp.Compare(a.d, b.d) })
	out := make([]Event, len(found))
	for i, n := range found {
		out[i] = n.e
	}
	return out, nil
}

func (f *Feed) load(ctx context.Context) ([]Event, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.fetched.IsZero() && f.now().Sub(f.fetched) < FeedTTL {
		return f.events, nil
	}
	body, err := f.http.Get(ctx, f.url, "text/calendar")
	if err != nil {
		return nil, err
	}
	events, err := Parse(body)
	if err != nil {
		return nil, &upstream.Error{Status: 200, Err: err}
	}
	f.events, f.fetched = events, f.now()
	return events, nil
}

// Parse reads the placed events of an iCalendar document.
func Parse(doc []byte) ([]Event, error) {
	cal, err := ics.ParseCalendar(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	var out []Event
	for _, ve := range cal.Events() {
		e := Event{Category: "event"}
		geoProp := ve.GetProperty(ics.ComponentPropertyGeo)
		if geoProp == nil {
			continue
		}
		lat, lon, ok := parseGeo(geoProp.Value)
		if !ok {
			continue
		}
		e.Point = geo.Point{Lat: lat, Lon: lon}
		allDay := false
		if p := ve.GetProperty(ics.ComponentPropertyDtStart); p != nil {
			allDay = len(p.Value) == 8 || slices.Contains(p.ICalParameters["VALUE"], "DATE")
		}
		if allDay {
			e.Start, err = ve.GetAllDayStartAt()
		} else {
			e.Start, err = ve.GetStartAt()
		}
		if err != nil {
			continue
		}
		if allDay {
			e.End, err = ve.GetAllDayEndAt()
		} else {
			e.End, err = ve.GetEndAt()
		}
		if err != nil || !e.End.After(e.Start) {
			e.End = e.Start.Add(24 * time.Hour)
			if !allDay {
				e.End = e.Start.Add(time.Hour)
			}
		}
		if allDay {
			// an all-day event holds calendar days wherever it is read
			y, m, d := e.Start.Date()
			e.Start = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
			y, m, d = e.End.Date()
			e.End = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		}
		if p := ve.GetProperty(ics.ComponentPropertySummary); p != nil {
			e.Name = text.Clean(p.Value, text.MaxName)
		}
		if p := ve.GetProperty(ics.ComponentPropertyUrl); p != nil {
			if u := text.Clean(p.Value, text.MaxURL); strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
				e.URL = u
			}
		}
		if p := ve.GetProperty(ics.ComponentPropertyDescription); p != nil {
			e.Description = text.Clean(p.Value, text.MaxDescription)
		}
		if p := ve.GetProperty(ics.ComponentPropertyCategories); p != nil {
			if c, _, _ := strings.Cut(p.Value, ","); strings.TrimSpace(c) != "" {
				e.Category = strings.ToLower(text.Clean(c, text.MaxValue))
			}
		}
		if e.Name == "" {
			continue
		}
		out = append(out, e)
	}
	return out, nil
}

// parseGeo reads "lat;lon".
func parseGeo(v string) (lat, lon float64, ok bool) {
	a, b, found := strings.Cut(v, ";")
	if !found {
		return 0, 0, false
	}
	lat, err1 := strconv.ParseFloat(strings.TrimSpace(a), 64)
	lon, err2 := strconv.ParseFloat(strings.TrimSpace(b), 64)
	return lat, lon, err1 == nil && err2 == nil && lat >= -90 && lat <= 90 && lon >= -180 && lon <= 180
}
