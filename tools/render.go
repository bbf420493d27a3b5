package tools

import (
	"bytes"
	"encoding"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	fastjson "github.com/segmentio/encoding/json"

	"cairn.dev/cairn/registry"
)

// The text content of a result is a compact rendering of its structured
// content, not the same JSON again: a model reads one or the other, and
// JSON repeated inside a JSON string pays for every quote twice. The
// rendering keeps every field and value:
//
//	key: value                 a scalar (strings as they are, quoted as JSON
//	                           only when empty, when they hold a newline or
//	                           a separator, or would read as a number)
//	key:                       an object, its fields indented below
//	key: [a, b]                a list of scalars
//	key: 30 rows               a list of objects, as a table: one header of
//	  id | distance | end.lat  columns (nested objects flattened with dots),
//	  s1 | 80.5 | 43.6         then one line per object; an empty cell is an
//	                           absent field, [] an empty list
//
// Key order is the order of the structured content.
//
// A rendering longer than TextBudget would cost more than the structured
// content it repeats: the text then keeps every scalar and list of scalars
// but says of each object and each list of objects only how many fields or
// rows it has and that they are in the structured content ("days: 30 rows,
// in structuredContent", "settings: 11 fields, in structuredContent").

// TextBudget is the longest full rendering sent as text content.
const TextBudget = 2048

// field is one member of a JSON object, in document order.
type field struct {
	key string
	val any // json.Number, string, bool, nil, []field (object) or []any
}

// render writes the compact text of a JSON document, within budget bytes
// when the full rendering would exceed it and a summary does not.
func render(raw []byte, budget int) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	v, err := decodeOrdered(dec)
	if err != nil {
		return "", err
	}
	text, _ := renderWithin(v, budget)
	return text, nil
}

// renderGo writes the compact text of a Go value: the same text as render
// of its JSON encoding, read from the value itself instead of decoding the
// JSON again, which cost a tool call a fifth of its time. A value the walk
// cannot follow exactly as encoding/json would (a type of its own encoding
// in a map key, a ",string" option, fields that collide) is rendered from
// its JSON, raw.
//
// The value is walked as the rendering reads it (lazy): a result past the
// budget is summarised, and the summary names its lists of objects by
// their length alone, so most of a long result is never walked.
func renderGo(v any, raw []byte, budget int) (string, error) {
	tree, ok := treeOf(reflect.ValueOf(v), true)
	if !ok {
		return render(raw, budget)
	}
	text, ok := renderWithin(tree, budget)
	if !ok {
		return render(raw, budget)
	}
	return text, nil
}

// renderEncoded writes the compact text of raw, the JSON of out, whose
// value holds less than raw (an abridged answer, registry.Kept): raw is
// decoded into a new value of out's type, which renderGo walks, at half
// the cost of decoding raw in order (render; BenchmarkRender). A type that may not
// decode to a value encoding to raw again (registry.FastEncodable: an
// interface, a type of its own encoding) is rendered from raw, in order.
func renderEncoded(out any, raw []byte, budget int) (string, error) {
	t := reflect.TypeOf(out)
	if t == nil || !registry.FastEncodable(t) {
		return render(raw, budget)
	}
	v := reflect.New(t)
	if err := fastjson.Unmarshal(raw, v.Interface()); err != nil {
		return render(raw, budget)
	}
	return renderGo(v.Elem().Interface(), raw, budget)
}

// renderWithin renders tree in full when that fits budget, else as a
// summary; false when a part of it the rendering read cannot be followed.
// The full rendering stops as soon as it is past the budget.
func renderWithin(tree any, budget int) (string, bool) {
	full := renderer{b: new(strings.Builder), limit: budget}
	text := full.render(tree)
	if full.failed {
		return "", false
	}
	if !full.over && len(text) <= budget {
		return text, true
	}
	summary := renderer{b: new(strings.Builder), summary: true, limit: -1}
	text = summary.render(tree)
	return text, !summary.failed
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
	numberType    = reflect.TypeFor[json.Number]()
	timeType      = reflect.TypeFor[time.Time]()
)

// selfEncodingCache keeps, per type, whether it encodes itself, for an
// addressable value and for one that is not: asking reflect costs four
// Implements per value walked. The key is the type alone, which a Load
// takes without an allocation (a struct key was boxed at every value).
var selfEncodingCache sync.Map // reflect.Type -> selfEncodes

// selfEncodes is whether a type encodes itself, for a value not
// addressable and for one that is.
type selfEncodes struct{ plain, addr bool }

// selfEncoding reports whether encoding/json lets a value of type t (of
// an addressable value when addr) write itself, as a json.Marshaler or an
// encoding.TextMarshaler; json.Number is written as the number it holds.
func selfEncoding(t reflect.Type, addr bool) bool {
	c, ok := selfEncodingCache.Load(t)
	if !ok {
		plain := t != numberType && (t.Implements(jsonMarshaler) || t.Implements(textMarshaler))
		pt := reflect.PointerTo(t)
		c = selfEncodes{plain: plain, addr: plain || t != numberType && (pt.Implements(jsonMarshaler) || pt.Implements(textMarshaler))}
		selfEncodingCache.Store(t, c)
	}
	if addr {
		return c.(selfEncodes).addr
	}
	return c.(selfEncodes).plain
}

// treeOf reads v into the tree render works on: []field for an object,
// []any for a list, json.Number, string, bool or nil for a scalar, in the
// order and with the values encoding/json would write. A value that
// encodes itself is encoded and decoded, as the whole result once was.
// When lazily, the objects and lists v holds are left as *lazy, walked
// when the rendering reads them.
func treeOf(v reflect.Value, lazily bool) (any, bool) {
	if !v.IsValid() {
		return nil, true
	}
	t := v.Type()
	if selfEncoding(t, v.CanAddr()) {
		if v.Kind() == reflect.Pointer && v.IsNil() || v.Kind() == reflect.Interface && v.IsNil() {
			return nil, true
		}
		if !v.CanInterface() {
			return nil, false
		}
		if t == timeType {
			// time.Time's JSON is its text quoted (both refuse the same
			// years): no encoding and decoding again for every date.
			b, err := v.Interface().(time.Time).MarshalText()
			return string(b), err == nil
		}
		target := v.Interface()
		if v.CanAddr() {
			target = v.Addr().Interface()
		}
		b, err := json.Marshal(target)
		if err != nil {
			return nil, false
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.UseNumber()
		out, err := decodeOrdered(dec)
		return out, err == nil
	}
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return nil, true
		}
		return treeOf(v.Elem(), lazily)
	case reflect.String:
		if t == numberType {
			if v.String() == "" {
				return json.Number("0"), true
			}
			return json.Number(v.String()), true
		}
		return validUTF8(v.String()), true
	case reflect.Bool:
		return v.Bool(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return json.Number(strconv.FormatInt(v.Int(), 10)), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return json.Number(strconv.FormatUint(v.Uint(), 10)), true
	case reflect.Float32, reflect.Float64:
		return floatNumber(v.Float(), t.Bits())
	case reflect.Slice:
		if v.IsNil() {
			return nil, true
		}
		if t.Elem().Kind() == reflect.Uint8 {
			return nil, false // base64, as encoding/json writes it: rare, read from the JSON
		}
		fallthrough
	case reflect.Array:
		list := make([]any, v.Len())
		for i := range list {
			e, ok := child(v.Index(i), lazily)
			if !ok {
				return nil, false
			}
			list[i] = e
		}
		return list, true
	case reflect.Map:
		if v.IsNil() {
			return nil, true
		}
		if t.Key().Kind() != reflect.String || t.Key().Implements(textMarshaler) {
			return nil, false
		}
		keys := v.MapKeys()
		names := make([]string, len(keys))
		for i, k := range keys {
			names[i] = k.String()
		}
		order := make([]int, len(keys))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return strings.Compare(names[a], names[b]) })
		obj := make([]field, 0, len(keys))
		for _, i := range order {
			e, ok := child(v.MapIndex(keys[i]), lazily)
			if !ok {
				return nil, false
			}
			obj = append(obj, field{key: validUTF8(names[i]), val: e})
		}
		return obj, true
	case reflect.Struct:
		fs, ok := fieldsOf(t)
		if !ok {
			return nil, false
		}
		obj := make([]field, 0, len(fs))
		for _, f := range fs {
			fv, present := fieldByIndex(v, f.index)
			if !present || f.omitEmpty && emptyValue(fv) || f.omitZero && zeroValue(fv) {
				continue
			}
			e, ok := child(fv, lazily)
			if !ok {
				return nil, false
			}
			obj = append(obj, field{key: f.name, val: e})
		}
		return obj, true
	}
	return nil, false // channels, functions, complex numbers: json.Marshal refuses them
}

// child is a value v holds: walked now, or when lazily and an object or
// a list, left for the rendering to walk.
func child(v reflect.Value, lazily bool) (any, bool) {
	if !lazily {
		return treeOf(v, false)
	}
	switch composite(v) {
	case anObject:
		return &lazy{v: v, object: true}, true
	case aList:
		return &lazy{v: v}, true
	}
	return treeOf(v, true)
}

// What encoding/json writes a value as, of its own walking.
const (
	aScalar = iota // or null, or a value that encodes itself
	anObject
	aList
)

// composite tells whether encoding/json writes v as an object or a list
// of its own walking.
func composite(v reflect.Value) int {
	for {
		if selfEncoding(v.Type(), v.CanAddr()) {
			return aScalar
		}
		switch v.Kind() {
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return aScalar
			}
			v = v.Elem()
		case reflect.Struct:
			return anObject
		case reflect.Map:
			if v.IsNil() {
				return aScalar
			}
			return anObject
		case reflect.Array:
			return aList
		case reflect.Slice:
			if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 {
				return aScalar
			}
			return aList
		default:
			return aScalar
		}
	}
}

// lazy is an object or a list not walked yet.
type lazy struct {
	v      reflect.Value
	object bool // written as an object, not a list
	tree   any
	ok     bool
	walked bool
}

// walk is the tree of l, walked once, its own objects and lists lazy.
func (l *lazy) walk() (any, bool) {
	if !l.walked {
		l.tree, l.ok = treeOf(l.v, true)
		l.walked = true
	}
	return l.tree, l.ok
}

// floatNumber writes a float as encoding/json does: plain digits, an
// exponent only for the very small and the very large.
func floatNumber(f float64, bits int) (any, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return nil, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (bits == 64 && (abs < 1e-6 || abs >= 1e21) || bits == 32 && (float32(abs) < 1e-6 || float32(abs) >= 1e21)) {
		format = 'e'
	}
	var buf [32]byte // room for any float's shortest form: one allocation, the string
	b := strconv.AppendFloat(buf[:0], f, format, -1, bits)
	if format == 'e' {
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return json.Number(b), true
}

// validUTF8 is s as JSON carries it: each byte that is not UTF-8 becomes
// U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// jsonField is a struct field as encoding/json writes it.
type jsonField struct {
	name                string
	index               []int
	omitEmpty, omitZero bool
	tagged              bool // named by its tag
}

var fieldCache sync.Map // reflect.Type -> []jsonField, or nil when not followed

// fieldsOf lists the fields encoding/json writes of a struct type, in its
// order, embedded structs' fields in their place. Where names collide, the
// field encoding/json writes is kept (dominant). A struct with a ",string"
// field is not followed (false).
func fieldsOf(t reflect.Type) ([]jsonField, bool) {
	if c, ok := fieldCache.Load(t); ok {
		fs, _ := c.([]jsonField)
		return fs, fs != nil
	}
	var fs []jsonField
	ok := collectFields(t, nil, &fs, 0)
	fs = dominant(fs)
	if !ok {
		fieldCache.Store(t, []jsonField(nil))
		return nil, false
	}
	if fs == nil {
		fs = []jsonField{}
	}
	fieldCache.Store(t, fs)
	return fs, true
}

// dominant keeps, of the fields sharing a name, the one encoding/json
// writes: the shallowest; among the shallowest, the one named by its tag
// when it is alone in being so. Where no field dominates, none of them is
// written. The order of the fields is kept.
func dominant(fs []jsonField) []jsonField {
	byName := map[string][]int{}
	for i, f := range fs {
		byName[f.name] = append(byName[f.name], i)
	}
	keep := make([]bool, len(fs))
	for _, same := range byName {
		depth := len(fs[same[0]].index)
		for _, i := range same {
			depth = min(depth, len(fs[i].index))
		}
		var shallow, tagged []int
		for _, i := range same {
			if len(fs[i].index) == depth {
				shallow = append(shallow, i)
				if fs[i].tagged {
					tagged = append(tagged, i)
				}
			}
		}
		switch {
		case len(shallow) == 1:
			keep[shallow[0]] = true
		case len(tagged) == 1:
			keep[tagged[0]] = true
		}
	}
	out := make([]jsonField, 0, len(fs))
	for i, f := range fs {
		if keep[i] {
			out = append(out, f)
		}
	}
	return out
}

func collectFields(t reflect.Type, at []int, out *[]jsonField, depth int) bool {
	if depth > 8 {
		return false
	}
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if !validTag(name) {
			name = ""
		}
		index := append(slices.Clone(at), i)
		if sf.Anonymous {
			ft := sf.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if !sf.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
			if name == "" && ft.Kind() == reflect.Struct {
				if !collectFields(ft, index, out, depth+1) {
					return false
				}
				continue
			}
		} else if !sf.IsExported() {
			continue
		}
		tagged := name != ""
		if !tagged {
			name = sf.Name
		}
		f := jsonField{name: name, index: index, tagged: tagged}
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				f.omitEmpty = true
			case "omitzero":
				f.omitZero = true
			case "string":
				return false
			}
		}
		*out = append(*out, f)
	}
	return true
}

// validTag is encoding/json's rule for a name given in a tag.
func validTag(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		switch {
		case strings.ContainsRune("!#$%&()*+-./:;<=>?@[]^_{|}~ ", c):
		case !unicode.IsLetter(c) && !unicode.IsDigit(c):
			return false
		}
	}
	return true
}

// fieldByIndex follows an embedded path; false through a nil embedded
// pointer, whose fields encoding/json leaves out.
func fieldByIndex(v reflect.Value, index []int) (reflect.Value, bool) {
	for i, x := range index {
		if i > 0 && v.Kind() == reflect.Pointer {
			if v.IsNil() {
				return reflect.Value{}, false
			}
			v = v.Elem()
		}
		v = v.Field(x)
	}
	return v, true
}

func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Interface, reflect.Pointer:
		return v.IsZero()
	}
	return false
}

var zeroer = reflect.TypeFor[interface{ IsZero() bool }]()

func zeroValue(v reflect.Value) bool {
	if v.Type().Implements(zeroer) {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		return v.Interface().(interface{ IsZero() bool }).IsZero()
	}
	if reflect.PointerTo(v.Type()).Implements(zeroer) {
		if !v.CanAddr() {
			boxed := reflect.New(v.Type()).Elem()
			boxed.Set(v)
			v = boxed
		}
		return v.Addr().Interface().(interface{ IsZero() bool }).IsZero()
	}
	return v.IsZero()
}

// renderer writes one rendering; summary leaves objects and lists of
// objects to the structured content. A full rendering stops once past
// limit bytes (over); none when limit is negative.
type renderer struct {
	b       *strings.Builder
	summary bool
	limit   int
	over    bool
	failed  bool // a lazy part could not be walked
}

// render is the text of v.
func (r *renderer) render(v any) string {
	if obj, ok := r.open(v).([]field); ok {
		r.object(obj, "")
	} else {
		r.value("result", v, "")
	}
	return strings.TrimSuffix(r.b.String(), "\n")
}

// open is v walked, when lazy.
func (r *renderer) open(v any) any {
	l, ok := v.(*lazy)
	if !ok {
		return v
	}
	tree, ok := l.walk()
	if !ok {
		r.failed = true
	}
	return tree
}

// stopped reports whether the rendering is to stop: it failed, or it is
// past its limit with extra bytes still to write (the final newline is
// trimmed).
func (r *renderer) stopped(extra int) bool {
	if r.limit >= 0 && r.b.Len()+extra-1 > r.limit {
		r.over = true
	}
	return r.over || r.failed
}

func decodeOrdered(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			obj := []field{}
			for dec.More() {
				k, err := dec.Token()
				if err != nil {
					return nil, err
				}
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				obj = append(obj, field{key: k.(string), val: v})
			}
			_, err := dec.Token()
			return obj, err
		case '[':
			list := []any{}
			for dec.More() {
				v, err := decodeOrdered(dec)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := dec.Token()
			return list, err
		}
		return nil, fmt.Errorf("unexpected %v", t)
	default:
		return tok, nil
	}
}

func (r *renderer) object(obj []field, indent string) {
	for _, f := range obj {
		if r.stopped(0) {
			return
		}
		r.value(f.key, f.val, indent)
	}
}

func (r *renderer) value(key string, v any, indent string) {
	b := r.b
	v = r.open(v)
	b.WriteString(indent)
	b.WriteString(key)
	switch x := v.(type) {
	case []field:
		if len(x) == 0 {
			b.WriteString(": {}\n")
			return
		}
		if r.summary {
			b.WriteString(": ")
			b.WriteString(strconv.Itoa(len(x)))
			b.WriteString(" fields, in structuredContent\n")
			return
		}
		b.WriteString(":\n")
		r.object(x, indent+"  ")
	case []any:
		if len(x) > 0 && allObjects(x) {
			b.WriteString(": ")
			b.WriteString(strconv.Itoa(len(x)))
			if r.summary {
				b.WriteString(" rows, in structuredContent\n")
				return
			}
			b.WriteString(" rows\n")
			r.table(x, indent+"  ")
			return
		}
		b.WriteString(": ")
		b.WriteString(r.cell(x))
		b.WriteByte('\n')
	default:
		b.WriteString(": ")
		b.WriteString(r.cell(x))
		b.WriteByte('\n')
	}
}

// allObjects reports whether every element of list is an object, without
// walking one.
func allObjects(list []any) bool {
	for _, e := range list {
		switch o := e.(type) {
		case []field:
		case *lazy:
			if !o.object {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// table writes rows, every one an object, under one header of their
// columns. Each row's line holds its cells whole, so the cells' length
// tells a rendering past its limit before the table is written, and the
// rows after are not walked.
func (r *renderer) table(rows []any, indent string) {
	var cols []string
	col := map[string]int{}
	cells := make([][]string, len(rows)) // "" where a row lacks the column: cell never writes ""
	written := 0
	for i, row := range rows {
		obj, _ := r.open(row).([]field)
		r.flatten(obj, "", func(k string, v any) {
			j, seen := col[k]
			if !seen {
				j = len(cols)
				col[k] = j
				cols = append(cols, k)
			}
			for len(cells[i]) <= j {
				cells[i] = append(cells[i], "")
			}
			cells[i][j] = r.cell(v)
			written += len(cells[i][j])
		})
		if r.stopped(written) {
			return
		}
	}
	b := r.b
	b.WriteString(indent)
	b.WriteString(strings.Join(cols, " | "))
	b.WriteByte('\n')
	line := make([]string, len(cols))
	for i := range cells {
		n := copy(line, cells[i])
		clear(line[n:])
		b.WriteString(indent)
		b.WriteString(strings.TrimRight(strings.Join(line, " | "), " |"))
		b.WriteByte('\n')
	}
}

// flatten walks an object's scalar and list fields, naming nested
// objects' fields with dots.
func (r *renderer) flatten(obj []field, prefix string, emit func(string, any)) {
	for _, f := range obj {
		v := r.open(f.val)
		if o, ok := v.([]field); ok && len(o) > 0 {
			r.flatten(o, prefix+f.key+".", emit)
			continue
		}
		emit(prefix+f.key, v)
	}
}

// ambiguous reports whether a string would read as another value.
func ambiguous(s string) bool {
	switch s {
	case "null", "true", "false":
		return true
	}
	// Only a number or a quoted number reads as a number: anything else
	// is told by its first byte, without decoding.
	switch c := s[0]; {
	case c == '"':
		var n json.Number
		return json.Unmarshal([]byte(s), &n) == nil
	case c == '-' || c >= '0' && c <= '9':
		return jsonNumber(s)
	}
	return false
}

// jsonNumber reports whether s is a number as JSON writes one: a date or
// an id that starts with a digit is told from one without a decoder.
func jsonNumber(s string) bool {
	s = strings.Trim(s, " \t\r\n") // as the decoder skips them
	i := 0
	digits := func() bool {
		start := i
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(s) && s[i] == '-' {
		i++
	}
	switch {
	case i < len(s) && s[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(s) && s[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	return i == len(s)
}

// cell renders a value on one line.
func (r *renderer) cell(v any) string {
	switch x := r.open(v).(type) {
	case nil:
		return "null"
	case string:
		if x == "" || strings.ContainsAny(x, "\n\r|,=[]{}") || strings.TrimSpace(x) != x || ambiguous(x) {
			q, _ := json.Marshal(x)
			return string(q)
		}
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "true"
		}
		return "false"
	case []field:
		parts := make([]string, len(x))
		for i, f := range x {
			parts[i] = f.key + "=" + r.cell(f.val)
		}
		return "{" + strings.Join(parts, " ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = r.cell(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	default:
		return fmt.Sprint(x)
	}
}
