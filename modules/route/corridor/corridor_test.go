package corridor_test

import (
	"math"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/corridor"
	"cairn.dev/cairn/modules/route/geo"
)

// east moves p by metres to the east.
func east(p geo.Point, metres float64) geo.Point {
	return geo.Point{Lat: p.Lat, Lon: p.Lon + metres/(geo.EarthRadius*math.Pi/180*math.Cos(p.Lat*math.Pi/180))}
}

func north(p geo.Point, metres float64) geo.Point {
	return geo.Point{Lat: p.Lat + metres/(geo.EarthRadius*math.Pi/180), Lon: p.Lon}
}

func TestTilesHoldEveryPlaceWithinTheHalfWidth(t *testing.T) {
	t.Parallel()
	start := geo.Point{Lat: 45.0003, Lon: 5.9997}
	line := []geo.Point{start, east(start, 10_000), north(east(start, 10_000), 5_000)}
	tests := []struct {
		name      string
		halfWidth float64
		give      geo.Point
		want      bool
	}{
		{"on the line", 2000, east(start, 3000), true},
		{"1.9 km north of the first leg", 2000, north(east(start, 4000), 1900), true},
		{"1.9 km south of the start", 2000, north(start, -1900), true},
		{"1.9 km east of the second leg", 2000, east(north(east(start, 10_000), 2000), 1900), true},
		{"20 m off the line, narrow corridor", 20, north(east(start, 7000), 19), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tiles := corridor.Tiles(line, tt.halfWidth)
			_, found := slices.BinarySearch(tiles, corridor.Tile(tt.give.Lat, tt.give.Lon))
			require.Equal(t, tt.want, found)
		})
	}
	narrow, wide := corridor.Tiles(line, 20), corridor.Tiles(line, 2000)
	require.Less(t, len(narrow), len(wide), "a wider corridor crosses more tiles")
	require.Less(t, len(wide), 200, "a 15 km line buffered by 2 km crosses tens of tiles, not the world")
}

func TestTileKeysAreRowsOfAdjacentTiles(t *testing.T) {
	t.Parallel()
	a, b := corridor.Tile(45.005, 6.005), corridor.Tile(45.005, 6.015)
	require.Equal(t, a+1, b, "the tile east is the next key")
	require.Equal(t, corridor.Tile(44.995, 6.005)+36000, a, "the tile north is a row further")
	require.Equal(t, corridor.Coarse(45.05, 6.05), corridor.CoarseOf(a))
	require.NotEqual(t, corridor.Tile(0, 179.995), corridor.Tile(0, -179.995))
	require.Equal(t, corridor.Tile(0, 180), corridor.Tile(0, -180), "the antimeridian is one column")
}

func TestChunkKeepsEverySegmentNearItsTile(t *testing.T) {
	t.Parallel()
	start := geo.Point{Lat: 45.0, Lon: 6.0}
	var way []geo.Point
	for i := range 200 {
		way = append(way, east(start, float64(i)*40)) // 8 km, a point every 40 m
	}
	way = append(way, north(way[len(way)-1], 5000)) // and one 5 km segment
	runs, keys := corridor.Chunk(way, 32)
	require.Len(t, keys, len(runs))
	segments := 0
	for i, r := range runs {
		require.LessOrEqual(t, len(r), 32)
		segments += len(r) - 1
		near := corridor.Neighbours([]int64{keys[i]})
		for _, p := range r {
			_, ok := slices.BinarySearch(near, corridor.Tile(p.Lat, p.Lon))
			require.True(t, ok, "run %d point %v strays from its tile", i, p)
		}
		if i > 0 {
			prev := runs[i-1]
			require.Equal(t, prev[len(prev)-1], r[0], "runs share their boundary point")
		}
	}
	require.GreaterOrEqual(t, segments, len(way)-1, "no segment is lost")
}

func TestLineLocate(t *testing.T) {
	t.Parallel()
	start := geo.Point{Lat: 45.0, Lon: 6.0}
	line := corridor.NewLine([]geo.Point{start, east(start, 10_000), north(east(start, 10_000), 10_000)}, 2000)
	require.InDelta(t, 20_000, line.Length(), 20)
	tests := []struct {
		name      string
		give      geo.Point
		limit     float64
		wantOK    bool
		wantOff   float64
		wantAlong float64
	}{
		{"on the first leg", east(start, 2500), 100, true, 0, 2500},
		{"beside the second leg", east(north(east(start, 10_000), 4000), 300), 2000, true, 300, 14_000},
		{"too far for the limit", north(east(start, 5000), 2500), 2000, false, 0, 0},
		{"a far question scans", north(east(start, 5000), 2500), 5000, true, 2500, 5000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			off, along, ok := line.Locate(tt.give, tt.limit)
			require.Equal(t, tt.wantOK, ok)
			if ok {
				require.InDelta(t, tt.wantOff, off, 5)
				require.InDelta(t, tt.wantAlong, along, 15)
			}
		})
	}
	require.InDelta(t, east(start, 5000).Lon, line.At(5000).Lon, 1e-6)
}
