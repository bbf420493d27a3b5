package trips

import "hash/maphash"

// digestCache holds remembered digests, bounded, keeping the recently
// read: two generations of at most half the bound each. A digest is put
// in the current one; a digest found in the previous one moves to the
// current; when the current is full it becomes the previous, and the one
// before is dropped. A digest read at least once every half-bound reads is
// never dropped, whatever else is read: a single map emptied when full
// dropped the hottest trips with the rest, and over many trips every read
// after it missed.
type digestCache struct {
	half      int
	cur, prev map[string]remembered
}

func newDigestCache(bound int) digestCache {
	half := max(bound/2, 1)
	return digestCache{half: half, cur: make(map[string]remembered, half), prev: map[string]remembered{}}
}

func (c *digestCache) get(id string) (remembered, bool) {
	if r, ok := c.cur[id]; ok {
		return r, true
	}
	r, ok := c.prev[id]
	if ok {
		delete(c.prev, id)
		c.put(id, r)
	}
	return r, ok
}

func (c *digestCache) put(id string, r remembered) {
	delete(c.prev, id)
	c.cur[id] = r
	if len(c.cur) >= c.half {
		c.prev, c.cur = c.cur, make(map[string]remembered, c.half)
	}
}

func (c *digestCache) forget(id string) {
	delete(c.cur, id)
	delete(c.prev, id)
}

func (c *digestCache) clear() {
	c.cur, c.prev = make(map[string]remembered, c.half), map[string]remembered{}
}

func (c *digestCache) len() int { return len(c.cur) + len(c.prev) }

// forgetStripes is how many counters of forgotten digests there are: a
// read checks, before it remembers what it read, that no write forgot a
// trip of its stripe meanwhile. One counter for every trip made each write
// anywhere drop the digests read beside it, which at a few writes a
// second over many trips was most reads.
const forgetStripes = 256

// epochs counts the forgetting, by stripe of trip ids and for all at once.
type epochs struct {
	seed    maphash.Seed
	stripes [forgetStripes]uint64
	all     uint64
}

// epoch is a reader's view of the counters that concern one trip.
type epoch struct{ stripe, all uint64 }

func newEpochs() epochs { return epochs{seed: maphash.MakeSeed()} }

func (e *epochs) stripe(id string) int { return int(maphash.String(e.seed, id) % forgetStripes) }

func (e *epochs) of(id string) epoch {
	return epoch{stripe: e.stripes[e.stripe(id)], all: e.all}
}

func (e *epochs) forgot(id string) { e.stripes[e.stripe(id)]++ }

func (e *epochs) forgotAll() { e.all++ }
