package source

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/text"
	"cairn.dev/cairn/outbound"
)

// Komoot has no public API. Its tour and collection pages carry their data
// in a script that hands a JavaScript string literal to kmtBoot.setProps;
// the literal holds a JSON document (HAL style, "_embedded" objects). The
// parts read here:
//
//	kmtBoot.setProps("{\"page\":{\"_embedded\":{ ... }}}");
//
//	tour page:
//	{"page": {"_embedded": {"tour": {
//	    "name": "Tour name",
//	    "_embedded": {"coordinates": {"items": [
//	        {"lat": 45.1, "lng": 6.2, "alt": 1200.5, "t": 0}, ...]}}}}}}
//
//	collection page:
//	{"page": {"_embedded": {"collectionHal": {
//	    "name": "Collection name",
//	    "_embedded": {"compilation": {"_embedded": {"items": [
//	        {"id": 123456, "type": "tour_planned", ...}, ...]}}}}}}}
//
// Other fields are ignored. Collection items that are highlights, not
// tours, are skipped by their type; an id may be a number or a string.

// bootMarker opens the string literal holding the page's data.
const bootMarker = "kmtBoot.setProps(\""

var (
	errNoProps   = errors.New("source: komoot page without kmtBoot.setProps data")
	errBadProps  = errors.New("source: komoot page data unreadable")
	errNoTour    = errors.New("source: komoot page without tour data")
	errBadPoint  = errors.New("source: coordinate out of range")
	errNoTours   = errors.New("source: komoot collection: no tour could be fetched")
	errTooMany   = errors.New("source: komoot collection lists too many tours")
	errNoListing = errors.New("source: komoot page without collection data")
)

type komootPage struct {
	Page struct {
		Embedded struct {
			Tour       *komootTour       `json:"tour"`
			Collection *komootCollection `json:"collectionHal"`
		} `json:"_embedded"`
	} `json:"page"`
}

type komootTour struct {
	Name     string `json:"name"`
	Embedded struct {
		Coordinates struct {
			Items []struct {
				Lat *float64 `json:"lat"`
				Lng *float64 `json:"lng"`
				Alt float64  `json:"alt"`
			} `json:"items"`
		} `json:"coordinates"`
	} `json:"_embedded"`
}

type komootCollection struct {
	Name     string `json:"name"`
	Embedded struct {
		Compilation struct {
			Embedded struct {
				Items []struct {
					ID   komootID `json:"id"`
					Type string   `json:"type"`
				} `json:"items"`
			} `json:"_embedded"`
		} `json:"compilation"`
	} `json:"_embedded"`
}

// komootID takes an id written as a number or a string; anything else, or
// an id that is not all digits, leaves it empty (and the item skipped).
type komootID string

// UnmarshalJSON implements json.Unmarshaler.
func (id *komootID) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	if digits(s) {
		*id = komootID(s)
	}
	return nil
}

func (f *Fetcher) komootTour(ctx context.Context, id string) (Route, error) {
	body, err := f.komoot.get(ctx, "tour", id)
	if err != nil {
		return Route{}, err
	}
	title, points, err := parseKomootTour(body)
	if err != nil {
		return Route{}, err
	}
	if len(points) == 0 {
		return Route{}, empty(errors.New("source: komoot tour without coordinates"))
	}
	return Route{Title: title, Tracks: [][]geo.Point{points}}, nil
}

// komootCollection fetches the collection page, then every tour it lists,
// a few at a time, keeping the listing's order: tour n is stage n.
func (f *Fetcher) komootCollection(ctx context.Context, id string) (Route, error) {
	body, err := f.komoot.get(ctx, "collection", id)
	if err != nil {
		return Route{}, err
	}
	title, ids, err := parseKomootCollection(body)
	if err != nil {
		return Route{}, err
	}
	if len(ids) == 0 {
		return Route{}, empty(errors.New("source: komoot collection lists no tour"))
	}
	if len(ids) > MaxCollectionTours {
		return Route{}, errTooMany
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tracks := make([][]geo.Point, len(ids))
	errs := make([]error, len(ids))
	slots := make(chan struct{}, f.concurrency)
	var wg sync.WaitGroup
	for i, tourID := range ids {
		wg.Go(func() {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			defer func() { <-slots }()
			r, err := f.komootTour(ctx, tourID)
			if err == nil {
				tracks[i] = r.Tracks[0]
				return
			}
			errs[i] = err
			if !skippable(err) {
				cancel() // the collection fails: stop the others
			}
		})
	}
	wg.Wait()

	var kept [][]geo.Point
	for i, err := range errs {
		switch {
		case err == nil:
			kept = append(kept, tracks[i])
		case !skippable(err):
			return Route{}, fmt.Errorf("source: komoot collection tour %s: %w", ids[i], firstCause(errs, err))
		}
	}
	if len(kept) == 0 {
		return Route{}, errNoTours
	}
	return Route{Title: title, Tracks: kept}, nil
}

// skippable reports whether a collection goes on without this tour: a tour
// answering non-200 (private, removed) or without points. Anything else
// (refused address, provider down, unreadable page) fails the collection.
func skippable(err error) bool {
	var status *outbound.StatusError
	return errors.As(err, &status) || errors.Is(err, ErrEmptyRoute)
}

// firstCause prefers a tour's own failure to the cancellations it caused
// in the others.
func firstCause(errs []error, fallback error) error {
	for _, err := range errs {
		if err != nil && !skippable(err) && !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return fallback
}

// parseKomootTour reads the title and points of a tour page.
func parseKomootTour(page []byte) (string, []geo.Point, error) {
	data, err := komootProps(page)
	if err != nil {
		return "", nil, err
	}
	tour := data.Page.Embedded.Tour
	if tour == nil {
		return "", nil, errNoTour
	}
	items := tour.Embedded.Coordinates.Items
	points := make([]geo.Point, 0, len(items))
	for _, it := range items {
		if it.Lat == nil || it.Lng == nil || !validPoint(*it.Lat, *it.Lng) {
			return "", nil, errBadPoint
		}
		points = append(points, geo.Point{Lat: *it.Lat, Lon: *it.Lng, Ele: it.Alt})
	}
	return text.Clean(tour.Name, text.MaxTitle), points, nil
}

// parseKomootCollection reads the name and tour ids of a collection page.
func parseKomootCollection(page []byte) (string, []string, error) {
	data, err := komootProps(page)
	if err != nil {
		return "", nil, err
	}
	c := data.Page.Embedded.Collection
	if c == nil {
		return "", nil, errNoListing
	}
	var ids []string
	for _, it := range c.Embedded.Compilation.Embedded.Items {
		if it.ID == "" || strings.Contains(it.Type, "highlight") {
			continue
		}
		ids = append(ids, string(it.ID))
	}
	return text.Clean(c.Name, text.MaxTitle), ids, nil
}

// komootProps finds the setProps literal, undoes its JavaScript escaping
// and decodes the JSON inside.
func komootProps(page []byte) (*komootPage, error) {
	start := bytes.Index(page, []byte(bootMarker))
	if start < 0 {
		return nil, errNoProps
	}
	rest := page[start+len(bootMarker):]
	end := -1
	for i := 0; i < len(rest) && end < 0; i++ {
		switch rest[i] {
		case '\\':
			i++ // the escaped byte cannot end the literal
		case '"':
			end = i
		}
	}
	if end < 0 {
		return nil, errBadProps
	}
	doc, err := jsString(rest[:end])
	if err != nil {
		return nil, err
	}
	var data komootPage
	if err := json.Unmarshal(doc, &data); err != nil {
		return nil, fmt.Errorf("%w: %w", errBadProps, err)
	}
	return &data, nil
}

// jsString decodes the body of a double-quoted JavaScript string literal.
// It rewrites the escapes JavaScript has and JSON lacks (\', \v, \0, \xHH,
// line continuations) and lets the JSON decoder do the rest, surrogate
// pairs in \uHHHH included.
func jsString(lit []byte) ([]byte, error) {
	var b bytes.Buffer
	b.Grow(len(lit) + 2)
	b.WriteByte('"')
	for i := 0; i < len(lit); i++ {
		c := lit[i]
		if c != '\\' {
			if c < 0x20 { // JSON refuses raw control characters
				fmt.Fprintf(&b, `\u%04x`, c)
			} else {
				b.WriteByte(c)
			}
			continue
		}
		i++
		if i == len(lit) {
			return nil, errBadProps
		}
		switch e := lit[i]; e {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't', 'u':
			b.WriteByte('\\')
			b.WriteByte(e)
		case 'v':
			b.WriteString(`\u000b`)
		case '0':
			b.WriteString(`\u0000`)
		case 'x':
			if i+2 >= len(lit) || !isHex(lit[i+1]) || !isHex(lit[i+2]) {
				return nil, errBadProps
			}
			b.WriteString(`\u00`)
			b.Write(lit[i+1 : i+3])
			i += 2
		case '\r':
			if i+1 < len(lit) && lit[i+1] == '\n' {
				i++
			}
		case '\n':
			// A line continuation stands for nothing.
		default:
			// In JavaScript a needless escape is the character itself ("\'").
			b.WriteByte(e)
		}
	}
	b.WriteByte('"')
	var s string
	if err := json.Unmarshal(b.Bytes(), &s); err != nil {
		return nil, fmt.Errorf("%w: %w", errBadProps, err)
	}
	return []byte(s), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}
