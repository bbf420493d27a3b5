package poi_test

import (
	"bytes"
	"compress/zlib"
	"context"
	"encoding/binary"
	"math"
	"slices"
	"sync"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"

	"cairn.dev/cairn/modules/route/poi"
)

// memory is an Upserter that keeps each batch, for importer tests that do
// not need an engine.
type memory struct {
	mu      sync.Mutex
	batches [][]poi.POI
}

func (m *memory) Upsert(_ context.Context, pois []poi.POI) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.batches = append(m.batches, slices.Clone(pois))
	return nil
}

func (m *memory) byID() map[string]poi.POI {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]poi.POI{}
	for _, b := range m.batches {
		for _, p := range b {
			out[p.ID] = p
		}
	}
	return out
}

// fixtureXML is a small extract written by hand: two accommodation nodes
// (one unnamed), an untagged-for-us cafe, a closed camp-site way, a way
// missing one node, a way missing all, a building that is no
// accommodation, a way carrying its nodes' coordinates, and a relation,
// which the importer does not read.
const fixtureXML = `<?xml version="1.0" encoding="UTF-8"?>
<osm version="0.6" generator="written by hand">
  <bounds minlat="45.0" minlon="6.0" maxlat="45.1" maxlon="6.1"/>
  <node id="1" lat="45.0500000" lon="6.0500000">
    <tag k="tourism" v="hotel"/>
    <tag k="name" v="Hôtel du Col"/>
    <tag k="stars" v="3"/>
    <tag k="website" v="https://hotel-du-col.example"/>
    <tag k="addr:housenumber" v="12"/>
    <tag k="addr:street" v="Rue Haute"/>
    <tag k="addr:postcode" v="05100"/>
    <tag k="addr:city" v="Briançon"/>
    <tag k="contact:phone" v="+33 4 92 00 00 00"/>
    <tag k="amenity" v="restaurant"/>
  </node>
  <node id="2" lat="45.06" lon="6.06">
    <tag k="amenity" v="cafe"/>
    <tag k="name" v="Café du Centre"/>
  </node>
  <node id="10" lat="45.0" lon="6.0"/>
  <node id="11" lat="45.0" lon="6.002"/>
  <node id="12" lat="45.002" lon="6.002"/>
  <node id="13" lat="45.002" lon="6.0"/>
  <node id="14" lat="45.01" lon="6.01">
    <tag k="tourism" v="wilderness_hut"/>
    <tag k="fee" v="no"/>
  </node>
  <node id="20" lat="45.03" lon="6.03"/>
  <way id="100">
    <nd ref="10"/><nd ref="11"/><nd ref="12"/><nd ref="13"/><nd ref="10"/>
    <tag k="tourism" v="camp_site"/>
    <tag k="name" v="Camping des Prés"/>
    <tag k="backpack" v="yes"/>
    <tag k="opening_hours" v="Apr-Oct"/>
  </way>
  <way id="101">
    <nd ref="20"/><nd ref="99"/>
    <tag k="tourism" v="hostel"/>
    <tag k="name" v="Half Hostel"/>
  </way>
  <way id="102">
    <nd ref="97"/><nd ref="98"/>
    <tag k="tourism" v="chalet"/>
  </way>
  <way id="103">
    <nd ref="10"/><nd ref="11"/>
    <tag k="building" v="yes"/>
  </way>
  <way id="104">
    <nd ref="40" lat="45.08" lon="6.08"/><nd ref="41" lat="45.09" lon="6.09"/>
    <tag k="tourism" v="guest_house"/>
    <tag k="name" v="Gîte Inline"/>
  </way>
  <relation id="500">
    <member type="way" ref="103" role="outer"/>
    <tag k="tourism" v="hotel"/>
    <tag k="type" v="multipolygon"/>
  </relation>
</osm>
`

// The same data as fixtureXML, for the PBF writer. The PBF has no inline
// way coordinates, so way 104's nodes are ordinary nodes there.
type (
	tag     [2]string
	pbfNode struct {
		id       int64
		lat, lon float64
		tags     []tag
	}
	pbfWay struct {
		id   int64
		refs []int64
		tags []tag
	}
)

var fixtureNodes = []pbfNode{
	{id: 1, lat: 45.05, lon: 6.05, tags: []tag{{"tourism", "hotel"}, {"name", "Hôtel du Col"}, {"stars", "3"},
		{"website", "https://hotel-du-col.example"}, {"addr:housenumber", "12"}, {"addr:street", "Rue Haute"},
		{"addr:postcode", "05100"}, {"addr:city", "Briançon"}, {"contact:phone", "+33 4 92 00 00 00"},
		{"amenity", "restaurant"}}},
	{id: 2, lat: 45.06, lon: 6.06, tags: []tag{{"amenity", "cafe"}, {"name", "Café du Centre"}}},
	{id: 10, lat: 45.0, lon: 6.0},
	{id: 11, lat: 45.0, lon: 6.002},
	{id: 12, lat: 45.002, lon: 6.002},
	{id: 13, lat: 45.002, lon: 6.0},
	{id: 14, lat: 45.01, lon: 6.01, tags: []tag{{"tourism", "wilderness_hut"}, {"fee", "no"}}},
	{id: 20, lat: 45.03, lon: 6.03},
	{id: 40, lat: 45.08, lon: 6.08},
	{id: 41, lat: 45.09, lon: 6.09},
}

var fixtureWays = []pbfWay{
	{id: 100, refs: []int64{10, 11, 12, 13, 10}, tags: []tag{{"tourism", "camp_site"}, {"name", "Camping des Prés"},
		{"backpack", "yes"}, {"opening_hours", "Apr-Oct"}}},
	{id: 101, refs: []int64{20, 99}, tags: []tag{{"tourism", "hostel"}, {"name", "Half Hostel"}}},
	{id: 102, refs: []int64{97, 98}, tags: []tag{{"tourism", "chalet"}}},
	{id: 103, refs: []int64{10, 11}, tags: []tag{{"building", "yes"}}},
	{id: 104, refs: []int64{40, 41}, tags: []tag{{"tourism", "guest_house"}, {"name", "Gîte Inline"}}},
}

// pbfOptions shape the file the writer makes.
type pbfOptions struct {
	zlib          bool // compress blobs (as every real file does) or store them raw
	nodesPerBlock int  // 0: all nodes in one block
	plainNodes    bool // store nodes one by one instead of as dense nodes
}

// writePBF encodes nodes and ways as an OSM PBF file, following the
// published format (fileformat.proto, osmformat.proto): a header block, then
// data blocks of dense nodes, then a block of ways. paulmach/osm reads PBF
// but does not write it, and no data set is downloaded for tests, so the
// fixture is made here with protowire.
func writePBF(t testing.TB, nodes []pbfNode, ways []pbfWay, o pbfOptions) []byte {
	t.Helper()
	var file bytes.Buffer
	header := appendStrings(nil, 4, "OsmSchema-V0.6", "DenseNodes")
	header = protowire.AppendTag(header, 16, protowire.BytesType)
	header = protowire.AppendString(header, "cairn poi tests")
	writeBlock(t, &file, "OSMHeader", header, o.zlib)

	per := o.nodesPerBlock
	if per <= 0 {
		per = max(1, len(nodes))
	}
	for chunk := range slices.Chunk(nodes, per) {
		block := denseBlock(chunk)
		if o.plainNodes {
			block = plainBlock(chunk)
		}
		writeBlock(t, &file, "OSMData", block, o.zlib)
	}
	if len(ways) > 0 {
		writeBlock(t, &file, "OSMData", wayBlock(ways), o.zlib)
	}
	return file.Bytes()
}

// stringTable numbers strings from 1: index 0 is the empty string, which
// dense nodes use as the end of each node's keys.
type stringTable struct {
	index map[string]uint64
	list  []string
}

func newStringTable() *stringTable {
	return &stringTable{index: map[string]uint64{"": 0}, list: []string{""}}
}

func (s *stringTable) id(v string) uint64 {
	if i, ok := s.index[v]; ok {
		return i
	}
	s.index[v] = uint64(len(s.list))
	s.list = append(s.list, v)
	return s.index[v]
}

func (s *stringTable) bytes() []byte {
	var b []byte
	for _, v := range s.list {
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendString(b, v)
	}
	return b
}

// primitiveBlock wraps one group with its string table, at granularity 100
// nanodegrees (coordinates in units of 1e-7 degree).
func primitiveBlock(st *stringTable, group []byte) []byte {
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendBytes(b, st.bytes())
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendBytes(b, group)
	b = protowire.AppendTag(b, 17, protowire.VarintType)
	b = protowire.AppendVarint(b, 100)
	return b
}

func denseBlock(nodes []pbfNode) []byte {
	st := newStringTable()
	var ids, lats, lons, keysVals []byte
	var prevID, prevLat, prevLon int64
	for _, n := range nodes {
		lat, lon := int64(math.Round(n.lat*1e7)), int64(math.Round(n.lon*1e7))
		ids = protowire.AppendVarint(ids, protowire.EncodeZigZag(n.id-prevID))
		lats = protowire.AppendVarint(lats, protowire.EncodeZigZag(lat-prevLat))
		lons = protowire.AppendVarint(lons, protowire.EncodeZigZag(lon-prevLon))
		prevID, prevLat, prevLon = n.id, lat, lon
		for _, kv := range n.tags {
			keysVals = protowire.AppendVarint(keysVals, st.id(kv[0]))
			keysVals = protowire.AppendVarint(keysVals, st.id(kv[1]))
		}
		keysVals = protowire.AppendVarint(keysVals, 0)
	}
	var dense []byte
	for _, f := range []struct {
		num  protowire.Number
		data []byte
	}{{1, ids}, {8, lats}, {9, lons}, {10, keysVals}} {
		dense = protowire.AppendTag(dense, f.num, protowire.BytesType)
		dense = protowire.AppendBytes(dense, f.data)
	}
	var group []byte
	group = protowire.AppendTag(group, 2, protowire.BytesType)
	group = protowire.AppendBytes(group, dense)
	return primitiveBlock(st, group)
}

// plainBlock stores nodes as Node messages, a layout the format allows
// but paulmach/osm cannot read.
func plainBlock(nodes []pbfNode) []byte {
	st := newStringTable()
	var group []byte
	for _, n := range nodes {
		var keys, vals []byte
		for _, kv := range n.tags {
			keys = protowire.AppendVarint(keys, st.id(kv[0]))
			vals = protowire.AppendVarint(vals, st.id(kv[1]))
		}
		var node []byte
		node = protowire.AppendTag(node, 1, protowire.VarintType)
		node = protowire.AppendVarint(node, protowire.EncodeZigZag(n.id))
		node = protowire.AppendTag(node, 2, protowire.BytesType)
		node = protowire.AppendBytes(node, keys)
		node = protowire.AppendTag(node, 3, protowire.BytesType)
		node = protowire.AppendBytes(node, vals)
		node = protowire.AppendTag(node, 8, protowire.VarintType)
		node = protowire.AppendVarint(node, protowire.EncodeZigZag(int64(math.Round(n.lat*1e7))))
		node = protowire.AppendTag(node, 9, protowire.VarintType)
		node = protowire.AppendVarint(node, protowire.EncodeZigZag(int64(math.Round(n.lon*1e7))))
		group = protowire.AppendTag(group, 1, protowire.BytesType)
		group = protowire.AppendBytes(group, node)
	}
	return primitiveBlock(st, group)
}

func wayBlock(ways []pbfWay) []byte {
	st := newStringTable()
	var group []byte
	for _, w := range ways {
		var keys, vals, refs []byte
		for _, kv := range w.tags {
			keys = protowire.AppendVarint(keys, st.id(kv[0]))
			vals = protowire.AppendVarint(vals, st.id(kv[1]))
		}
		var prev int64
		for _, r := range w.refs {
			refs = protowire.AppendVarint(refs, protowire.EncodeZigZag(r-prev))
			prev = r
		}
		var way []byte
		way = protowire.AppendTag(way, 1, protowire.VarintType)
		way = protowire.AppendVarint(way, uint64(w.id))
		way = protowire.AppendTag(way, 2, protowire.BytesType)
		way = protowire.AppendBytes(way, keys)
		way = protowire.AppendTag(way, 3, protowire.BytesType)
		way = protowire.AppendBytes(way, vals)
		way = protowire.AppendTag(way, 8, protowire.BytesType)
		way = protowire.AppendBytes(way, refs)
		group = protowire.AppendTag(group, 3, protowire.BytesType)
		group = protowire.AppendBytes(group, way)
	}
	return primitiveBlock(st, group)
}

func appendStrings(b []byte, num protowire.Number, values ...string) []byte {
	for _, v := range values {
		b = protowire.AppendTag(b, num, protowire.BytesType)
		b = protowire.AppendString(b, v)
	}
	return b
}

// writeBlock writes one file block: the header's length (4 bytes, big
// endian), the BlobHeader, then the Blob holding data.
func writeBlock(t testing.TB, w *bytes.Buffer, kind string, data []byte, compress bool) {
	t.Helper()
	var blob []byte
	if compress {
		var z bytes.Buffer
		zw := zlib.NewWriter(&z)
		if _, err := zw.Write(data); err != nil {
			t.Fatal(err)
		}
		if err := zw.Close(); err != nil {
			t.Fatal(err)
		}
		blob = protowire.AppendTag(blob, 2, protowire.VarintType)
		blob = protowire.AppendVarint(blob, uint64(len(data)))
		blob = protowire.AppendTag(blob, 3, protowire.BytesType)
		blob = protowire.AppendBytes(blob, z.Bytes())
	} else {
		blob = protowire.AppendTag(blob, 1, protowire.BytesType)
		blob = protowire.AppendBytes(blob, data)
	}
	header := appendStrings(nil, 1, kind)
	header = protowire.AppendTag(header, 3, protowire.VarintType)
	header = protowire.AppendVarint(header, uint64(len(blob)))

	var size [4]byte
	binary.BigEndian.PutUint32(size[:], uint32(len(header)))
	w.Write(size[:])
	w.Write(header)
	w.Write(blob)
}
