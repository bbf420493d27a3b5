// Package places finds places by name for GET /geocode/search and the
// search_places tool (operations.md, "Places"; ADR-080).
//
// Two Searchers answer the same way. The default is the offline Gazetteer,
// shipped inside the binary: GeoNames places of at least 1,000 inhabitants,
// so a search never leaves the process and the project's address is never
// at the mercy of a third party's goodwill — the risk ADR-080 names for
// search_places inside an agent loop. Nominatim is optional and built to its
// usage policy: one request per second for the whole process, an
// identifying User-Agent and a 24 h cache.
//
// Place names are third-party text: see Place.
package places

import (
	"context"
	"errors"
)

// Place types. City, town and village follow OpenStreetMap's population
// bands (100,000 and 10,000 inhabitants), so both providers speak the same
// words; TypePlace is anything else, or a population nobody knows.
const (
	TypeCity    = "city"
	TypeTown    = "town"
	TypeVillage = "village"
	TypePlace   = "place"
)

// Result limits of operations.md: limit defaults to 5 and is clamped to
// 1..10.
const (
	DefaultLimit = 5
	MaxLimit     = 10
)

// MaxQueryBytes bounds a query. No place name comes close; a longer query is
// refused (ErrQueryTooLong) rather than cut, so it is never folded, indexed
// against or sent upstream.
const MaxQueryBytes = 256

// Attributions the licences ask for, to show wherever results are shown.
const (
	GeoNamesAttribution  = "Place data © GeoNames (geonames.org), CC BY 4.0"
	NominatimAttribution = "Place data © OpenStreetMap contributors, ODbL"
)

// ErrEmptyQuery is returned for a query with nothing to search once spaces
// and punctuation are set aside; the caller answers 400.
var ErrEmptyQuery = errors.New("places: empty query")

// ErrQueryTooLong is returned for a query over MaxQueryBytes; the caller
// answers 400.
var ErrQueryTooLong = errors.New("places: query too long")

// Searcher finds places whose name matches q, best first, at most limit of
// them (see ClampLimit). An empty result is not an error. Errors:
// ErrEmptyQuery, ErrQueryTooLong, the context's error, and for providers
// that call out, *UpstreamError.
type Searcher interface {
	Search(ctx context.Context, q string, limit int) ([]Place, error)
}

// Place is one search result.
//
// Name and DisplayName are third-party text (GeoNames or OpenStreetMap
// contributors), not ours: whoever hands them on must mark them as data
// (a field of a structured result, delimited as such for a model) and must
// never interpolate them into a tool description, a problem detail or an
// error message, which a model reads as instructions. No error of this
// package carries a name or the caller's query, for the same reason.
type Place struct {
	// Name is the place's own name, e.g. "Besançon".
	Name string `json:"name"`
	// DisplayName adds the first-level administrative area and the country
	// code when known: "Lyon, Auvergne-Rhône-Alpes, FR".
	DisplayName string  `json:"displayName"`
	Lat         float64 `json:"lat"`
	Lon         float64 `json:"lon"`
	// Type is one of the Type constants.
	Type string `json:"type"`
	// Country is the ISO 3166-1 alpha-2 code, upper case; empty if unknown.
	Country string `json:"country,omitempty"`
	// Population is 0 when unknown (always, from Nominatim).
	Population int `json:"population,omitempty"`
}

// ClampLimit applies the result limits: 0 (not given) means DefaultLimit,
// anything else is clamped to 1..MaxLimit.
func ClampLimit(limit int) int {
	switch {
	case limit == 0:
		return DefaultLimit
	case limit < 1:
		return 1
	case limit > MaxLimit:
		return MaxLimit
	}
	return limit
}

// TypeFor names a place by its population, for sources that give only that.
func TypeFor(population int) string {
	switch {
	case population >= 100_000:
		return TypeCity
	case population >= 10_000:
		return TypeTown
	case population > 0:
		return TypeVillage
	}
	return TypePlace
}

// checkQuery applies the limits every Searcher shares before any work.
func checkQuery(q string) error {
	if len(q) > MaxQueryBytes {
		return ErrQueryTooLong
	}
	return nil
}
