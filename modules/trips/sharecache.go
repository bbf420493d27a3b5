package trips

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"

	"cairn.dev/cairn/registry"
)

// The public reads behind a share code (the page, its JSON, the route, the
// files) are answered by anyone holding the link, as often as they like.
// Each is a function of the trip's revision, which every write to the
// trip, its days or its share moves on (Store.touch): so each is made once
// per revision and kept, and its entity tag is the revision itself. A
// visitor holding the tag is answered 304 at the cost of reading the
// share and the trip's row, and the others read the kept answer.
const (
	// publicCacheBytes is what the kept answers may hold in all, per
	// process: enough for the largest page, route and files of several
	// trips at the size bounds (bounds.go).
	publicCacheBytes = 64 << 20
	// publicCacheEntry is the largest answer kept: one larger is made
	// for each read (none is, within the bounds).
	publicCacheEntry = 16 << 20
)

// publicCache keeps the public reads' answers by what was read, the trip
// and its revision. Readers of a key not yet kept wait for one of them to
// make it (singleflight), so a burst of visitors costs one rendering.
type publicCache struct {
	mu      sync.Mutex
	entries map[string]keptAnswer
	size    int
	flight  singleflight.Group
}

type keptAnswer struct {
	value any
	size  int
}

func newPublicCache() *publicCache { return &publicCache{entries: map[string]keptAnswer{}} }

// publicKey names one public answer: what is read (kind, with its
// argument), of which trip, at which revision.
func publicKey(kind, tripID string, revision int64) string {
	return kind + "|" + tripID + "|" + strconv.FormatInt(revision, 10)
}

// publicTag is the entity tag of a public answer: the revision and what
// was read, so that the page and the JSON at one address differ.
func publicTag(kind string, revision int64) string {
	return "r" + strconv.FormatInt(revision, 10) + "-" + kind
}

// answer returns the answer kept under key, or makes it with make (which
// returns the answer and its size in bytes) and keeps it.
func answer[V any](ctx context.Context, c *publicCache, key string, make func(ctx context.Context) (V, int, error)) (V, error) {
	c.mu.Lock()
	kept, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return kept.value.(V), nil
	}
	v, err, _ := c.flight.Do(key, func() (any, error) {
		// The first caller's request may end while others wait on it:
		// the answer is made to the end regardless, within a bound.
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
		defer cancel()
		v, size, err := make(ctx)
		if err != nil {
			return nil, err
		}
		c.keep(key, v, size)
		return v, nil
	})
	if err != nil {
		var zero V
		return zero, err
	}
	return v.(V), nil
}

// keep stores v under key, making room by dropping other answers (any:
// an answer dropped is made again at the next read).
func (c *publicCache) keep(key string, v any, size int) {
	if size > publicCacheEntry {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.entries[key]; ok {
		c.size -= old.size
	}
	for k, e := range c.entries {
		if c.size+size <= publicCacheBytes {
			break
		}
		delete(c.entries, k)
		c.size -= e.size
	}
	c.entries[key] = keptAnswer{value: v, size: size}
	c.size += size
}

// sharedRow is the trip behind the call's share code, its row read afresh:
// its revision keys what the public reads keep.
func (t *Trips) sharedRow(ctx context.Context, c *registry.Call) (*Trip, error) {
	id, err := t.sharedTripID(ctx, c)
	if err != nil {
		return nil, err
	}
	tr, err := t.store.Get(ctx, id)
	if err != nil && registry.AsError(err).Kind == registry.KindNotFound {
		return nil, ErrNoShare // deleted since the code was read
	}
	return tr, err
}

// publicDays are the days of tr at its revision, kept: every public read
// of the revision draws on them. They are shared and must not be changed.
func (t *Trips) publicDays(ctx context.Context, tr *Trip) ([]Stage, error) {
	return answer(ctx, t.kept, publicKey("days", tr.ID, tr.Revision), func(ctx context.Context) ([]Stage, int, error) {
		stages, err := t.store.Stages(ctx, tr.ID)
		size := 0
		for i := range stages {
			size += 1024 + 48*len(stages[i].Geometry)
		}
		return stages, size, err
	})
}

// publicRoute is shares.route: the lines of the shared trip's days, kept
// as JSON by revision.
func (t *Trips) publicRoute(ctx context.Context, c *registry.Call) (RouteGeometry, error) {
	tr, err := t.sharedRow(ctx, c)
	if err != nil {
		return RouteGeometry{}, err
	}
	raw, err := answer(ctx, t.kept, publicKey("route", tr.ID, tr.Revision), func(ctx context.Context) ([]byte, int, error) {
		stages, err := t.publicDays(ctx, tr)
		if err != nil {
			return nil, 0, err
		}
		b, err := json.Marshal(routeOfDays(tr.ID, stages))
		return b, len(b), err
	})
	if err != nil {
		return RouteGeometry{}, err
	}
	return RouteGeometry{tag: publicTag("route", tr.Revision), raw: raw}, nil
}

// publicFile is shares.file_* (index < 0) and shares.stage_file_*: a file
// of the shared trip or of one of its days, made when it is written and
// kept by revision.
func (t *Trips) publicFile(ctx context.Context, c *registry.Call, format string, index int) (File, error) {
	tr, err := t.sharedRow(ctx, c)
	if err != nil {
		return File{}, err
	}
	stages, err := t.publicDays(ctx, tr)
	if err != nil {
		return File{}, err
	}
	kind := format
	var made func() (File, error)
	if index < 0 {
		made = func() (File, error) { return tripFileOf(tr, stages, format) }
	} else {
		if index >= len(stages) {
			return File{}, registry.Fail(registry.KindNotFound, "this trip has no such day; days are numbered from 0")
		}
		kind = "day" + strconv.Itoa(index) + "." + format
		made = func() (File, error) { return stageFile(&stages[index], tr.Locale, format) }
	}
	f, err := answer(ctx, t.kept, publicKey(kind, tr.ID, tr.Revision), func(context.Context) (File, int, error) {
		f, err := made()
		return f, len(f.body) + 256, err
	})
	f.tag = publicTag(kind, tr.Revision)
	return f, err
}

// publicReads is the limit of each public read behind a share code, per
// client address: a person reading a shared trip opens its page and a few
// files; a client asking for more than one a second, sustained, is
// scraping or attacking, and waits.
var publicReads = registry.PerIP(PublicReadsPerMinute, time.Minute)

// PublicReadsPerMinute is how many reads of each public operation behind a
// share code (the page, the route, each kind of file) one client address
// may make a minute.
const PublicReadsPerMinute = 60
