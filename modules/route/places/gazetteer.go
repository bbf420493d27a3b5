package places

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
)

// Row is one place given to NewGazetteer.
type Row struct {
	Name string
	// Country is an ISO 3166-1 alpha-2 code; Admin1 the name of the
	// first-level administrative area, empty if unknown.
	Country, Admin1 string
	Lat, Lon        float64
	Population      int
}

// Gazetteer is an offline Searcher over a fixed list of places. It is built
// on first use and safe for concurrent use.
//
// Ranking: a name equal to the query first, then names starting with it,
// then names with a word starting with it ("etienne" finds
// "Saint-Étienne"), then names containing it anywhere; within each, the
// larger population first, then the name, so answers are stable.
//
// Names and queries are compared folded (see Fold). Prefix and word-prefix
// matches come from a sorted index of every word start of every folded
// name, found by binary search; only when those give fewer than limit
// places does a search scan the names for substrings.
type Gazetteer struct {
	once  sync.Once
	build func() (*index, error)
	idx   *index
	err   error
}

var _ Searcher = (*Gazetteer)(nil)

// NewGazetteer returns a Gazetteer over rows, indexed on first use. Rows
// with an empty name are skipped; the slice is not kept.
func NewGazetteer(rows []Row) *Gazetteer {
	b := newBuilder(len(rows))
	for _, r := range rows {
		if r.Name == "" {
			continue
		}
		b.add(r.Name, r.Country, b.admin(r.Country+"\t"+r.Admin1, r.Admin1),
			e5(r.Lat), e5(r.Lon), uint32(min(max(int64(r.Population), 0), math.MaxUint32)))
	}
	return &Gazetteer{build: func() (*index, error) { return b.finish(), nil }}
}

// Search implements Searcher.
func (g *Gazetteer) Search(ctx context.Context, q string, limit int) ([]Place, error) {
	if err := checkQuery(q); err != nil {
		return nil, err
	}
	fq := Fold(q)
	if fq == "" {
		return nil, ErrEmptyQuery
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	idx, err := g.load()
	if err != nil {
		return nil, err
	}
	return idx.search(fq, ClampLimit(limit)), nil
}

// Len reports how many places the gazetteer holds, loading it if needed.
func (g *Gazetteer) Len() (int, error) {
	idx, err := g.load()
	if err != nil {
		return 0, err
	}
	return len(idx.recs), nil
}

func (g *Gazetteer) load() (*index, error) {
	g.once.Do(func() {
		g.idx, g.err = g.build()
		g.build = nil // let the source rows go
	})
	return g.idx, g.err
}

// record is one place, kept small: there are over a hundred thousand.
type record struct {
	name    string
	fold    uint32 // start of the folded name in index.folded
	foldLen uint32
	latE5   int32 // degrees × 1e5: five decimals, exact
	lonE5   int32
	pop     uint32
	admin   uint32 // into index.admins; 0 is "unknown"
	country [2]byte
}

// entry is one word start of one folded name: its key is the folded name
// from off on, so "saint etienne" is indexed under "saint etienne" and
// "etienne". head holds the key's first eight bytes, big-endian and
// zero-padded, so that most comparisons while sorting and searching are
// one integer comparison instead of a trip to the string.
type entry struct {
	head uint64
	rec  uint32
	off  uint32
}

type index struct {
	recs   []record
	admins []string
	// folded holds every folded name, in record order, each followed by
	// '\n', which no folded name contains: a substring search runs over
	// the whole string at once and a match can never span two names.
	folded  string
	entries []entry // sorted by key
	// rows holds the records' indexes by row of latitude (rowE5 high),
	// and in a row by longitude: a reverse lookup reads, of the rows
	// within reach, only the stretch of longitudes within reach.
	// rowStart[r] is where row r begins in rows; rowStart[r+1] where it
	// ends.
	rows     []uint32
	rowStart []uint32
}

// rowE5 is the height of a row of latitude, in 1e-5 degrees: a tenth of
// a degree (11 km), so that a lookup reads the rows nearest first and
// stops at the first row farther than the nearest place found.
const rowE5 = 10000

// rowCount is the number of rows from the south pole to the north pole,
// the pole itself in a row of its own.
const rowCount = 180_00000/rowE5 + 1

// rowOf is the row of latitude latE5, clamped to the globe.
func rowOf(latE5 int32) int {
	return min(max(int(latE5+90_00000)/rowE5, 0), rowCount-1)
}

func (ix *index) foldedName(i uint32) string {
	r := &ix.recs[i]
	return ix.folded[r.fold : r.fold+r.foldLen]
}

func (ix *index) key(e entry) string { return ix.foldedName(e.rec)[e.off:] }

// head packs the first eight bytes of s as entry.head does.
func head(s string) uint64 {
	var h uint64
	for i := range 8 {
		h <<= 8
		if i < len(s) {
			h |= uint64(s[i])
		}
	}
	return h
}

// compareKey orders entries by key. Equal heads mean equal first eight
// bytes, or a shorter key padded with zeros, which the string comparison
// then settles.
func (ix *index) compareKey(e entry, k string, kh uint64) int {
	if e.head != kh {
		return cmp.Compare(e.head, kh)
	}
	return strings.Compare(ix.key(e), k)
}

// Match ranks, best first.
const (
	rankExact uint8 = iota
	rankPrefix
	rankWordPrefix
	rankSubstring
)

func (ix *index) search(fq string, limit int) []Place {
	top := topK{ix: ix, k: limit}
	qh := head(fq)
	lo, _ := slices.BinarySearchFunc(ix.entries, fq, func(e entry, q string) int {
		return ix.compareKey(e, q, qh)
	})
	for _, e := range ix.entries[lo:] {
		k := ix.key(e)
		if !strings.HasPrefix(k, fq) {
			break
		}
		rank := rankWordPrefix
		if e.off == 0 {
			rank = rankPrefix
			if len(k) == len(fq) {
				rank = rankExact
			}
		}
		top.offer(hit{rec: e.rec, rank: rank})
	}
	if len(top.hits) < limit {
		// Every word-boundary match is in already, so what the scan adds all
		// ranks last and cannot push out anything found above.
		for pos := 0; ; {
			i := strings.Index(ix.folded[pos:], fq)
			if i < 0 {
				break
			}
			at := uint32(pos + i)
			rec, _ := slices.BinarySearchFunc(ix.recs, at, func(r record, at uint32) int {
				if r.fold+r.foldLen <= at {
					return -1
				}
				if r.fold > at {
					return 1
				}
				return 0
			})
			top.offer(hit{rec: uint32(rec), rank: rankSubstring})
			// Go on after this name: one hit per place is enough.
			pos = int(ix.recs[rec].fold + ix.recs[rec].foldLen + 1)
		}
	}
	out := make([]Place, len(top.hits))
	for i, h := range top.hits {
		out[i] = ix.place(h.rec)
	}
	return out
}

func (ix *index) place(i uint32) Place {
	r := &ix.recs[i]
	country := strings.TrimRight(string(r.country[:]), "\x00")
	display := r.name
	if a := ix.admins[r.admin]; a != "" {
		display += ", " + a
	}
	if country != "" {
		display += ", " + country
	}
	return Place{
		Name:        r.name,
		DisplayName: display,
		Lat:         float64(r.latE5) / 1e5,
		Lon:         float64(r.lonE5) / 1e5,
		Type:        TypeFor(int(r.pop)),
		Country:     country,
		Population:  int(r.pop),
	}
}

type hit struct {
	rec  uint32
	rank uint8
}

// topK keeps the k best hits, one per place, best first. k is at most
// MaxLimit, so a sorted slice beats a heap.
type topK struct {
	ix   *index
	k    int
	hits []hit
}

func (t *topK) better(a, b hit) bool {
	if a.rank != b.rank {
		return a.rank < b.rank
	}
	ra, rb := &t.ix.recs[a.rec], &t.ix.recs[b.rec]
	if ra.pop != rb.pop {
		return ra.pop > rb.pop
	}
	if c := strings.Compare(ra.name, rb.name); c != 0 {
		return c < 0
	}
	return a.rec < b.rec
}

func (t *topK) offer(h hit) {
	if len(t.hits) == t.k && !t.better(h, t.hits[t.k-1]) {
		// Not better than the worst kept, so not better than this place's
		// own kept hit either, if it has one.
		return
	}
	for i, old := range t.hits {
		if old.rec == h.rec {
			if !t.better(h, old) {
				return
			}
			t.hits = slices.Delete(t.hits, i, i+1)
			break
		}
	}
	at, _ := slices.BinarySearchFunc(t.hits, h, func(a, b hit) int {
		if t.better(a, b) {
			return -1
		}
		return 1
	})
	t.hits = slices.Insert(t.hits, at, h)
	if len(t.hits) > t.k {
		t.hits = t.hits[:t.k]
	}
}

// builder gathers records, folding every name into one buffer, and sorts
// the word-start index once at the end.
type builder struct {
	recs      []record
	folded    []byte
	folder    folder
	admins    []string
	adminByID map[string]uint32
}

func newBuilder(n int) *builder {
	return &builder{
		recs:      make([]record, 0, n),
		folded:    make([]byte, 0, n*14),
		admins:    []string{""},
		adminByID: map[string]uint32{},
	}
}

// admin interns an admin1 name under id (country and code, or country and
// name), so a hundred thousand rows share a few thousand strings.
func (b *builder) admin(id, name string) uint32 {
	if name == "" {
		return 0
	}
	if i, ok := b.adminByID[id]; ok {
		return i
	}
	i := uint32(len(b.admins))
	b.admins = append(b.admins, name)
	b.adminByID[strings.Clone(id)] = i
	return i
}

func (b *builder) add(name, country string, admin uint32, latE5, lonE5 int32, pop uint32) {
	r := record{name: name, latE5: latE5, lonE5: lonE5, pop: pop, admin: admin, fold: uint32(len(b.folded))}
	copy(r.country[:], strings.ToUpper(country))
	b.folded = b.folder.append(b.folded, name)
	r.foldLen = uint32(len(b.folded)) - r.fold
	b.folded = append(b.folded, '\n')
	b.recs = append(b.recs, r)
}

func (b *builder) finish() *index {
	ix := &index{recs: b.recs, admins: b.admins, folded: string(b.folded)}
	ix.entries = make([]entry, 0, len(ix.recs)+strings.Count(ix.folded, " "))
	for i := range ix.recs {
		f := ix.foldedName(uint32(i))
		if f == "" {
			continue // a name of punctuation only; nothing can match it
		}
		ix.entries = append(ix.entries, entry{head: head(f), rec: uint32(i)})
		for off := 0; off < len(f); off++ {
			if f[off] == ' ' {
				ix.entries = append(ix.entries, entry{head: head(f[off+1:]), rec: uint32(i), off: uint32(off + 1)})
			}
		}
	}
	slices.SortFunc(ix.entries, func(a, b entry) int {
		if a.head != b.head {
			return cmp.Compare(a.head, b.head)
		}
		if c := strings.Compare(ix.key(a), ix.key(b)); c != 0 {
			return c
		}
		if a.rec != b.rec {
			return cmp.Compare(a.rec, b.rec)
		}
		return cmp.Compare(a.off, b.off)
	})
	ix.rows = make([]uint32, len(ix.recs))
	for i := range ix.rows {
		ix.rows[i] = uint32(i)
	}
	slices.SortFunc(ix.rows, func(a, b uint32) int {
		ra, rb := &ix.recs[a], &ix.recs[b]
		return cmp.Or(cmp.Compare(rowOf(ra.latE5), rowOf(rb.latE5)), cmp.Compare(ra.lonE5, rb.lonE5), cmp.Compare(a, b))
	})
	ix.rowStart = make([]uint32, rowCount+1)
	for _, i := range ix.rows {
		ix.rowStart[rowOf(ix.recs[i].latE5)+1]++
	}
	for r := 1; r <= rowCount; r++ {
		ix.rowStart[r] += ix.rowStart[r-1]
	}
	return ix
}

// e5 holds a coordinate in 1e-5 degrees, the precision of the data.
func e5(deg float64) int32 {
	return int32(math.Round(deg * 1e5))
}
