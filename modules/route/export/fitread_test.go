package export_test

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// fitFile is a FIT file read back by readFIT, a reader written for the
// tests from the FIT protocol description and independent of the writer:
// it checks the framing (sizes and both CRCs) and yields every data
// message with its raw field bytes.
type fitFile struct {
	protocol, headerSize byte
	profile              uint16
	dataSize             uint32
	messages             []fitMessage
}

// fitMessage is a data message: its global number and field bytes by field
// number, plus each field's base type.
type fitMessage struct {
	global uint16
	fields map[byte][]byte
	base   map[byte]byte
}

func (m fitMessage) u8(num byte) byte    { return m.fields[num][0] }
func (m fitMessage) u16(num byte) uint16 { return binary.LittleEndian.Uint16(m.fields[num]) }
func (m fitMessage) u32(num byte) uint32 { return binary.LittleEndian.Uint32(m.fields[num]) }
func (m fitMessage) s32(num byte) int32  { return int32(binary.LittleEndian.Uint32(m.fields[num])) }
func (m fitMessage) str(num byte) string {
	b := m.fields[num]
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// fitCRCTable is the nibble table of the FIT protocol's CRC description, a
// different computation from the writer's bitwise one.
var fitCRCTable = [16]uint16{
	0x0000, 0xCC01, 0xD801, 0x1400, 0xF001, 0x3C00, 0x2800, 0xE401,
	0xA001, 0x6C00, 0x7800, 0xB401, 0x5000, 0x9C01, 0x8801, 0x4400,
}

func fitCRC(p []byte) uint16 {
	var crc uint16
	for _, b := range p {
		for _, nibble := range [2]byte{b & 0xF, b >> 4} {
			tmp := fitCRCTable[crc&0xF]
			crc = (crc>>4)&0x0FFF ^ tmp ^ fitCRCTable[nibble]
		}
	}
	return crc
}

type fitDefinition struct {
	global uint16
	fields [][3]byte // number, size, base type
}

func readFIT(b []byte) (fitFile, error) {
	if len(b) < 14+2 {
		return fitFile{}, errors.New("shorter than a header and a CRC")
	}
	f := fitFile{
		headerSize: b[0],
		protocol:   b[1],
		profile:    binary.LittleEndian.Uint16(b[2:]),
		dataSize:   binary.LittleEndian.Uint32(b[4:]),
	}
	if f.headerSize != 14 || string(b[8:12]) != ".FIT" {
		return fitFile{}, errors.New("not a 14-byte FIT header")
	}
	if got, want := fitCRC(b[:12]), binary.LittleEndian.Uint16(b[12:]); got != want {
		return fitFile{}, fmt.Errorf("header CRC %#04x, computed %#04x", want, got)
	}
	if int(f.dataSize) != len(b)-14-2 {
		return fitFile{}, fmt.Errorf("data size %d, file holds %d", f.dataSize, len(b)-16)
	}
	if fitCRC(b) != 0 {
		// A CRC appended little-endian makes the CRC of the whole zero.
		return fitFile{}, errors.New("file CRC does not verify")
	}

	data := b[14 : len(b)-2]
	defs := map[byte]fitDefinition{}
	for len(data) > 0 {
		header := data[0]
		data = data[1:]
		if header&0x80 != 0 {
			return fitFile{}, errors.New("compressed timestamp header")
		}
		if header&0x20 != 0 {
			return fitFile{}, errors.New("developer data")
		}
		local := header & 0x0F
		if header&0x40 != 0 {
			if len(data) < 5 {
				return fitFile{}, errors.New("truncated definition")
			}
			if data[1] != 0 {
				return fitFile{}, errors.New("big-endian definition")
			}
			def := fitDefinition{global: binary.LittleEndian.Uint16(data[2:])}
			n := int(data[4])
			data = data[5:]
			if len(data) < 3*n {
				return fitFile{}, errors.New("truncated field definitions")
			}
			for i := range n {
				def.fields = append(def.fields, [3]byte{data[3*i], data[3*i+1], data[3*i+2]})
			}
			data = data[3*n:]
			defs[local] = def
			continue
		}
		def, ok := defs[local]
		if !ok {
			return fitFile{}, fmt.Errorf("data message of undefined local type %d", local)
		}
		m := fitMessage{global: def.global, fields: map[byte][]byte{}, base: map[byte]byte{}}
		for _, fd := range def.fields {
			size := int(fd[1])
			if len(data) < size {
				return fitFile{}, errors.New("truncated data message")
			}
			m.fields[fd[0]], m.base[fd[0]] = data[:size], fd[2]
			data = data[size:]
		}
		f.messages = append(f.messages, m)
	}
	return f, nil
}

// ofGlobal returns the messages with global number g, in file order.
func (f fitFile) ofGlobal(g uint16) []fitMessage {
	var out []fitMessage
	for _, m := range f.messages {
		if m.global == g {
			out = append(out, m)
		}
	}
	return out
}
