package recent

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

// An entry used between other uses stays however many others are used,
// by count and by cost; what is held stays within its bound; an entry put
// again is counted once.
func TestCacheKeepsTheRecentlyUsed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		bound int
		cost  func(string, string) int
	}{
		{"counted", 10, nil},
		{"by cost", 100, func(k, v string) int { return len(k) + len(v) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := New(tt.bound, tt.cost)
			c.Put("hot", "h")
			c.Put("cold", "c")
			for i := range 10 * tt.bound {
				c.Put(fmt.Sprint("other", i), "o")
				v, ok := c.Get("hot")
				require.True(t, ok, "the hot entry is dropped after %d other uses", i+1)
				require.Equal(t, "h", v)
				limit := tt.bound
				if tt.cost != nil {
					limit += len("other1000o") // the entry that fills a generation
				}
				require.LessOrEqual(t, c.Cost(), limit)
			}
			_, ok := c.Get("cold")
			require.False(t, ok, "an entry never used again is dropped")
			before := c.Cost()
			c.Put("hot", "h")
			require.Equal(t, before, c.Cost(), "put again, counted once")
			c.Forget("hot")
			_, ok = c.Get("hot")
			require.False(t, ok)
			c.Clear()
			require.Zero(t, c.Len())
			require.Zero(t, c.Cost())
		})
	}
}
