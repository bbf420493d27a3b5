package trips

import "cairn.dev/cairn/metrics"

// MemoryReads is the count of how the hot reads were answered, served on
// the metrics listener as cairn_trips_memory_reads_total: what an operator
// reads before changing digest_cache_size or adding memory. Over many
// trips a read's cost is its hit rate (docs/trips.md, docs/benchmarks.md).
// Reads inside a transaction never use memory and are not counted.
//
// By memory and outcome:
//   - digest (a trip's digest, read by every trip-scoped guard and
//     get_trip): held, given from memory within digest_cache_ttl of its
//     check; checked, given from memory after reading the trip's revision;
//     read, read from the database (not held, or behind the revision);
//   - get_trip and list_trips (a whole answer, encoded): kept, given from
//     memory; built, made from the digest or the database.
var MemoryReads = metrics.NewCounter("cairn_trips_memory_reads_total",
	"How the trips' hot reads were answered, by memory (digest, get_trip, list_trips) and outcome "+
		"(digest: held, checked or read; answers: kept or built).", "memory", "outcome")

// memoryCounts are the series of MemoryReads a store and its answers count
// on, looked up once.
type memoryCounts struct {
	digestHeld, digestChecked, digestRead metrics.Series
}

// countsOn are the digest's series of c.
func countsOn(c *metrics.Counter) memoryCounts {
	return memoryCounts{digestHeld: c.With("digest", "held"), digestChecked: c.With("digest", "checked"),
		digestRead: c.With("digest", "read")}
}

// answerCounts are the series of one kind of kept answer: given from
// memory, or built.
type answerCounts struct{ kept, built metrics.Series }

// answerCountsOn are the series of c for the answers of memory.
func answerCountsOn(c *metrics.Counter, memory string) answerCounts {
	return answerCounts{kept: c.With(memory, "kept"), built: c.With(memory, "built")}
}
