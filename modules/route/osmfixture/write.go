// Package osmfixture writes OpenStreetMap extracts made up for tests and
// benchmarks: OSM XML, or PBF (dense nodes and zlib blobs, or the other
// layouts the format allows) streamed block by block, so that an extract of millions of elements costs one block of
// memory. paulmach/osm reads both formats but writes neither, and no real
// extract is downloaded for a test.
package osmfixture

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Tag is a key and its value.
type Tag [2]string

// Node is a point of the map.
type Node struct {
	ID       int64
	Lat, Lon float64
	Tags     []Tag
}

// Way is a line through nodes.
type Way struct {
	ID   int64
	Refs []int64
	Tags []Tag
}

// Writer writes an extract: every node first, then every way, as both
// formats order them.
type Writer interface {
	Node(n Node) error
	Way(w Way) error
	Close() error
}

// ErrOrder refuses a node written after a way.
var ErrOrder = errors.New("osmfixture: nodes come before ways")

// NewXML writes OSM XML to w.
func NewXML(w io.Writer) (Writer, error) {
	b := bufio.NewWriterSize(w, 1<<16)
	_, err := b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<osm version="0.6" generator="cairn osmfixture">` + "\n")
	return &xmlWriter{w: b}, err
}

type xmlWriter struct {
	w     *bufio.Writer
	inWay bool
}

func (x *xmlWriter) Node(n Node) error {
	if x.inWay {
		return ErrOrder
	}
	fmt.Fprintf(x.w, `  <node id="%d" lat="%.7f" lon="%.7f"`, n.ID, n.Lat, n.Lon)
	if len(n.Tags) == 0 {
		_, err := x.w.WriteString("/>\n")
		return err
	}
	x.w.WriteString(">\n")
	x.tags(n.Tags)
	_, err := x.w.WriteString("  </node>\n")
	return err
}

func (x *xmlWriter) Way(w Way) error {
	x.inWay = true
	fmt.Fprintf(x.w, "  <way id=\"%d\">\n", w.ID)
	for _, r := range w.Refs {
		fmt.Fprintf(x.w, "    <nd ref=\"%d\"/>\n", r)
	}
	x.tags(w.Tags)
	_, err := x.w.WriteString("  </way>\n")
	return err
}

func (x *xmlWriter) tags(tags []Tag) {
	for _, t := range tags {
		x.w.WriteString(`    <tag k="`)
		xml.EscapeText(x.w, []byte(t[0]))
		x.w.WriteString(`" v="`)
		xml.EscapeText(x.w, []byte(t[1]))
		x.w.WriteString("\"/>\n")
	}
}

func (x *xmlWriter) Close() error {
	if _, err := x.w.WriteString("</osm>\n"); err != nil {
		return err
	}
	return x.w.Flush()
}

// BlockSize is how many elements one PBF data block holds, as writers
// commonly use.
const BlockSize = 8000

// PBFOptions shape a PBF file; the zero value is what real writers make.
type PBFOptions struct {
	RawBlobs      bool // store blobs uncompressed instead of zlib
	PlainNodes    bool // store nodes one by one, a layout paulmach/osm cannot read
	NodesPerBlock int  // 0: BlockSize
}

// NewPBF writes PBF to w, following the published format (fileformat.proto,
// osmformat.proto).
func NewPBF(w io.Writer) (Writer, error) { return NewPBFWith(w, PBFOptions{}) }

// NewPBFWith writes PBF to w shaped by o.
func NewPBFWith(w io.Writer, o PBFOptions) (Writer, error) {
	if o.NodesPerBlock <= 0 {
		o.NodesPerBlock = BlockSize
	}
	p := &pbfWriter{w: w, o: o}
	header := appendString(nil, 4, "OsmSchema-V0.6")
	header = appendString(header, 4, "DenseNodes")
	header = appendString(header, 16, "cairn osmfixture")
	return p, p.block("OSMHeader", header)
}

type pbfWriter struct {
	w     io.Writer
	o     PBFOptions
	nodes []Node
	ways  []Way
	inWay bool
	z     bytes.Buffer
}

func (p *pbfWriter) Node(n Node) error {
	if p.inWay {
		return ErrOrder
	}
	p.nodes = append(p.nodes, n)
	if len(p.nodes) >= p.o.NodesPerBlock {
		return p.flushNodes()
	}
	return nil
}

func (p *pbfWriter) Way(w Way) error {
	if !p.inWay {
		p.inWay = true
		if err := p.flushNodes(); err != nil {
			return err
		}
	}
	p.ways = append(p.ways, w)
	if len(p.ways) >= BlockSize {
		return p.flushWays()
	}
	return nil
}

func (p *pbfWriter) Close() error {
	if err := p.flushNodes(); err != nil {
		return err
	}
	return p.flushWays()
}

func (p *pbfWriter) flushNodes() error {
	if len(p.nodes) == 0 {
		return nil
	}
	st := newStrings()
	if p.o.PlainNodes {
		var group []byte
		for _, n := range p.nodes {
			var keys, vals []byte
			for _, t := range n.Tags {
				keys = protowire.AppendVarint(keys, st.id(t[0]))
				vals = protowire.AppendVarint(vals, st.id(t[1]))
			}
			var node []byte
			node = protowire.AppendTag(node, 1, protowire.VarintType)
			node = protowire.AppendVarint(node, protowire.EncodeZigZag(n.ID))
			node = appendBytes(node, 2, keys)
			node = appendBytes(node, 3, vals)
			node = protowire.AppendTag(node, 8, protowire.VarintType)
			node = protowire.AppendVarint(node, protowire.EncodeZigZag(int64(math.Round(n.Lat*1e7))))
			node = protowire.AppendTag(node, 9, protowire.VarintType)
			node = protowire.AppendVarint(node, protowire.EncodeZigZag(int64(math.Round(n.Lon*1e7))))
			group = appendBytes(group, 1, node)
		}
		p.nodes = p.nodes[:0]
		return p.block("OSMData", primitive(st, group))
	}
	var ids, lats, lons, kv []byte
	var pid, plat, plon int64
	for _, n := range p.nodes {
		lat, lon := int64(math.Round(n.Lat*1e7)), int64(math.Round(n.Lon*1e7))
		ids = protowire.AppendVarint(ids, protowire.EncodeZigZag(n.ID-pid))
		lats = protowire.AppendVarint(lats, protowire.EncodeZigZag(lat-plat))
		lons = protowire.AppendVarint(lons, protowire.EncodeZigZag(lon-plon))
		pid, plat, plon = n.ID, lat, lon
		for _, t := range n.Tags {
			kv = protowire.AppendVarint(kv, st.id(t[0]))
			kv = protowire.AppendVarint(kv, st.id(t[1]))
		}
		kv = protowire.AppendVarint(kv, 0)
	}
	var dense []byte
	dense = appendBytes(dense, 1, ids)
	dense = appendBytes(dense, 8, lats)
	dense = appendBytes(dense, 9, lons)
	dense = appendBytes(dense, 10, kv)
	p.nodes = p.nodes[:0]
	return p.block("OSMData", primitive(st, appendBytes(nil, 2, dense)))
}

func (p *pbfWriter) flushWays() error {
	if len(p.ways) == 0 {
		return nil
	}
	st := newStrings()
	var group []byte
	for _, w := range p.ways {
		var keys, vals, refs []byte
		for _, t := range w.Tags {
			keys = protowire.AppendVarint(keys, st.id(t[0]))
			vals = protowire.AppendVarint(vals, st.id(t[1]))
		}
		var prev int64
		for _, r := range w.Refs {
			refs = protowire.AppendVarint(refs, protowire.EncodeZigZag(r-prev))
			prev = r
		}
		var way []byte
		way = protowire.AppendTag(way, 1, protowire.VarintType)
		way = protowire.AppendVarint(way, uint64(w.ID))
		way = appendBytes(way, 2, keys)
		way = appendBytes(way, 3, vals)
		way = appendBytes(way, 8, refs)
		group = appendBytes(group, 3, way)
	}
	p.ways = p.ways[:0]
	return p.block("OSMData", primitive(st, group))
}

// block writes one file block: the BlobHeader's length (4 bytes, big
// endian), the BlobHeader, then the Blob, its data zlib-compressed.
func (p *pbfWriter) block(kind string, data []byte) error {
	var blob []byte
	if p.o.RawBlobs {
		blob = appendBytes(blob, 1, data)
	} else {
		p.z.Reset()
		zw := zlib.NewWriter(&p.z)
		if _, err := zw.Write(data); err != nil {
			return err
		}
		if err := zw.Close(); err != nil {
			return err
		}
		blob = protowire.AppendTag(blob, 2, protowire.VarintType)
		blob = protowire.AppendVarint(blob, uint64(len(data)))
		blob = appendBytes(blob, 3, p.z.Bytes())
	}
	header := appendString(nil, 1, kind)
	header = protowire.AppendTag(header, 3, protowire.VarintType)
	header = protowire.AppendVarint(header, uint64(len(blob)))
	var size [4]byte
	binary.BigEndian.PutUint32(size[:], uint32(len(header)))
	for _, b := range [][]byte{size[:], header, blob} {
		if _, err := p.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// stringTable numbers a block's strings from 1: 0 is the empty string,
// which ends each dense node's keys.
type stringTable struct {
	index map[string]uint64
	list  []string
}

func newStrings() *stringTable {
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

// primitive wraps one group with its string table, at the default
// granularity (1e-7 degree).
func primitive(st *stringTable, group []byte) []byte {
	var table []byte
	for _, v := range st.list {
		table = appendString(table, 1, v)
	}
	b := appendBytes(nil, 1, table)
	b = appendBytes(b, 2, group)
	b = protowire.AppendTag(b, 17, protowire.VarintType)
	return protowire.AppendVarint(b, 100)
}

func appendBytes(b []byte, num protowire.Number, v []byte) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendBytes(b, v)
}

func appendString(b []byte, num protowire.Number, v string) []byte {
	b = protowire.AppendTag(b, num, protowire.BytesType)
	return protowire.AppendString(b, v)
}
