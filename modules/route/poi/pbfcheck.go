package poi

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"google.golang.org/protobuf/encoding/protowire"
)

// ErrUnsupportedPBF refuses a PBF file that the decoder cannot read safely.
var ErrUnsupportedPBF = errors.New("poi: unsupported PBF file")

// The decoder's own limits on a file block (paulmach/osm v0.8.0).
const (
	maxBlobHeaderSize = 64 << 10
	maxBlobSize       = 32 << 20
)

// checkPBF reads the file blocks up to the first data block and refuses a
// file that stores its nodes one by one instead of as dense nodes: the
// decoder panics on them in a goroutine of its own, which no caller can
// recover, so it must never see one. Writers use one layout for a whole
// file, so the first data block tells. It leaves rs where it found it.
func checkPBF(rs io.ReadSeeker) error {
	start, err := rs.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	defer rs.Seek(start, io.SeekStart)
	for {
		kind, blob, err := readFileBlock(rs)
		if errors.Is(err, io.EOF) {
			return nil // no data block: nothing to decode
		}
		if err != nil {
			return fmt.Errorf("%w: %v", ErrUnsupportedPBF, err)
		}
		if kind != "OSMData" {
			continue
		}
		data, err := blobData(blob)
		if err != nil {
			return fmt.Errorf("%w: %v", ErrUnsupportedPBF, err)
		}
		if hasPlainNodes(data) {
			return fmt.Errorf("%w: nodes are not stored as dense nodes", ErrUnsupportedPBF)
		}
		return nil
	}
}

// readFileBlock reads one block: its type and the Blob message.
func readFileBlock(r io.Reader) (kind string, blob []byte, err error) {
	var size [4]byte
	if _, err := io.ReadFull(r, size[:]); err != nil {
		return "", nil, err
	}
	n := binary.BigEndian.Uint32(size[:])
	if n >= maxBlobHeaderSize {
		return "", nil, errors.New("block header too large")
	}
	header := make([]byte, n)
	if _, err := io.ReadFull(r, header); err != nil {
		return "", nil, unexpectedEOF(err)
	}
	var dataSize uint64
	err = eachField(header, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) {
		switch {
		case num == 1 && typ == protowire.BytesType:
			kind = string(v)
		case num == 3 && typ == protowire.VarintType:
			dataSize = x
		}
	})
	if err != nil {
		return "", nil, err
	}
	if dataSize >= maxBlobSize {
		return "", nil, errors.New("block too large")
	}
	blob = make([]byte, dataSize)
	if _, err := io.ReadFull(r, blob); err != nil {
		return "", nil, unexpectedEOF(err)
	}
	return kind, blob, nil
}

func unexpectedEOF(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// blobData returns a Blob's content, raw or inflated.
func blobData(blob []byte) ([]byte, error) {
	var raw, compressed []byte
	var rawSize uint64
	err := eachField(blob, func(num protowire.Number, typ protowire.Type, v []byte, x uint64) {
		switch {
		case num == 1 && typ == protowire.BytesType:
			raw = v
		case num == 2 && typ == protowire.VarintType:
			rawSize = x
		case num == 3 && typ == protowire.BytesType:
			compressed = v
		}
	})
	switch {
	case err != nil:
		return nil, err
	case raw != nil:
		return raw, nil
	case compressed == nil:
		return nil, errors.New("unknown blob compression")
	case rawSize >= maxBlobSize:
		return nil, errors.New("block too large")
	}
	zr, err := zlib.NewReader(bytes.NewReader(compressed))
	if err != nil {
		return nil, err
	}
	defer zr.Close()
	return io.ReadAll(io.LimitReader(zr, maxBlobSize))
}

// hasPlainNodes reports whether a PrimitiveBlock holds a group with Node
// messages (field 1 of PrimitiveGroup, field 2 of PrimitiveBlock).
func hasPlainNodes(block []byte) bool {
	found := false
	_ = eachField(block, func(num protowire.Number, typ protowire.Type, group []byte, _ uint64) {
		if num != 2 || typ != protowire.BytesType || found {
			return
		}
		_ = eachField(group, func(num protowire.Number, _ protowire.Type, _ []byte, _ uint64) {
			found = found || num == 1
		})
	})
	return found
}

// eachField walks the top-level fields of a protobuf message, handing
// length-delimited values as bytes and varints as numbers.
func eachField(b []byte, f func(num protowire.Number, typ protowire.Type, bytes []byte, varint uint64)) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		b = b[n:]
		switch typ {
		case protowire.BytesType:
			v, m := protowire.ConsumeBytes(b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			f(num, typ, v, 0)
			n = m
		case protowire.VarintType:
			v, m := protowire.ConsumeVarint(b)
			if m < 0 {
				return protowire.ParseError(m)
			}
			f(num, typ, nil, v)
			n = m
		default:
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return protowire.ParseError(n)
			}
		}
		b = b[n:]
	}
	return nil
}
