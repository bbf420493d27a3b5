package outbound

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"syscall"
)

// blocked lists the special-purpose ranges of the IANA IPv4 and IPv6
// registries that a fetch of a public document never needs. Some overlap
// with netip's predicates, which also run: the table is the readable
// statement of policy, the predicates a second net.
//
// Ranges that embed an IPv4 address in IPv6 (NAT64, 6to4, Teredo, the
// deprecated IPv4-compatible form) are refused whole instead of decoded:
// a gateway could forward them to the embedded, possibly private, address.
// IPv4-mapped addresses (::ffff:a.b.c.d) are unmapped before the check, so
// they are judged as the IPv4 address they are.
var blocked = []netip.Prefix{
	// IPv4
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"; 0.0.0.0 reaches the local host on Linux
	netip.MustParsePrefix("10.0.0.0/8"),      // private
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("127.0.0.0/8"),     // loopback
	netip.MustParsePrefix("169.254.0.0/16"),  // link-local, cloud metadata at 169.254.169.254
	netip.MustParsePrefix("172.16.0.0/12"),   // private
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("192.88.99.0/24"),  // 6to4 relay anycast
	netip.MustParsePrefix("192.168.0.0/16"),  // private
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("224.0.0.0/4"),     // multicast
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address

	// IPv6
	netip.MustParsePrefix("::/96"),             // unspecified, loopback, IPv4-compatible
	netip.MustParsePrefix("64:ff9b::/96"),      // NAT64
	netip.MustParsePrefix("64:ff9b:1::/48"),    // local-use NAT64
	netip.MustParsePrefix("100::/64"),          // discard-only
	netip.MustParsePrefix("2001::/23"),         // IETF protocol assignments, Teredo
	netip.MustParsePrefix("2001:db8::/32"),     // documentation
	netip.MustParsePrefix("2002::/16"),         // 6to4
	netip.MustParsePrefix("3fff::/20"),         // documentation
	netip.MustParsePrefix("5f00::/16"),         // segment routing
	netip.MustParsePrefix("fc00::/7"),          // unique local
	netip.MustParsePrefix("fe80::/10"),         // link-local
	netip.MustParsePrefix("fec0::/10"),         // site-local, deprecated
	netip.MustParsePrefix("ff00::/8"),          // multicast
	netip.MustParsePrefix("::ffff:0.0.0.0/96"), // IPv4-mapped: only reached if unmapping is ever removed
	netip.MustParsePrefix("::ffff:0:0:0/96"),   // IPv4-translated
}

// public reports whether a, already unmapped and without zone, is an address
// a fetch may reach.
func public(a netip.Addr) bool {
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range blocked {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// policy decides which addresses a client may dial.
type policy struct {
	allow []netip.Prefix // checked first; from Options.Allow, normalised
}

// permit returns nil when addr may be dialled; host is only recorded in the
// error, for logs.
func (p policy) permit(host string, addr netip.Addr) error {
	a := addr.WithZone("").Unmap()
	for _, prefix := range p.allow {
		if prefix.Contains(a) {
			return nil
		}
	}
	if !public(a) {
		return &ForbiddenAddressError{Host: host, Addr: a}
	}
	return nil
}

// normalisePrefixes masks prefixes and turns IPv4-mapped ones into IPv4,
// since addresses are unmapped before they are compared.
func normalisePrefixes(in []netip.Prefix) []netip.Prefix {
	out := make([]netip.Prefix, 0, len(in))
	for _, p := range in {
		if !p.IsValid() {
			continue
		}
		if p.Addr().Is4In6() {
			bits := max(p.Bits()-96, 0)
			p = netip.PrefixFrom(p.Addr().Unmap(), bits)
		}
		out = append(out, p.Masked())
	}
	return out
}

// endsInNumber reports whether host's last label is a number (decimal, or
// hex with 0x), the rule by which the WHATWG URL standard and inet_aton read
// a host as an IPv4 address. Such a host that is not a canonical dotted quad
// ("2130706433", "0177.0.0.1", "0x7f.1", "127.1") means what a resolver
// decides, and some resolve it to loopback; it is refused instead of asked.
func endsInNumber(host string) bool {
	host = strings.TrimSuffix(host, ".")
	last := host[strings.LastIndexByte(host, '.')+1:]
	if last == "" {
		return false
	}
	if strings.HasPrefix(last, "0x") || strings.HasPrefix(last, "0X") {
		return strings.Trim(last[2:], "0123456789abcdefABCDEF") == ""
	}
	return strings.Trim(last, "0123456789") == ""
}

// dialer resolves a host itself, refuses the whole host if any of its
// addresses is forbidden, then dials the addresses one by one with a
// net.Dialer whose Control checks the socket's actual peer again. Both
// checks run at connect time, on every connection, redirects included, so
// a name that resolved to a public address when a URL was judged cannot
// rebind to a private one afterwards.
type dialer struct {
	policy   policy
	resolver Resolver
	net      net.Dialer
}

func newDialer(p policy, r Resolver) *dialer {
	d := &dialer{policy: p, resolver: r}
	d.net.Control = d.control
	return d
}

// DialContext is the transport's only way out.
func (d *dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(address)
	if err != nil {
		return nil, ErrURL
	}
	addrs, err := d.resolve(ctx, network, host)
	if err != nil {
		return nil, err
	}
	// Refuse the whole host when any address is forbidden: skipping the bad
	// ones would let a hostile name mix one public and one private answer
	// and win whenever the public one fails.
	for _, a := range addrs {
		if err := d.policy.permit(host, a); err != nil {
			return nil, err
		}
	}
	var first error
	for _, a := range addrs {
		conn, err := d.net.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
		if err == nil {
			return conn, nil
		}
		var forbidden *ForbiddenAddressError
		if errors.As(err, &forbidden) {
			// net.OpError would prefix the address; the refusal must not.
			return nil, forbidden
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			break
		}
	}
	return nil, first
}

// resolve turns host into addresses: a literal as it is, a non-canonical
// IPv4 spelling refused, a name through the resolver.
func (d *dialer) resolve(ctx context.Context, network, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	if endsInNumber(host) {
		return nil, &ForbiddenAddressError{Host: host}
	}
	ipNetwork := "ip"
	switch network {
	case "tcp4":
		ipNetwork = "ip4"
	case "tcp6":
		ipNetwork = "ip6"
	}
	addrs, err := d.resolver.LookupNetIP(ctx, ipNetwork, host)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return nil, ctxErr // the budget ran out while resolving: not the name's fault
		}
		return nil, &resolveError{cause: err}
	}
	if len(addrs) == 0 {
		return nil, &resolveError{cause: errNoAddress}
	}
	return addrs, nil
}

// control runs on the socket about to connect, with the numeric peer.
func (d *dialer) control(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &ForbiddenAddressError{}
	}
	return d.policy.permit("", ap.Addr())
}
