package outbound_test

import (
	"net/netip"
	"testing"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/outbound"
)

func TestParseAllow(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give    string
		want    []netip.Prefix
		wantErr string
	}{
		{give: "", want: nil},
		{give: " , ", want: nil},
		{give: "127.0.0.1/32", want: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}},
		{give: "127.0.0.1/32, 10.1.0.0/16,", want: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.1.0.0/16")}},
		{give: "127.0.0.1", wantErr: `"127.0.0.1" is not an address range such as 127.0.0.1/32`},
		{give: "10.0.0.0/8,localhost", wantErr: `"localhost" is not an address range`},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			got, err := outbound.ParseAllow(tt.give)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			require.Equal(t, tt.want, got)
		})
	}
}
