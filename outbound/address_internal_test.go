package outbound

import (
	"context"
	"net"
	"net/netip"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPublic(t *testing.T) {
	t.Parallel()

	tests := []struct {
		give string
		want bool
	}{
		// Reachable: ordinary public unicast, so the policy does not
		// overreach and break real providers.
		{give: "8.8.8.8", want: true},
		{give: "93.184.215.14", want: true},
		{give: "100.63.255.255", want: true}, // just below CGNAT
		{give: "100.128.0.0", want: true},    // just above it
		{give: "172.15.255.255", want: true},
		{give: "172.32.0.0", want: true},
		{give: "2a00:1450:4007:80e::200e", want: true},
		{give: "2606:4700:4700::1111", want: true},

		{give: "0.0.0.0"},
		{give: "0.1.2.3"},
		{give: "10.255.255.255"},
		{give: "100.64.0.1"},
		{give: "127.0.0.1"},
		{give: "127.255.255.254"},
		{give: "169.254.169.254"},
		{give: "172.16.0.1"},
		{give: "172.31.255.255"},
		{give: "192.0.0.170"},
		{give: "192.0.2.1"},
		{give: "192.168.0.1"},
		{give: "198.18.0.1"},
		{give: "224.0.0.251"},
		{give: "239.255.255.250"},
		{give: "240.0.0.1"},
		{give: "255.255.255.255"},
		{give: "::"},
		{give: "::1"},
		{give: "::127.0.0.1"},
		{give: "64:ff9b::a00:1"},
		{give: "2001:0:4136:e378:8000:63bf:3fff:fdd2"}, // Teredo
		{give: "2001:db8::1"},
		{give: "2002:7f00:1::1"}, // 6to4 of 127.0.0.1
		{give: "fc00::1"},
		{give: "fd12:3456::1"},
		{give: "fe80::1"},
		{give: "fec0::1"},
		{give: "ff02::1"},
		{give: "::ffff:0:7f00:1"}, // IPv4-translated
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, public(netip.MustParseAddr(tt.give)))
		})
	}
}

func TestPermitUnmapsAndStripsZone(t *testing.T) {
	t.Parallel()
	p := policy{allow: normalisePrefixes([]netip.Prefix{
		netip.MustParsePrefix("::ffff:127.0.0.1/128"), // written mapped, compared unmapped
	})}

	tests := []struct {
		name string
		give string
		want bool
	}{
		{name: "allowed", give: "127.0.0.1", want: true},
		{name: "allowed, mapped", give: "::ffff:127.0.0.1", want: true},
		{name: "neighbour", give: "127.0.0.2"},
		{name: "neighbour, mapped", give: "::ffff:127.0.0.2"},
		{name: "mapped private", give: "::ffff:10.0.0.1"},
		{name: "mapped metadata", give: "::ffff:169.254.169.254"},
		{name: "mapped public", give: "::ffff:8.8.8.8", want: true},
		{name: "link-local with zone", give: "fe80::1%eth0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			err := p.permit("", netip.MustParseAddr(tt.give))
			assert.Equal(t, tt.want, err == nil, "err = %v", err)
		})
	}
}

func TestEndsInNumber(t *testing.T) {
	t.Parallel()

	tests := []struct {
		give string
		want bool
	}{
		{give: "2130706433", want: true},
		{give: "0177.0.0.1", want: true},
		{give: "0x7f.1", want: true},
		{give: "0X7F000001", want: true},
		{give: "127.1", want: true},
		{give: "127.0.0.1.", want: true},
		{give: "1.2.3.4.5", want: true},
		{give: "0x", want: true}, // WHATWG reads it as 0
		{give: "www.komoot.com"},
		{give: "ridewithgps.com"},
		{give: "1password.com"},
		{give: "123.example"},
		{give: "0xfeed.cafe"},      // "cafe" alone is not a number
		{give: "a.0x", want: true}, // but a trailing "0x" is
		{give: ""},
		{give: "."},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			assert.Equal(t, tt.want, endsInNumber(tt.give))
		})
	}
}

// TestControlChecksTheSocketPeer exercises the second net alone: a dial that
// skipped the resolver's check still stops at the socket.
func TestControlChecksTheSocketPeer(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	d := newDialer(policy{}, net.DefaultResolver)

	_, err = d.net.DialContext(context.Background(), "tcp", ln.Addr().String())

	require.ErrorIs(t, err, ErrForbiddenAddress)
}

// everywhere resolves every name to a public address and counts lookups.
type everywhere struct{ lookups int }

func (r *everywhere) LookupNetIP(context.Context, string, string) ([]netip.Addr, error) {
	r.lookups++
	return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
}

// TestNumericSpellingsNeverReachTheResolver pins the first line against
// IPv4 spellings: they are refused before any lookup, so no resolver (the
// C library's inet_aton reads "2130706433" as 127.0.0.1) gets to decide
// what they mean. The resolver here would answer a public address, so
// only the spelling rule can refuse them.
func TestNumericSpellingsNeverReachTheResolver(t *testing.T) {
	t.Parallel()

	tests := []string{"2130706433", "0177.0.0.1", "0x7f.1", "0x7f000001", "127.1", "127.0.0.1.", "017700000001"}
	for _, give := range tests {
		t.Run(give, func(t *testing.T) {
			t.Parallel()
			r := &everywhere{}
			d := newDialer(policy{}, r)

			_, err := d.DialContext(context.Background(), "tcp", net.JoinHostPort(give, "80"))

			var forbidden *ForbiddenAddressError
			require.ErrorAs(t, err, &forbidden)
			assert.Equal(t, give, forbidden.Host)
			assert.Zero(t, r.lookups)
		})
	}
}
