// Package corridor answers what lies along a line: the grid tiles a
// buffered line crosses (the key a store indexes places and ways by, with
// a plain B-tree on either engine, no spatial extension), and how far a
// point lies from the line and where along it.
//
// Distances are metres on the sphere of geo.EarthRadius, measured in a
// plane tangent at each segment: a day's segments are short, so the
// error stays far below the metres the rules care about.
package corridor

import (
	"math"
	"slices"

	"cairn.dev/cairn/modules/route/geo"
)

// Cell is the side of a grid tile in degrees: about 1.1 km of latitude,
// 0.8 km of longitude at 45°.
const Cell = 0.01

// CoarseCell is the side of a coverage tile in degrees: an import records
// the coarse tiles it holds data in, and a line is covered where its coarse
// tiles are.
const CoarseCell = 0.1

const (
	lonCells       = 36000 // 360 / Cell
	coarseLonCells = 3600  // 360 / CoarseCell
)

// Tile is the key of the grid tile holding (lat, lon): rows of tiles from
// the south pole, each row's tiles from the antimeridian, so that one row
// of adjacent tiles is one range of keys.
func Tile(lat, lon float64) int64 {
	return int64(latIndex(lat, Cell))*lonCells + int64(lonIndex(lon, Cell, lonCells))
}

// Coarse is the key of the coverage tile holding (lat, lon).
func Coarse(lat, lon float64) int64 {
	return int64(latIndex(lat, CoarseCell))*coarseLonCells + int64(lonIndex(lon, CoarseCell, coarseLonCells))
}

// RowTiles is how many grid tiles a row holds: Tile(lat, lon) is its row
// times RowTiles plus its column.
const RowTiles = lonCells

// CoarseTileCount is how many coverage tiles cover the planet.
const CoarseTileCount = 1800 * coarseLonCells

// CoarseBounds is the box (degrees) of coverage tiles.
func CoarseBounds(tiles []int64) (minLat, minLon, maxLat, maxLon float64) {
	minLat, minLon, maxLat, maxLon = 90, 180, -90, -180
	for _, t := range tiles {
		lat := float64(t/coarseLonCells)*CoarseCell - 90
		lon := float64(t%coarseLonCells)*CoarseCell - 180
		minLat, minLon = min(minLat, lat), min(minLon, lon)
		maxLat, maxLon = max(maxLat, lat+CoarseCell), max(maxLon, lon+CoarseCell)
	}
	return minLat, minLon, maxLat, maxLon
}

// CoarseOf is the coverage tile of a grid tile.
func CoarseOf(tile int64) int64 {
	return (tile/lonCells)/10*coarseLonCells + (tile%lonCells)/10
}

func latIndex(lat, cell float64) int {
	return int(math.Floor((min(max(lat, -90), 89.999999) + 90) / cell))
}

func lonIndex(lon, cell float64, cells int) int {
	i := int(math.Floor((lon + 180) / cell))
	return ((i % cells) + cells) % cells
}

// metresPerDegree is a degree of latitude on the sphere.
const metresPerDegree = geo.EarthRadius * math.Pi / 180

// Tiles lists, sorted, the grid tiles within halfWidth metres of the line
// (a single point is a line too), and a little more: every tile a place
// within halfWidth can lie in is listed.
func Tiles(line []geo.Point, halfWidth float64) []int64 {
	return tiles(line, halfWidth, Cell, Tile)
}

// CoarseTiles lists, sorted, the coverage tiles the line (unbuffered)
// passes through.
func CoarseTiles(line []geo.Point) []int64 { return tiles(line, 0, CoarseCell, Coarse) }

func tiles(line []geo.Point, halfWidth, cell float64, key func(lat, lon float64) int64) []int64 {
	seen := map[int64]bool{}
	dLat := halfWidth / metresPerDegree
	add := func(p geo.Point) {
		dLon := dLat / math.Max(math.Cos(p.Lat*math.Pi/180), 0.01)
		for lat := p.Lat - dLat; ; lat += cell {
			lat = math.Min(lat, p.Lat+dLat)
			for lon := p.Lon - dLon; ; lon += cell {
				lon = math.Min(lon, p.Lon+dLon)
				seen[key(lat, lon)] = true
				if lon >= p.Lon+dLon {
					break
				}
			}
			if lat >= p.Lat+dLat {
				break
			}
		}
	}
	// Sampled at a third of a cell: no tile the buffered line enters is
	// skipped between two samples.
	step := cell * metresPerDegree / 3
	for i, p := range line {
		add(p)
		if i+1 == len(line) {
			break
		}
		q := line[i+1]
		d := geo.Haversine(p, q)
		for k := 1.0; k*step < d; k++ {
			f := k * step / d
			add(geo.Point{Lat: p.Lat + f*(q.Lat-p.Lat), Lon: p.Lon + f*(q.Lon-p.Lon)})
		}
	}
	out := make([]int64, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Neighbours adds to tiles the eight tiles around each, sorted: a way
// chunk is filed under one tile but may reach into the ones around it
// (see Chunk).
func Neighbours(tiles []int64) []int64 {
	seen := make(map[int64]bool, len(tiles)*3)
	for _, t := range tiles {
		row, col := t/lonCells, t%lonCells
		for dr := int64(-1); dr <= 1; dr++ {
			for dc := int64(-1); dc <= 1; dc++ {
				r, c := row+dr, ((col+dc)%lonCells+lonCells)%lonCells
				if r < 0 || r >= 180/Cell {
					continue
				}
				seen[r*lonCells+c] = true
			}
		}
	}
	out := make([]int64, 0, len(seen))
	for k := range seen {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Chunk cuts a way's points into runs filed under one tile each: a run
// starts in its tile and stays within that tile and the eight around it,
// and holds at most maxPoints points. Consecutive runs share their
// boundary point, so no segment is lost.
func Chunk(points []geo.Point, maxPoints int) (runs [][]geo.Point, keys []int64) {
	if len(points) == 0 {
		return nil, nil
	}
	start := 0
	for start < len(points)-1 || (start == 0 && len(points) == 1) {
		home := Tile(points[start].Lat, points[start].Lon)
		row, col := home/lonCells, home%lonCells
		end := start + 1
		for end < len(points) && end-start < maxPoints {
			t := Tile(points[end].Lat, points[end].Lon)
			r, c := t/lonCells, t%lonCells
			dc := (c - col + lonCells) % lonCells
			if r < row-1 || r > row+1 || (dc > 1 && dc < lonCells-1) {
				break
			}
			end++
		}
		if end == start+1 && end < len(points) {
			// A segment longer than a tile: kept alone, filed at its
			// start, and split into tile-sized pieces so none reaches
			// beyond the tiles around its own.
			a, b := points[start], points[end]
			n := int(math.Ceil(geo.Haversine(a, b) / (Cell * metresPerDegree * 0.5)))
			if n > 1 {
				prev := a
				for k := 1; k <= n; k++ {
					f := float64(k) / float64(n)
					q := geo.Point{Lat: a.Lat + f*(b.Lat-a.Lat), Lon: a.Lon + f*(b.Lon-a.Lon)}
					runs = append(runs, []geo.Point{prev, q})
					keys = append(keys, Tile(prev.Lat, prev.Lon))
					prev = q
				}
				start = end
				continue
			}
			end++
		}
		runs = append(runs, slices.Clone(points[start:end]))
		keys = append(keys, home)
		if end >= len(points) {
			break
		}
		start = end - 1
	}
	return runs, keys
}
