package poi_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/modules/route/poi"
)

func TestDetectFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give    string
		want    poi.Format
		wantErr bool
	}{
		{give: "alps.osm", want: poi.FormatXML},
		{give: "alps.osm.xml", want: poi.FormatXML},
		{give: "/data/ALPS.XML", want: poi.FormatXML},
		{give: "alps.pbf", want: poi.FormatPBF},
		{give: "/data/rhone-alpes-latest.osm.pbf", want: poi.FormatPBF},
		{give: "alps.osm.bz2", wantErr: true},
		{give: "alps.osm.gz", wantErr: true},
		{give: "alps", wantErr: true},
		{give: "pbf", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			got, err := poi.DetectFormat(tt.give)
			if tt.wantErr {
				require.ErrorIs(t, err, poi.ErrUnknownFormat)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

func TestParseFormat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give    string
		want    poi.Format
		wantErr bool
	}{
		{give: "xml", want: poi.FormatXML},
		{give: "OSM", want: poi.FormatXML},
		{give: " pbf ", want: poi.FormatPBF},
		{give: "o5m", wantErr: true},
		{give: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			got, err := poi.ParseFormat(tt.give)
			if tt.wantErr {
				require.ErrorIs(t, err, poi.ErrUnknownFormat)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}

// onlyReader hides Seek, as a pipe or an HTTP body would.
type onlyReader struct{ io.Reader }

func TestImport(t *testing.T) {
	t.Parallel()
	pbf := func(o pbfOptions) func(t *testing.T) []byte {
		return func(t *testing.T) []byte { return writePBF(t, fixtureNodes, fixtureWays, o) }
	}
	xml := func(*testing.T) []byte { return []byte(fixtureXML) }
	tests := []struct {
		name      string
		give      func(t *testing.T) []byte
		format    poi.Format
		stream    bool // hide Seek: the importer copies to a temporary file
		wantNodes int64
	}{
		{name: "xml", give: xml, format: poi.FormatXML, wantNodes: 8},
		{name: "xml stream", give: xml, format: poi.FormatXML, stream: true, wantNodes: 8},
		{name: "pbf zlib", give: pbf(pbfOptions{zlib: true}), format: poi.FormatPBF, wantNodes: 10},
		{name: "pbf raw blobs", give: pbf(pbfOptions{}), format: poi.FormatPBF, wantNodes: 10},
		{name: "pbf many blocks", give: pbf(pbfOptions{zlib: true, nodesPerBlock: 3}), format: poi.FormatPBF, wantNodes: 10},
		{name: "pbf stream", give: pbf(pbfOptions{zlib: true}), format: poi.FormatPBF, stream: true, wantNodes: 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var r io.Reader = bytes.NewReader(tt.give(t))
			if tt.stream {
				r = onlyReader{r}
			}
			mem := &memory{}
			im := poi.Importer{TempDir: t.TempDir()}
			stats, err := im.Import(context.Background(), mem, r, tt.format)
			require.NoError(t, err)

			require.Equal(t, poi.Stats{
				NodesScanned: tt.wantNodes, WaysScanned: 5, Nodes: 3, Ways: 3,
				ByType:      map[string]int{"hotel": 1, "cafe": 1, "wilderness_hut": 1, "camp_site": 1, "hostel": 1, "guest_house": 1},
				WaysPartial: 1, WaysWithoutNodes: 1, Batches: 1,
			}, stats)
			requireFixtureStored(t, mem.byID())
		})
	}
}

// requireFixtureStored checks what the fixture gives, whatever its format.
func requireFixtureStored(t *testing.T, got map[string]poi.POI) {
	t.Helper()
	require.Len(t, got, 6)
	type place struct {
		name, category, osmType string
		osmID                   int64
		lat, lon                float64
		tags                    poi.Tags
	}
	want := map[string]place{
		"osm:node:1": {name: "Hôtel du Col", category: "hotel", osmType: "node", osmID: 1, lat: 45.05, lon: 6.05,
			tags: poi.Tags{"stars": "3", "website": "https://hotel-du-col.example",
				"address": "12 Rue Haute, 05100 Briançon", "phone": "+33 4 92 00 00 00"}},
		// A café is a place to buy food on the way (resupply).
		"osm:node:2": {name: "Café du Centre", category: "cafe", osmType: "node", osmID: 2, lat: 45.06, lon: 6.06, tags: poi.Tags{}},
		"osm:node:14": {category: "wilderness_hut", osmType: "node", osmID: 14, lat: 45.01, lon: 6.01,
			tags: poi.Tags{"fee": "no"}},
		// The closing node counts once: the centre of the square.
		"osm:way:100": {name: "Camping des Prés", category: "camp_site", osmType: "way", osmID: 100, lat: 45.001, lon: 6.001,
			tags: poi.Tags{"backpack": "yes", "opening_hours": "Apr-Oct"}},
		// Node 99 is not in the file: the way stands on the node found.
		"osm:way:101": {name: "Half Hostel", category: "hostel", osmType: "way", osmID: 101, lat: 45.03, lon: 6.03, tags: poi.Tags{}},
		"osm:way:104": {name: "Gîte Inline", category: "guest_house", osmType: "way", osmID: 104, lat: 45.085, lon: 6.085, tags: poi.Tags{}},
	}
	for id, w := range want {
		p, ok := got[id]
		require.True(t, ok, "%s not stored", id)
		require.Equal(t, poi.SourceOSM, p.Source, id)
		require.Equal(t, w.name, p.Name, id)
		require.Equal(t, w.category, p.Category, id)
		require.Equal(t, w.osmType, p.OSMType, id)
		require.Equal(t, w.osmID, p.OSMID, id)
		require.InDelta(t, w.lat, p.Lat, 1e-7, id)
		require.InDelta(t, w.lon, p.Lon, 1e-7, id)
		require.Equal(t, w.tags, p.Tags, id)
		require.False(t, p.ImportedAt.IsZero(), id)
	}
}

func TestImportBatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give        int
		wantBatches int
	}{
		{give: 1, wantBatches: 6},
		{give: 2, wantBatches: 3},
		{give: 6, wantBatches: 1},
		{give: 0, wantBatches: 1}, // the default, 1000
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.give), func(t *testing.T) {
			t.Parallel()
			mem := &memory{}
			stats, err := poi.Importer{BatchSize: tt.give}.Import(context.Background(), mem,
				strings.NewReader(fixtureXML), poi.FormatXML)
			require.NoError(t, err)
			require.Equal(t, tt.wantBatches, stats.Batches)
			require.Len(t, mem.batches, tt.wantBatches)
			for _, b := range mem.batches {
				require.LessOrEqual(t, len(b), max(tt.give, 1000))
			}
			require.Len(t, mem.byID(), 6)
		})
	}
}

func TestImportMaxWayNodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give          int
		wantWays      int
		wantOverLimit int
	}{
		// Way 100 holds 4 distinct nodes, 101 and 102 two each; 104 carries
		// its coordinates in the XML and needs none.
		{give: 3, wantWays: 2, wantOverLimit: 2},
		{give: 4, wantWays: 2, wantOverLimit: 2},
		{give: 6, wantWays: 3, wantOverLimit: 1},
		{give: 8, wantWays: 3, wantOverLimit: 0},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.give), func(t *testing.T) {
			t.Parallel()
			stats, err := poi.Importer{MaxWayNodes: tt.give}.Import(context.Background(), &memory{},
				strings.NewReader(fixtureXML), poi.FormatXML)
			require.NoError(t, err)
			require.Equal(t, tt.wantWays, stats.Ways)
			require.Equal(t, tt.wantOverLimit, stats.WaysOverLimit)
		})
	}
}

func TestImportFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	pbfPath := filepath.Join(dir, "fixture.osm.pbf")
	require.NoError(t, os.WriteFile(pbfPath, writePBF(t, fixtureNodes, fixtureWays, pbfOptions{zlib: true}), 0o600))
	xmlPath := filepath.Join(dir, "fixture.osm")
	require.NoError(t, os.WriteFile(xmlPath, []byte(fixtureXML), 0o600))
	oddPath := filepath.Join(dir, "fixture.data") // no telling extension
	require.NoError(t, os.WriteFile(oddPath, []byte(fixtureXML), 0o600))

	tests := []struct {
		name     string
		path     string
		override poi.Format
		wantErr  error
	}{
		{name: "pbf by extension", path: pbfPath},
		{name: "xml by extension", path: xmlPath},
		{name: "override", path: oddPath, override: poi.FormatXML},
		{name: "unknown extension", path: oddPath, wantErr: poi.ErrUnknownFormat},
		{name: "missing file", path: filepath.Join(dir, "nope.osm"), wantErr: os.ErrNotExist},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			mem := &memory{}
			stats, err := poi.ImportFile(context.Background(), mem, tt.path, tt.override)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, 6, stats.Nodes+stats.Ways)
			requireFixtureStored(t, mem.byID())
		})
	}
}

func TestImportRefuses(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		give   string
		format poi.Format
	}{
		{name: "unknown format", give: fixtureXML, format: "o5m"},
		{name: "broken xml", give: `<osm><node id="1" lat="45" lon="6"><tag k="tourism" v="hotel"/></osm>`, format: poi.FormatXML},
		{name: "not a pbf", give: fixtureXML, format: poi.FormatPBF},
		{name: "truncated pbf", give: string(writePBF(t, fixtureNodes, fixtureWays, pbfOptions{zlib: true})[:200]), format: poi.FormatPBF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := poi.Import(context.Background(), &memory{}, strings.NewReader(tt.give), tt.format)
			require.Error(t, err)
		})
	}
}

// TestImportPlainNodes: the decoder panics, out of reach, on nodes that are
// not dense; the importer must refuse the file before decoding it.
func TestImportPlainNodes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		give pbfOptions
	}{
		{name: "zlib", give: pbfOptions{zlib: true, plainNodes: true}},
		{name: "raw", give: pbfOptions{plainNodes: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			file := writePBF(t, fixtureNodes, fixtureWays, tt.give)
			mem := &memory{}
			_, err := poi.Import(context.Background(), mem, bytes.NewReader(file), poi.FormatPBF)
			require.ErrorIs(t, err, poi.ErrUnsupportedPBF)
			require.Empty(t, mem.batches)
		})
	}
}

func TestImportCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := poi.Import(ctx, &memory{}, strings.NewReader(fixtureXML), poi.FormatXML)
	require.ErrorIs(t, err, context.Canceled)
}

// TestImportOsmiumFixture reads files written by another tool (osmium, see
// testdata/README.md): PBF with dense-node metadata, and a relation to skip.
func TestImportOsmiumFixture(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give string
	}{
		{give: "testdata/fixture-osmium.osm"},
		{give: "testdata/fixture-osmium.osm.pbf"},
	}
	for _, tt := range tests {
		t.Run(filepath.Base(tt.give), func(t *testing.T) {
			t.Parallel()
			mem := &memory{}
			stats, err := poi.ImportFile(context.Background(), mem, tt.give, "")
			require.NoError(t, err)
			require.Equal(t, int64(10), stats.NodesScanned)
			require.Equal(t, int64(5), stats.WaysScanned)
			require.Equal(t, 1, stats.WaysPartial)
			require.Equal(t, 1, stats.WaysWithoutNodes)
			requireFixtureStored(t, mem.byID())
		})
	}
}
