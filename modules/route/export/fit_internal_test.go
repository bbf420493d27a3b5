package export

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCRC16(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give string
		want uint16
	}{
		// CRC-16/ARC's published check value.
		{name: "check string", give: "123456789", want: 0xBB3D},
		{name: "empty", give: "", want: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, crc16(0, []byte(tt.give)))
		})
	}
}

func TestSemicircles(t *testing.T) {
	t.Parallel()

	tests := []struct {
		give float64
		want int32
	}{
		{give: 0, want: 0},
		{give: 90, want: 1 << 30},
		{give: -90, want: -(1 << 30)},
		{give: 45, want: 1 << 29},
		{give: -180, want: math.MinInt32},
		{give: 180, want: math.MinInt32}, // same meridian, the only one int32 holds
		{give: 1e-7, want: 1},            // 1.19 semicircles
		{give: 5.7245, want: 68295945},   // round(5.7245 / 180 × 2^31)
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, semicircles(tt.give), "%v°", tt.give)
	}
}

func TestFitAltitude(t *testing.T) {
	t.Parallel()

	tests := []struct {
		give float64
		want uint16
	}{
		{give: 0, want: 2500},
		{give: 212.3, want: 3562}, // (212.3 + 500) × 5 = 3561.5, rounded half away from zero
		{give: -500, want: 0},
		{give: -600, want: 0},       // clamped, not wrapped
		{give: 20_000, want: 65534}, // clamped below the invalid 0xFFFF
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, fitAltitude(tt.give), "%v m", tt.give)
	}
}

func TestFitText(t *testing.T) {
	t.Parallel()

	tests := []struct {
		name string
		give string
		want string
	}{
		{name: "short", give: "Day 1", want: "Day 1"},
		{name: "fifteen bytes kept", give: "Grenoble-Vif-LM", want: "Grenoble-Vif-LM"},
		{name: "sixteen bytes cut", give: "Grenoble-Vif-LMx", want: "Grenoble-Vif-LM"},
		{name: "cut on a rune boundary", give: "Étape à Pré-Saint-Didier", want: "Étape à Pré-"},
		{name: "no trailing space after the cut", give: "Boulangerie du Centre", want: "Boulangerie du"},
		{name: "NUL dropped", give: "Gîte\x00secret", want: "Gîtesecret"},
		{name: "invalid UTF-8 replaced", give: "Caf\xe9", want: "Caf\uFFFD"},
		{name: "controls dropped, white space collapsed", give: "\u202E Day\t\t1\r\n\x1b", want: "Day 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := fitText(tt.give)
			assert.Equal(t, tt.want, got)
			assert.Less(t, len(got), fitNameSize, "room for the NUL")
		})
	}
}
