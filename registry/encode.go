package registry

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	fastjson "github.com/segmentio/encoding/json"
)

// Encoded is implemented by outputs that carry their own JSON: an answer
// kept by its record's revision, encoded once rather than at every read.
// Both faces send it as it is (Encode), so it must be what json.Marshal
// gives for the output, compact. A nil answer is none: the output is
// marshalled.
type Encoded interface{ EncodedJSON() []byte }

// Kept is implemented by an Encoded output given again from memory. What a
// process keeps to answer again is what its collector follows at every
// cycle: a decoded answer is hundreds of small objects, its JSON one. So a
// kept answer may be abridged: its Go value then holds only what the faces
// read through the interfaces it implements (Versioned, Localized,
// Settling, ...), and a face reads everything else from its JSON. Its
// Rendering is where a face keeps what it derives from that JSON (MCP's
// text content), shared by every call given the same answer; nil when the
// answer is not kept.
type Kept interface {
	Encoded
	// Abridged reports whether the Go value holds less than its JSON.
	Abridged() bool
	// Rendering is the answer's rendering, kept beside it.
	Rendering() *Rendering
}

// Rendering is a face's text of a kept answer: a function of the answer's
// type and JSON alone, made once and read by every call given the answer.
// It is safe for concurrent use; two calls rendering it at once keep the
// same text.
type Rendering struct{ text atomic.Pointer[string] }

// Text is the text kept, false while none is.
func (r *Rendering) Text() (string, bool) {
	if t := r.text.Load(); t != nil {
		return *t, true
	}
	return "", false
}

// Keep keeps text as the rendering.
func (r *Rendering) Keep(text string) { r.text.Store(&text) }

// Encode is the JSON both faces send for out: its own (Encoded), else the
// bytes json.Marshal gives for it. The bytes of an Encoded output are
// shared: they are never changed.
func Encode(out any) ([]byte, error) {
	if e, ok := out.(Encoded); ok {
		if b := e.EncodedJSON(); b != nil {
			return b, nil
		}
	}
	return Marshal(out)
}

// Marshal gives the bytes json.Marshal gives for v, written by
// segmentio/encoding's encoder where that is known to give the same: a
// page of 20 trips in 7.6 µs against encoding/json's 20.7, a 16-day
// get_trip answer in 10 µs against 17, with a fraction of the allocations
// (BenchmarkEncodeAnswer in the trips module). The two differ on some
// values (FastEncodable), which are left to encoding/json.
func Marshal(v any) ([]byte, error) {
	if v != nil && FastEncodable(reflect.TypeOf(v)) {
		return fastjson.Marshal(v)
	}
	return json.Marshal(v)
}

// fastTypes caches FastEncodable by type: a walk of a type is done once.
var fastTypes sync.Map // reflect.Type → bool

// FastEncodable reports whether Marshal writes values of t with
// segmentio/encoding's encoder: whether they encode the same through it as
// through encoding/json's. A product may assert it of its hot outputs. Neither t nor
// any type it holds may be one on which they are known to differ, or may
// differ unseen:
//   - an interface: what it holds is known only at run time;
//   - a field with the omitzero option, which that encoder does not know,
//     or the string option (a nil pointer is "null" there, null here);
//   - time.Duration, which that encoder writes as text ("1s");
//   - two fields of one name in a struct, which encoding/json both leaves
//     out and that encoder both writes;
//   - a type with its own MarshalJSON or MarshalText but time.Time: that
//     encoder refuses what encoding/json compacts (leading spaces).
func FastEncodable(t reflect.Type) bool {
	if ok, found := fastTypes.Load(t); found {
		return ok.(bool)
	}
	ok := walkEncodable(t, map[reflect.Type]bool{})
	fastTypes.Store(t, ok)
	return ok
}

var (
	timeType      = reflect.TypeFor[time.Time]()
	durationType  = reflect.TypeFor[time.Duration]()
	marshalerType = reflect.TypeFor[json.Marshaler]()
	texterType    = reflect.TypeFor[encoding.TextMarshaler]()
)

func walkEncodable(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return true // a recursive type: its other fields decide
	}
	seen[t] = true
	switch {
	case t.Kind() == reflect.Pointer:
		return walkEncodable(t.Elem(), seen) // its element's methods are its own
	case t == timeType:
		return true
	case t == durationType, t.Kind() == reflect.Interface:
		return false
	case reflect.PointerTo(t).Implements(marshalerType), reflect.PointerTo(t).Implements(texterType):
		return false // a method of t's is one of *t's too
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return walkEncodable(t.Elem(), seen)
	case reflect.Map:
		return walkEncodable(t.Key(), seen) && walkEncodable(t.Elem(), seen)
	case reflect.Struct:
		names := map[string]bool{}
		for i := range t.NumField() {
			f := t.Field(i)
			if !f.IsExported() && !f.Anonymous {
				continue // never encoded
			}
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" && !f.Anonymous {
				name = f.Name
			}
			if name != "" && name != "-" && names[name] {
				return false // two fields of one name
			}
			names[name] = true
			options := strings.Split(opts, ",")
			if slices.Contains(options, "omitzero") || slices.Contains(options, "string") || !walkEncodable(f.Type, seen) {
				return false
			}
		}
	}
	return true
}
