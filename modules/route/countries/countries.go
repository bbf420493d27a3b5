// Package countries names the country at a point, offline: the land
// borders of @ideditor/country-coder (data/README.md) embedded and read
// once, a point tested against the polygons whose box holds it. No call
// leaves the process. At sea, or in Antarctica, no country is named.
package countries

import (
	"bufio"
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"cairn.dev/cairn/modules/route/geo"
)

//go:generate go run ./internal/gen -out data/borders.tsv.gz

//go:embed data/borders.tsv.gz
var borders []byte

// polygon is one land polygon: its country, box and rings (outer first),
// in hundred-thousandths of a degree.
type polygon struct {
	country                        string
	minLat, minLon, maxLat, maxLon int32
	rings                          [][]int32 // lon, lat, lon, lat…
}

// Borders names countries. The zero value is not ready: use Embedded.
type Borders struct {
	once  sync.Once
	polys []polygon
	err   error
}

var embedded = &Borders{}

// Embedded is the borders shipped with the binary, read on first use.
func Embedded() *Borders { return embedded }

func (b *Borders) load() error {
	b.once.Do(func() { b.polys, b.err = parse(borders) })
	return b.err
}

func parse(data []byte) ([]polygon, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(zr)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	var out []polygon
	for sc.Scan() {
		f := strings.Split(sc.Text(), "\t")
		if len(f) < 3 {
			return nil, fmt.Errorf("countries: malformed line %d", len(out)+1)
		}
		p := polygon{country: f[0]}
		box := strings.Fields(f[1])
		if len(box) != 4 {
			return nil, fmt.Errorf("countries: malformed box on line %d", len(out)+1)
		}
		v := [4]int32{}
		for i, s := range box {
			n, err := strconv.ParseInt(s, 10, 32)
			if err != nil {
				return nil, err
			}
			v[i] = int32(n)
		}
		p.minLat, p.minLon, p.maxLat, p.maxLon = v[0], v[1], v[2], v[3]
		for _, r := range f[2:] {
			parts := strings.Split(r, ",")
			ring := make([]int32, len(parts))
			for i, s := range parts {
				n, err := strconv.ParseInt(s, 10, 32)
				if err != nil {
					return nil, err
				}
				ring[i] = int32(n)
			}
			p.rings = append(p.rings, ring)
		}
		out = append(out, p)
	}
	return out, sc.Err()
}

// At is the ISO 3166-1 alpha-2 code of the country at p, or "" at sea and
// wherever the borders name none.
func (b *Borders) At(p geo.Point) (string, error) {
	if err := b.load(); err != nil {
		return "", err
	}
	lat, lon := int32(p.Lat*1e5), int32(p.Lon*1e5)
	for i := range b.polys {
		q := &b.polys[i]
		if lat < q.minLat || lat > q.maxLat || lon < q.minLon || lon > q.maxLon {
			continue
		}
		if q.contains(lon, lat) {
			return q.country, nil
		}
	}
	return "", nil
}

// contains is the even–odd rule over every ring, holes included.
func (q *polygon) contains(x, y int32) bool {
	in := false
	for _, r := range q.rings {
		n := len(r) / 2
		for i, j := 0, n-1; i < n; j, i = i, i+1 {
			xi, yi, xj, yj := float64(r[2*i]), float64(r[2*i+1]), float64(r[2*j]), float64(r[2*j+1])
			if (yi > float64(y)) != (yj > float64(y)) && float64(x) < (xj-xi)*(float64(y)-yi)/(yj-yi)+xi {
				in = !in
			}
		}
	}
	return in
}
