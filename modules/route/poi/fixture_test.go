package poi_test

import (
	"bytes"
	"context"
	"slices"
	"sync"
	"testing"

	"cairn.dev/cairn/modules/route/osmfixture"
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
// (one unnamed), a cafe (a place to buy food), a closed camp-site way, a way
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

// writePBF encodes nodes and ways as an OSM PBF file with osmfixture's
// writer: paulmach/osm reads PBF but does not write it, and no data set is
// downloaded for tests.
func writePBF(t testing.TB, nodes []pbfNode, ways []pbfWay, o pbfOptions) []byte {
	t.Helper()
	per := o.nodesPerBlock
	if per <= 0 {
		per = max(1, len(nodes))
	}
	var file bytes.Buffer
	w, err := osmfixture.NewPBFWith(&file, osmfixture.PBFOptions{RawBlobs: !o.zlib, PlainNodes: o.plainNodes, NodesPerBlock: per})
	if err != nil {
		t.Fatal(err)
	}
	tags := func(ts []tag) []osmfixture.Tag {
		out := make([]osmfixture.Tag, len(ts))
		for i, x := range ts {
			out[i] = osmfixture.Tag(x)
		}
		return out
	}
	for _, n := range nodes {
		if err := w.Node(osmfixture.Node{ID: n.id, Lat: n.lat, Lon: n.lon, Tags: tags(n.tags)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, x := range ways {
		if err := w.Way(osmfixture.Way{ID: x.id, Refs: x.refs, Tags: tags(x.tags)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return file.Bytes()
}
