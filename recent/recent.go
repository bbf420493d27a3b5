// Package recent holds what was used recently, within a bound: the
// remembered answers of a process (a trip's digest, the text of a tool's
// result) that are cheaper to keep than to make again.
//
// A Cache keeps two generations of at most half the bound each. What is
// put goes in the current one; what is found in the previous one moves to
// the current; when the current is full it becomes the previous, and the
// one before is dropped. So what is used at least once every half-bound of
// other uses is never dropped, whatever else is used: a single map emptied
// when full dropped the hottest entries with the rest, and every use after
// it missed.
package recent

// Cache is a bounded map of the recently used. It is not safe for
// concurrent use: its callers hold their own lock.
type Cache[K comparable, V any] struct {
	half      int
	cost      func(K, V) int
	cur, prev generation[K, V]
}

type generation[K comparable, V any] struct {
	m    map[K]V
	cost int // of the entries held
}

func newGeneration[K comparable, V any]() generation[K, V] {
	return generation[K, V]{m: map[K]V{}}
}

// New returns a cache holding entries whose costs sum to at most about
// bound (half of it in each generation, the entry that fills one counted
// in it). A nil cost counts each entry as one.
func New[K comparable, V any](bound int, cost func(K, V) int) *Cache[K, V] {
	if cost == nil {
		cost = func(K, V) int { return 1 }
	}
	return &Cache[K, V]{half: max(bound/2, 1), cost: cost, cur: newGeneration[K, V](), prev: newGeneration[K, V]()}
}

// Get returns the entry of k, and makes it recent.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	if v, ok := c.cur.m[k]; ok {
		return v, true
	}
	v, ok := c.prev.m[k]
	if ok {
		c.Put(k, v)
	}
	return v, ok
}

// Put holds v as the entry of k, in place of any other.
func (c *Cache[K, V]) Put(k K, v V) {
	c.prev.drop(k, c.cost)
	c.cur.drop(k, c.cost)
	c.cur.m[k] = v
	c.cur.cost += c.cost(k, v)
	if c.cur.cost >= c.half {
		c.prev, c.cur = c.cur, newGeneration[K, V]()
	}
}

func (g *generation[K, V]) drop(k K, cost func(K, V) int) {
	if v, ok := g.m[k]; ok {
		delete(g.m, k)
		g.cost -= cost(k, v)
	}
}

// Forget drops the entry of k.
func (c *Cache[K, V]) Forget(k K) {
	c.cur.drop(k, c.cost)
	c.prev.drop(k, c.cost)
}

// Clear drops every entry.
func (c *Cache[K, V]) Clear() { c.cur, c.prev = newGeneration[K, V](), newGeneration[K, V]() }

// Len is how many entries are held.
func (c *Cache[K, V]) Len() int { return len(c.cur.m) + len(c.prev.m) }

// Cost is what the entries held cost, summed.
func (c *Cache[K, V]) Cost() int { return c.cur.cost + c.prev.cost }
