package progress

import (
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"cairn.dev/cairn/registry"
)

// A browser's EventSource cannot send an Authorization header. A stream
// ticket stands in for it: a short-lived, single-use secret that opens one
// operation's stream of one record, and nothing else. The ticket holds the
// credential of the caller who asked for it, sealed with a key derived
// from the ticket itself: what is stored reveals nothing without the
// ticket, and redeeming it deletes it. The stream then runs under that
// credential, so revoking the token closes it as it closes any stream.

// TicketPrefix marks stream tickets, so that secret scanners find them and
// no one mistakes one for a bearer token.
const TicketPrefix = "cairn_st_"

// TicketTTL is how long a ticket can be redeemed: long enough for a page to
// open its EventSource, too short to be worth stealing from a log.
const TicketTTL = 60 * time.Second

// Grant is what a ticket opens: the stream of one operation for one record,
// under the credential of the caller who asked for it.
type Grant struct {
	Op         string `json:"op"`
	ID         string `json:"id"`
	Credential string `json:"credential"`
}

// Tickets issues and redeems stream tickets.
type Tickets interface {
	// Issue returns a new ticket for g, redeemable once within ttl.
	Issue(ctx context.Context, g Grant, ttl time.Duration) (ticket string, expires time.Time, err error)
	// Redeem answers the grant of a ticket and deletes it; false for a
	// ticket that is unknown, already redeemed or expired.
	Redeem(ctx context.Context, ticket string) (Grant, bool, error)
}

// ticketKeys derives from a ticket the name it is stored under and the key
// that seals its grant; neither gives the other.
func ticketKeys(ticket string) (name string, key []byte) {
	n := sha256.Sum256([]byte("cairn stream ticket name\x00" + ticket))
	k := sha256.Sum256([]byte("cairn stream ticket key\x00" + ticket))
	return hex.EncodeToString(n[:]), k[:]
}

func newTicket(g Grant) (ticket, name string, sealed []byte, err error) {
	raw := make([]byte, 32)
	if _, err := rand.Read(raw); err != nil {
		return "", "", nil, err
	}
	ticket = TicketPrefix + base64.RawURLEncoding.EncodeToString(raw)
	name, key := ticketKeys(ticket)
	plain, err := json.Marshal(g)
	if err != nil {
		return "", "", nil, err
	}
	aead, err := sealer(key)
	if err != nil {
		return "", "", nil, err
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", "", nil, err
	}
	return ticket, name, aead.Seal(nonce, nonce, plain, []byte(name)), nil
}

func open(ticket, name string, sealed []byte) (Grant, bool) {
	_, key := ticketKeys(ticket)
	aead, err := sealer(key)
	if err != nil || len(sealed) < aead.NonceSize() {
		return Grant{}, false
	}
	plain, err := aead.Open(nil, sealed[:aead.NonceSize()], sealed[aead.NonceSize():], []byte(name))
	if err != nil {
		return Grant{}, false
	}
	var g Grant
	return g, json.Unmarshal(plain, &g) == nil
}

func sealer(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// wellFormed rejects, before any lookup, what cannot be a ticket.
func wellFormed(ticket string) bool {
	return strings.HasPrefix(ticket, TicketPrefix) && len(ticket) < 128
}

// LocalTickets keeps tickets in process, for a single replica.
type LocalTickets struct {
	mu      sync.Mutex
	tickets map[string]localTicket
	now     func() time.Time
}

type localTicket struct {
	sealed  []byte
	expires time.Time
}

var _ Tickets = (*LocalTickets)(nil)

// NewLocalTickets returns an in-process ticket store.
func NewLocalTickets() *LocalTickets {
	return &LocalTickets{tickets: map[string]localTicket{}, now: time.Now}
}

// Issue implements Tickets. Expired tickets are forgotten on the way.
func (l *LocalTickets) Issue(_ context.Context, g Grant, ttl time.Duration) (string, time.Time, error) {
	ticket, name, sealed, err := newTicket(g)
	if err != nil {
		return "", time.Time{}, err
	}
	now := l.now()
	expires := now.Add(ttl)
	l.mu.Lock()
	defer l.mu.Unlock()
	for n, t := range l.tickets {
		if !now.Before(t.expires) {
			delete(l.tickets, n)
		}
	}
	l.tickets[name] = localTicket{sealed: sealed, expires: expires}
	return ticket, expires, nil
}

// Redeem implements Tickets.
func (l *LocalTickets) Redeem(_ context.Context, ticket string) (Grant, bool, error) {
	if !wellFormed(ticket) {
		return Grant{}, false, nil
	}
	name, _ := ticketKeys(ticket)
	l.mu.Lock()
	t, ok := l.tickets[name]
	delete(l.tickets, name)
	l.mu.Unlock()
	if !ok || !l.now().Before(t.expires) {
		return Grant{}, false, nil
	}
	g, ok := open(ticket, name, t.sealed)
	return g, ok, nil
}

// RedisTickets keeps tickets in Redis, so a ticket issued by one replica
// opens a stream on any other.
type RedisTickets struct {
	Client *redis.Client
	Prefix string // e.g. "cairn:ticket:"
}

var _ Tickets = RedisTickets{}

// Issue implements Tickets.
func (r RedisTickets) Issue(ctx context.Context, g Grant, ttl time.Duration) (string, time.Time, error) {
	ticket, name, sealed, err := newTicket(g)
	if err != nil {
		return "", time.Time{}, err
	}
	expires := time.Now().Add(ttl)
	if err := r.Client.Set(ctx, r.Prefix+name, sealed, ttl).Err(); err != nil {
		return "", time.Time{}, registry.Unavailable("stream tickets are unavailable; try again shortly", err)
	}
	return ticket, expires, nil
}

// Redeem implements Tickets: GETDEL, so two requests never redeem one
// ticket.
func (r RedisTickets) Redeem(ctx context.Context, ticket string) (Grant, bool, error) {
	if !wellFormed(ticket) {
		return Grant{}, false, nil
	}
	name, _ := ticketKeys(ticket)
	sealed, err := r.Client.GetDel(ctx, r.Prefix+name).Bytes()
	if errors.Is(err, redis.Nil) {
		return Grant{}, false, nil
	}
	if err != nil {
		return Grant{}, false, registry.Unavailable("stream tickets are unavailable; try again shortly", err)
	}
	g, ok := open(ticket, name, sealed)
	return g, ok, nil
}
