package places

import (
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEmbeddedLoadCost reports what loading the shipped gazetteer costs.
// It asserts nothing about time (the machine decides that); run with -v to
// read the figures. It is the one test not run in parallel: Go runs the
// serial tests before resuming the parallel ones, so the heap it measures is
// its own.
func TestEmbeddedLoadCost(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	ix, err := loadEmbedded()
	took := time.Since(start)
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	t.Logf("%d places, %d index entries, %d admin areas; %d bytes embedded; loaded in %v; %.1f MB retained",
		len(ix.recs), len(ix.entries), len(ix.admins), len(embeddedData), took,
		float64(after.HeapAlloc-before.HeapAlloc)/(1<<20))
	runtime.KeepAlive(ix)
}

func TestParseDataRefusesMalformed(t *testing.T) {
	t.Parallel()
	const admins = "# comment\nFR\t84\tAuvergne-Rhône-Alpes\n\n"
	tests := []struct {
		name string
		give string
	}{
		{name: "bad admin line", give: "FRANCE\n\n"},
		{name: "too few columns", give: admins + "Lyon\tFR\t84\t45.7\t4.8\n"},
		{name: "too many columns", give: admins + "Lyon\tFR\t84\t45.7\t4.8\t1\t2\n"},
		{name: "bad latitude", give: admins + "Lyon\tFR\t84\tnorth\t4.8\t1000\n"},
		{name: "six decimals", give: admins + "Lyon\tFR\t84\t45.748461\t4.8\t1000\n"},
		{name: "bad population", give: admins + "Lyon\tFR\t84\t45.7\t4.8\tmany\n"},
		{name: "unknown admin1", give: admins + "Lyon\tFR\t99\t45.7\t4.8\t1000\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := parseData(tt.give)
			assert.ErrorIs(t, err, errEmbedded)
		})
	}
}

func TestParseData(t *testing.T) {
	t.Parallel()
	ix, err := parseData("# c\nFR\t84\tAuvergne-Rhône-Alpes\n\nLyon\tFR\t84\t45.74846\t4.84671\t472317\nNowhere\tUS\t\t-0.5\t-100.00001\t1000\n")
	require.NoError(t, err)
	require.Len(t, ix.recs, 2)
	assert.Equal(t, "Lyon, Auvergne-Rhône-Alpes, FR", ix.place(0).DisplayName)
	assert.Equal(t, Place{
		Name: "Nowhere", DisplayName: "Nowhere, US", Lat: -0.5, Lon: -100.00001,
		Type: TypeVillage, Country: "US", Population: 1000,
	}, ix.place(1))
}

func TestParseE5(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give   string
		want   int32
		wantOK bool
	}{
		{give: "45.74846", want: 4574846, wantOK: true},
		{give: "-0.5", want: -50000, wantOK: true},
		{give: "180", want: 18000000, wantOK: true},
		{give: "-179.99999", want: -17999999, wantOK: true},
		{give: "181", wantOK: false},
		{give: "1.123456", wantOK: false},
		{give: "", wantOK: false},
		{give: "-", wantOK: false},
		{give: "1.2x", wantOK: false},
	}
	for _, tt := range tests {
		got, ok := parseE5(tt.give)
		assert.Equal(t, tt.wantOK, ok, tt.give)
		if tt.wantOK {
			assert.Equal(t, tt.want, got, tt.give)
		}
	}
}

func BenchmarkEmbeddedLoad(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := loadEmbedded(); err != nil {
			b.Fatal(err)
		}
	}
}
