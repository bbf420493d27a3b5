package trips

import "hash/maphash"

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
