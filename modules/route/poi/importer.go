package poi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/paulmach/osm"
	"github.com/paulmach/osm/osmpbf"
	"github.com/paulmach/osm/osmxml"

	"cairn.dev/cairn/modules/route/corridor"
	"cairn.dev/cairn/modules/route/geo"
)

// Format is an OpenStreetMap file format.
type Format string

// The formats Import reads.
const (
	FormatXML Format = "xml" // .osm, .osm.xml, .xml
	FormatPBF Format = "pbf" // .pbf, .osm.pbf
)

// ErrUnknownFormat refuses a file whose format is neither given nor told by
// its extension. Compressed XML (.osm.bz2, .osm.gz) is refused too:
// decompress it first, or convert it to PBF.
var ErrUnknownFormat = errors.New("poi: unknown OpenStreetMap file format")

// ParseFormat reads a format override: "xml" or "osm", "pbf".
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "xml", "osm":
		return FormatXML, nil
	case "pbf":
		return FormatPBF, nil
	}
	return "", fmt.Errorf("%w: %q", ErrUnknownFormat, s)
}

// DetectFormat tells the format from a file name's extension.
func DetectFormat(name string) (Format, error) {
	lower := strings.ToLower(filepath.Base(name))
	switch {
	case strings.HasSuffix(lower, ".pbf"): // .osm.pbf too
		return FormatPBF, nil
	case strings.HasSuffix(lower, ".osm"), strings.HasSuffix(lower, ".xml"): // .osm.xml too
		return FormatXML, nil
	}
	return "", fmt.Errorf("%w: %s", ErrUnknownFormat, filepath.Base(name))
}

// Upserter is where Import writes places; *Store is one. Each call is one
// transaction.
type Upserter interface {
	Upsert(ctx context.Context, pois []POI) error
}

// WayUpserter is where Import writes the ways ridden (roads and ferry
// routes), when the store keeps them; *Store does.
type WayUpserter interface {
	UpsertWays(ctx context.Context, chunks []WayChunk) error
}

// Coverer records the area an import covered and drops what an earlier
// import left there; *Store does.
type Coverer interface {
	Cover(ctx context.Context, a Area) error
}

// Stats counts what an import read and stored.
type Stats struct {
	NodesScanned int64 // nodes read from the file
	WaysScanned  int64 // ways read from the file
	Nodes        int   // place nodes stored
	Ways         int   // place ways stored, at the centroid of their nodes
	// ByType counts the stored places per category.
	ByType map[string]int
	// Roads and Ferries count the ways ridden that were stored, in
	// WayChunks chunks (only with a WayUpserter).
	Roads, Ferries, WayChunks int
	// CoverageTiles counts the 0.1° tiles the import holds data in (only
	// with a Coverer): the area it covers, and replaces.
	CoverageTiles int
	// WaysPartial were stored at the centroid of the nodes found, some of
	// theirs being missing from the file (an extract cut through them).
	WaysPartial int
	// WaysWithoutNodes were not stored: none of their nodes is in the file.
	WaysWithoutNodes int
	// WaysOverLimit were not stored: remembering their nodes would have
	// passed Importer.MaxWayNodes (places and roads alike).
	WaysOverLimit int
	Batches       int // transactions committed
}

// Importer reads OpenStreetMap files into a store: every place the rules
// use (Classify), and, when the store keeps them, the roads and ferry
// routes with their tags (RoadTags) and the area the file covers. The zero
// value is ready to use with the defaults.
//
// Memory stays bounded whatever the file's size. A way's position is the
// centroid of its nodes, but nodes come before ways in OSM files, so a
// single pass would have to remember every node's coordinates (billions for
// the planet). Import reads the file twice instead: the first pass reads the
// ways only and remembers the accommodation ways and the ids of their nodes;
// the second reads the nodes, storing the accommodation nodes as they come
// and keeping the coordinates of the remembered ids only; a third reads the
// ways ridden again and files them on those coordinates, so that a road's
// refs and tags are not held meanwhile. Memory is then about 16 bytes per
// node of a kept way (an id and two fixed-point coordinates in a sorted
// index, plus, for a place way, its id in the way), capped by MaxWayNodes,
// plus one batch of POIs and the PBF decoder's blocks. A reader that cannot
// seek is first copied to a temporary file, so the cost of a stream is disk,
// not memory. Ways whose nodes carry their own coordinates (XML with lat
// and lon on nd) need no index. PBF files that require LocationsOnWays are
// refused by the decoder (paulmach/osm v0.8.0); so are files storing plain
// (non-dense) nodes, which the decoder cannot read, by a check of the first
// data block before decoding (see checkPBF). The decoder runs in goroutines
// of its own, where a corrupt file can still panic: import trusted extracts,
// from a command, not from a request.
type Importer struct {
	// BatchSize is how many POIs one transaction writes. Default 1000.
	BatchSize int
	// MaxWayNodes caps the node ids remembered for kept ways. Default
	// 8,000,000 (about 130 MB); ways past it are counted in
	// Stats.WaysOverLimit and not stored.
	MaxWayNodes int
	// Procs is how many goroutines decode PBF blocks. Default
	// min(4, GOMAXPROCS).
	Procs int
	// TempDir is where a reader that cannot seek is copied; empty means
	// os.TempDir.
	TempDir string
	// Name names the import in the store's record of areas (the file's
	// name, typically).
	Name string
}

// The Importer defaults.
const (
	DefaultBatchSize   = 1000
	DefaultMaxWayNodes = 8_000_000
)

// Import reads an OpenStreetMap file of the given format from r with the
// default Importer. See Importer.Import.
func Import(ctx context.Context, store Upserter, r io.Reader, format Format) (Stats, error) {
	return Importer{}.Import(ctx, store, r, format)
}

// ImportFile imports the file at path; the format is override, or told by
// the extension when override is empty.
func ImportFile(ctx context.Context, store Upserter, path string, override Format) (Stats, error) {
	format := override
	if format == "" {
		var err error
		if format, err = DetectFormat(path); err != nil {
			return Stats{}, err
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return Stats{}, err
	}
	defer f.Close()
	return Importer{Name: filepath.Base(path)}.Import(ctx, store, f, format)
}

// Import stores the nodes and ways of r tagged tourism=<an accommodation
// type> (relations are not read), in transactions of BatchSize. Files are
// taken to hold current data: the visible flag of history files is not
// read (OSM XML omits it outside them, which the scanner reads as false). It upserts
// by id, so importing the same file again updates in place. A Filer (the
// Store) receives the whole import at its end, in tile order, or nothing of
// a failed one; a plain Upserter keeps the elements stored before an
// error. Stats tells how far it went.
func (im Importer) Import(ctx context.Context, store Upserter, r io.Reader, format Format) (Stats, error) {
	if format != FormatXML && format != FormatPBF {
		return Stats{}, fmt.Errorf("%w: %q", ErrUnknownFormat, format)
	}
	if im.BatchSize <= 0 {
		im.BatchSize = DefaultBatchSize
	}
	if im.MaxWayNodes <= 0 {
		im.MaxWayNodes = DefaultMaxWayNodes
	}
	if im.Procs <= 0 {
		im.Procs = min(4, runtime.GOMAXPROCS(0))
	}
	rs, cleanup, err := seekable(r, im.TempDir)
	if err != nil {
		return Stats{}, err
	}
	defer cleanup()
	start, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return Stats{}, err
	}
	if format == FormatPBF {
		if err := checkPBF(rs); err != nil {
			return Stats{}, err
		}
	}

	run := &importRun{Importer: im, ctx: ctx, store: store, format: format, now: time.Now().UTC(),
		stats: Stats{ByType: map[string]int{}}, importID: newImportID(), covered: newTileSet(), tags: map[string]Tags{}}
	run.wayStore, _ = store.(WayUpserter)
	run.filer, _ = store.(Filer)
	if err := run.passes(rs, start); err != nil {
		if run.filer != nil {
			// what was read stays out of the store, even when ctx ended
			err = errors.Join(err, run.filer.DropStaged(context.WithoutCancel(ctx), run.importID))
		}
		return run.result(), err
	}
	return run.result(), nil
}

// passes reads the file from start, as Import says, and stores what it
// read.
func (run *importRun) passes(rs io.ReadSeeker, start int64) error {
	if err := run.readWays(rs); err != nil {
		return err
	}
	if _, err := rs.Seek(start, io.SeekStart); err != nil {
		return err
	}
	if err := run.readNodes(rs); err != nil {
		return err
	}
	if err := run.storeWays(); err != nil {
		return err
	}
	if run.wayStore != nil && run.waitingRoads > 0 {
		// The third pass: the ways ridden again, filed on their nodes.
		if _, err := rs.Seek(start, io.SeekStart); err != nil {
			return err
		}
		if err := run.storeRoads(rs); err != nil {
			return err
		}
	}
	if err := run.flush(); err != nil {
		return err
	}
	if err := run.flushChunks(); err != nil {
		return err
	}
	return run.cover()
}

// seekable returns r when it can seek, or a temporary copy of it.
func seekable(r io.Reader, dir string) (io.ReadSeeker, func(), error) {
	if rs, ok := r.(io.ReadSeeker); ok {
		return rs, func() {}, nil
	}
	f, err := os.CreateTemp(dir, "cairn-osm-*")
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		f.Close()
		os.Remove(f.Name())
	}
	if _, err := io.Copy(f, r); err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("poi: copy the input: %w", err)
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		cleanup()
		return nil, nil, err
	}
	return f, cleanup, nil
}

// importRun is one Import.
type importRun struct {
	Importer
	ctx    context.Context
	store  Upserter
	format Format
	now    time.Time

	stats        Stats
	nodesScanned atomic.Int64 // PBF filters count from the decoding goroutines
	waysScanned  atomic.Int64
	batch        []POI
	ways         []pendingWay
	wayNodes     int // node ids held by ways
	index        nodeIndex

	importID string
	wayStore WayUpserter  // nil: the store keeps no ways
	filer    Filer        // nil: rows go straight to the store
	refs     []osm.NodeID // the waiting roads' nodes, until the index takes them
	// waitingRoads counts the roads waiting for their nodes, filed by a
	// third pass over the ways; overLimit are those refused by MaxWayNodes.
	waitingRoads int
	overLimit    map[osm.WayID]bool
	chunks       []WayChunk
	covered      *tileSet        // coverage tiles holding a node
	tags         map[string]Tags // the roads' tag sets, each kept once
}

// tileSet is the coverage tiles seen, one bit each (about 800 KB for the
// whole planet), set from the decoding goroutines without a lock.
type tileSet struct{ bits []atomic.Uint64 }

func newTileSet() *tileSet {
	return &tileSet{bits: make([]atomic.Uint64, (corridor.CoarseTileCount+63)/64)}
}

func (ts *tileSet) add(t int64) { ts.bits[t/64].Or(1 << (t % 64)) }

// tiles lists the tiles seen, sorted.
func (ts *tileSet) tiles() []int64 {
	var out []int64
	for i := range ts.bits {
		w := ts.bits[i].Load()
		for w != 0 {
			b := bits.TrailingZeros64(w)
			out = append(out, int64(i*64+b))
			w &^= 1 << b
		}
	}
	return out
}

// pendingWay is an accommodation way waiting for its nodes' coordinates.
type pendingWay struct {
	poi   POI
	nodes []osm.NodeID // distinct
}

func (run *importRun) result() Stats {
	s := run.stats
	s.NodesScanned = run.nodesScanned.Load()
	s.WaysScanned = run.waysScanned.Load()
	return s
}

// scan runs the format's scanner over r and hands each object to each; PBF
// skips at decoding what the pass does not need.
func (run *importRun) scan(r io.Reader, waysPass bool, keepNode func(*osm.Node) bool, each func(osm.Object) error) error {
	var sc osm.Scanner
	switch run.format {
	case FormatPBF:
		p := osmpbf.New(run.ctx, r, run.Procs)
		p.SkipRelations = true
		if waysPass {
			p.SkipNodes = true
			p.FilterWay = func(w *osm.Way) bool {
				run.waysScanned.Add(1)
				return run.keepsWay(w.Tags)
			}
		} else {
			p.SkipWays = true
			p.FilterNode = func(n *osm.Node) bool {
				run.nodesScanned.Add(1)
				return keepNode(n)
			}
		}
		sc = p
	default:
		sc = osmxml.New(run.ctx, r)
	}
	defer sc.Close()
	for sc.Scan() {
		obj := sc.Object()
		if run.format == FormatXML {
			switch o := obj.(type) {
			case *osm.Node:
				if waysPass {
					continue
				}
				run.nodesScanned.Add(1)
				if !keepNode(o) {
					continue
				}
			case *osm.Way:
				if !waysPass {
					continue
				}
				run.waysScanned.Add(1)
				if !run.keepsWay(o.Tags) {
					continue
				}
			default:
				continue
			}
		}
		if err := each(obj); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("poi: read %s: %w", run.format, err)
	}
	return run.ctx.Err()
}

// isPlace reads the tags as fromOSM does, so that what the passes keep is
// what fromOSM accepts.
func isPlace(tags osm.Tags) bool {
	_, ok := Classify(tags.Find)
	return ok
}

// keepsWay reports whether the ways pass keeps a way: a place, or a way
// ridden when the store keeps them.
func (run *importRun) keepsWay(tags osm.Tags) bool {
	if isPlace(tags) {
		return true
	}
	if run.wayStore == nil {
		return false
	}
	_, _, ok := roadKind(tags.Find)
	return ok
}

// readWays is the first pass: place ways with inline coordinates are
// stored at once, the others wait for their nodes; so do the ways ridden.
func (run *importRun) readWays(r io.Reader) error {
	err := run.scan(r, true, nil, func(obj osm.Object) error {
		w, ok := obj.(*osm.Way)
		if !ok {
			return nil
		}
		if err := run.road(w); err != nil {
			return err
		}
		p, ok := run.poi(OSMWay, int64(w.ID), w.Tags)
		if !ok {
			return nil
		}
		if lat, lon, ok := inlineCentroid(w.Nodes); ok {
			p.Lat, p.Lon = lat, lon
			return run.add(p)
		}
		nodes := make([]osm.NodeID, len(w.Nodes))
		for i, n := range w.Nodes {
			nodes[i] = n.ID
		}
		slices.Sort(nodes)
		nodes = slices.Clip(slices.Compact(nodes))
		if run.wayNodes+len(nodes) > run.MaxWayNodes {
			run.stats.WaysOverLimit++
			return nil
		}
		run.wayNodes += len(nodes)
		run.ways = append(run.ways, pendingWay{poi: p, nodes: nodes})
		return nil
	})
	if err != nil {
		return err
	}
	run.index = newNodeIndex(run.ways, run.refs)
	run.refs = nil // the index holds them now
	return nil
}

// road keeps a way ridden, when the store keeps them: at once when it
// carries its coordinates, else waiting for its nodes.
func (run *importRun) road(w *osm.Way) error {
	if run.wayStore == nil || len(w.Nodes) < 2 {
		return nil
	}
	kind, tags, ok := roadKind(w.Tags.Find)
	if !ok {
		return nil
	}
	if pts, ok := inlinePoints(w.Nodes); ok {
		for _, p := range pts {
			run.see(p.Lat, p.Lon)
		}
		return run.addRoad(int64(w.ID), kind, run.shared(tags), [][]geo.Point{pts})
	}
	if run.wayNodes+len(run.refs)+len(w.Nodes) > run.MaxWayNodes {
		run.stats.WaysOverLimit++
		if run.overLimit == nil {
			run.overLimit = map[osm.WayID]bool{}
		}
		run.overLimit[w.ID] = true
		return nil
	}
	// Only the nodes' ids are kept: the way itself is read again once
	// they have coordinates, so that its refs and tags are not held
	// beside the index.
	for _, n := range w.Nodes {
		run.refs = append(run.refs, n.ID)
	}
	run.waitingRoads++
	return nil
}

// inlinePoints are a way's points when every node carries its coordinates.
func inlinePoints(nodes osm.WayNodes) ([]geo.Point, bool) {
	out := make([]geo.Point, len(nodes))
	for i, wn := range nodes {
		if wn.Lat == 0 && wn.Lon == 0 {
			return nil, false
		}
		out[i] = geo.Point{Lat: wn.Lat, Lon: wn.Lon}
	}
	return out, true
}

// maxChunkPoints bounds a stored chunk of a way.
const maxChunkPoints = 64

// addRoad files a way ridden, its stretches (one, or the several an extract
// cut it into) in chunks (corridor.Chunk) ranked one after the other, and
// queues them.
func (run *importRun) addRoad(id int64, kind string, tags Tags, stretches [][]geo.Point) error {
	rank := 0
	for _, pts := range stretches {
		runs, keys := corridor.Chunk(pts, maxChunkPoints)
		for i, r := range runs {
			run.chunks = append(run.chunks, WayChunk{ID: OSMKey(OSMWay, id) + ":" + strconv.Itoa(rank), WayID: id, Kind: kind,
				Tile: keys[i], Tags: tags, Points: r, ImportID: run.importID})
			rank++
		}
	}
	if rank == 0 {
		return nil
	}
	if kind == KindFerry {
		run.stats.Ferries++
	} else {
		run.stats.Roads++
	}
	run.stats.WayChunks += rank
	if len(run.chunks) >= run.BatchSize {
		return run.flushChunks()
	}
	return nil
}

func (run *importRun) flushChunks() error {
	if len(run.chunks) == 0 || run.wayStore == nil {
		return nil
	}
	put := run.wayStore.UpsertWays
	if run.filer != nil {
		put = run.filer.StageWays
	}
	if err := put(run.ctx, run.chunks); err != nil {
		return fmt.Errorf("poi: store a batch of ways: %w", err)
	}
	run.stats.Batches++
	run.chunks = run.chunks[:0]
	return nil
}

// storeRoads is the third pass: it reads the ways again and files the
// ways ridden that waited for their nodes on the nodes found; a way cut
// by the extract keeps the stretches whose nodes are in the file.
func (run *importRun) storeRoads(r io.Reader) error {
	return run.rescanWays(r, func(w *osm.Way) error {
		if len(w.Nodes) < 2 || run.overLimit[w.ID] {
			return nil
		}
		kind, tags, ok := roadKind(w.Tags.Find)
		if !ok {
			return nil
		}
		if _, inline := inlinePoints(w.Nodes); inline {
			return nil // filed by the first pass
		}
		var stretches [][]geo.Point
		var part []geo.Point
		for _, n := range w.Nodes {
			lat, lon, ok := run.index.get(n.ID)
			if !ok {
				if len(part) >= 2 {
					stretches = append(stretches, part)
				}
				part = nil
				continue
			}
			part = append(part, geo.Point{Lat: lat, Lon: lon})
		}
		if len(part) >= 2 {
			stretches = append(stretches, part)
		}
		return run.addRoad(int64(w.ID), kind, run.shared(tags), stretches)
	})
}

// rescanWays reads the ways ridden of r again, handing each to each; the
// ways scanned are not counted twice.
func (run *importRun) rescanWays(r io.Reader, each func(w *osm.Way) error) error {
	var sc osm.Scanner
	switch run.format {
	case FormatPBF:
		p := osmpbf.New(run.ctx, r, run.Procs)
		p.SkipRelations, p.SkipNodes = true, true
		p.FilterWay = func(w *osm.Way) bool {
			_, _, ok := roadKind(w.Tags.Find)
			return ok
		}
		sc = p
	default:
		sc = osmxml.New(run.ctx, r)
	}
	defer sc.Close()
	for sc.Scan() {
		w, ok := sc.Object().(*osm.Way)
		if !ok {
			continue
		}
		if err := each(w); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("poi: read %s: %w", run.format, err)
	}
	return run.ctx.Err()
}

// see counts a node's position in the area the import covers.
func (run *importRun) see(lat, lon float64) { run.covered.add(corridor.Coarse(lat, lon)) }

// shared is a road's tag set, kept once however many roads carry it: the
// roads of a region share a few thousand.
func (run *importRun) shared(tags Tags) Tags {
	keys := make([]string, 0, len(tags))
	for k, v := range tags {
		keys = append(keys, k+"="+v)
	}
	slices.Sort(keys)
	key := strings.Join(keys, "\x00")
	if t, ok := run.tags[key]; ok {
		return t
	}
	run.tags[key] = tags
	return tags
}

// cover records the area the import covered, when the store keeps areas.
func (run *importRun) cover() error {
	c, ok := run.store.(Coverer)
	tiles := run.covered.tiles()
	if !ok || (len(tiles) == 0 && run.filer == nil) {
		return nil // a Filer's Cover also files what was kept aside
	}
	run.stats.CoverageTiles = len(tiles)
	minLat, minLon, maxLat, maxLon := corridor.CoarseBounds(tiles)
	name := run.Name
	if name == "" {
		name = "import " + run.now.Format(time.RFC3339)
	}
	return c.Cover(run.ctx, Area{ImportID: run.importID, Name: name, MinLat: minLat, MinLon: minLon,
		MaxLat: maxLat, MaxLon: maxLon, Tiles: tiles,
		Places: run.stats.Nodes + run.stats.Ways, WayChunks: run.stats.WayChunks})
}

// newImportID names one import.
func newImportID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "imp-" + hex.EncodeToString(b[:])
}

// readNodes is the second pass: place nodes are stored, the coordinates of
// the waiting ways' nodes are kept, and every node marks the area covered.
func (run *importRun) readNodes(r io.Reader) error {
	// keep runs on the PBF decoding goroutines: it only reads the index,
	// which is not written until the objects reach each below. Every node
	// reaches each when the store records areas (coverage is counted
	// there, on one goroutine).
	_, areas := run.store.(Coverer)
	keep := func(n *osm.Node) bool {
		if areas {
			run.see(n.Lat, n.Lon) // the tile set takes concurrent adds
		}
		return run.index.has(n.ID) || isPlace(n.Tags)
	}
	return run.scan(r, false, keep, func(obj osm.Object) error {
		n, ok := obj.(*osm.Node)
		if !ok {
			return nil
		}
		run.index.set(n.ID, n.Lat, n.Lon)
		p, ok := run.poi(OSMNode, int64(n.ID), n.Tags)
		if !ok {
			return nil
		}
		p.Lat, p.Lon = n.Lat, n.Lon
		return run.add(p)
	})
}

// storeWays places the waiting ways at the centroid of the nodes found.
func (run *importRun) storeWays() error {
	for i := range run.ways {
		w := &run.ways[i]
		var sumLat, sumLon float64
		found := 0
		for _, id := range w.nodes {
			if lat, lon, ok := run.index.get(id); ok {
				sumLat += lat
				sumLon += lon
				found++
			}
		}
		if found == 0 {
			run.stats.WaysWithoutNodes++
			continue
		}
		if found < len(w.nodes) {
			run.stats.WaysPartial++
		}
		w.poi.Lat, w.poi.Lon = sumLat/float64(found), sumLon/float64(found)
		if err := run.add(w.poi); err != nil {
			return err
		}
		w.nodes = nil
	}
	run.ways = nil
	return nil
}

// poi builds the stored element, or ok false when it is no place.
func (run *importRun) poi(osmType string, id int64, tags osm.Tags) (POI, bool) {
	name, category, kept, ok := fromOSM(tags.Find)
	if !ok {
		return POI{}, false
	}
	return POI{ID: OSMKey(osmType, id), Source: SourceOSM, OSMType: osmType, OSMID: id,
		Name: name, Category: category, Tags: kept, ImportedAt: run.now, ImportID: run.importID}, true
}

// add queues p and writes a full batch.
func (run *importRun) add(p POI) error {
	run.batch = append(run.batch, p)
	if p.OSMType == OSMWay {
		run.stats.Ways++
	} else {
		run.stats.Nodes++
	}
	run.stats.ByType[p.Category]++
	if len(run.batch) >= run.BatchSize {
		return run.flush()
	}
	return nil
}

func (run *importRun) flush() error {
	if len(run.batch) == 0 {
		return nil
	}
	put := run.store.Upsert
	if run.filer != nil {
		put = run.filer.StagePlaces
	}
	if err := put(run.ctx, run.batch); err != nil {
		return fmt.Errorf("poi: store a batch: %w", err)
	}
	run.stats.Batches++
	run.batch = run.batch[:0]
	return nil
}

// inlineCentroid is the centroid of a way's nodes when every one carries its
// coordinates; a closed way's repeated first node counts once.
func inlineCentroid(nodes osm.WayNodes) (lat, lon float64, ok bool) {
	if len(nodes) == 0 {
		return 0, 0, false
	}
	n := len(nodes)
	if n > 1 && nodes[0].ID == nodes[n-1].ID {
		n--
	}
	for _, wn := range nodes[:n] {
		if wn.Lat == 0 && wn.Lon == 0 {
			return 0, 0, false
		}
		lat += wn.Lat
		lon += wn.Lon
	}
	return lat / float64(n), lon / float64(n), true
}

// nodeIndex holds the coordinates of the nodes of waiting ways: sorted ids
// and fixed-point coordinates (1e-7 degree, OSM's own precision) side by
// side, 16 bytes a node.
type nodeIndex struct {
	ids      []osm.NodeID
	lat, lon []int32
}

// unseen marks a node not read yet; no latitude reaches it.
const unseen = math.MinInt32

func newNodeIndex(ways []pendingWay, refs []osm.NodeID) nodeIndex {
	// The roads' refs are sorted where they lie: the largest list is not
	// copied.
	ids := refs
	for _, w := range ways {
		ids = append(ids, w.nodes...)
	}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	ids = slices.Clip(ids)
	x := nodeIndex{ids: ids, lat: make([]int32, len(ids)), lon: make([]int32, len(ids))}
	for i := range x.lat {
		x.lat[i] = unseen
	}
	return x
}

func (x *nodeIndex) has(id osm.NodeID) bool {
	_, ok := slices.BinarySearch(x.ids, id)
	return ok
}

func (x *nodeIndex) set(id osm.NodeID, lat, lon float64) {
	if i, ok := slices.BinarySearch(x.ids, id); ok {
		x.lat[i], x.lon[i] = int32(math.Round(lat*1e7)), int32(math.Round(lon*1e7))
	}
}

func (x *nodeIndex) get(id osm.NodeID) (lat, lon float64, ok bool) {
	i, found := slices.BinarySearch(x.ids, id)
	if !found || x.lat[i] == unseen {
		return 0, 0, false
	}
	return float64(x.lat[i]) / 1e7, float64(x.lon[i]) / 1e7, true
}
