package storagetest

import (
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
)

// Outage is a way to a test service that a test can cut: a TCP relay on a
// port of its own. Cut closes the port and every connection through it, so
// clients find nothing listening, as when the service is down; Restore
// listens on the same port again. The shared service itself is never
// stopped.
type Outage struct {
	URL string // the service's URL, through the relay

	target string
	addr   string

	mu    sync.Mutex
	ln    net.Listener
	conns map[net.Conn]struct{}
	wg    sync.WaitGroup
}

// RedisOutage is an Outage of the test Redis.
type RedisOutage struct {
	*Outage
	Prefix string // a key prefix of the test's own, cleaned up when it ends
}

// NewRedisOutage starts a relay to RedisURL() and stops it when the test
// ends. It skips (or fails under CI) when Redis is not reachable.
func NewRedisOutage(t testing.TB) *RedisOutage {
	t.Helper()
	_, prefix := Redis(t) // skips, or fails under CI, as every Redis test does when it is down
	return &RedisOutage{Outage: newOutage(t, RedisURL()), Prefix: prefix}
}

// NewPostgresOutage makes a PostgreSQL database of the test's own
// (PostgresURL) and starts a relay to it, stopped when the test ends: URL
// reaches the database through the relay. It skips (or fails under CI)
// when PostgreSQL is not reachable.
func NewPostgresOutage(t testing.TB) *Outage {
	t.Helper()
	return newOutage(t, PostgresURL(t))
}

func newOutage(t testing.TB, service string) *Outage {
	t.Helper()
	u, err := url.Parse(service)
	if err != nil {
		t.Fatal(err)
	}
	o := &Outage{target: u.Host, conns: map[net.Conn]struct{}{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	o.addr = ln.Addr().String()
	relayed := *u
	relayed.Host = o.addr
	o.URL = relayed.String()
	o.serve(ln)
	t.Cleanup(o.Cut)
	return o
}

// Cut makes the service unreachable through the relay: nothing listens on
// its port and open connections are closed.
func (o *Outage) Cut() {
	o.mu.Lock()
	if o.ln != nil {
		_ = o.ln.Close()
		o.ln = nil
	}
	for c := range o.conns {
		_ = c.Close()
	}
	o.mu.Unlock()
	o.wg.Wait()
}

// Restore listens on the relay's port again.
func (o *Outage) Restore(t testing.TB) {
	t.Helper()
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		t.Fatalf("listen again on %s: %v", o.addr, err)
	}
	o.serve(ln)
}

func (o *Outage) serve(ln net.Listener) {
	o.mu.Lock()
	o.ln = ln
	o.mu.Unlock()
	o.wg.Add(1)
	go func() {
		defer o.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			o.relay(c)
		}
	}()
}

func (o *Outage) relay(c net.Conn) {
	up, err := net.Dial("tcp", o.target)
	if err != nil {
		_ = c.Close()
		return
	}
	o.mu.Lock()
	if o.ln == nil { // cut meanwhile
		o.mu.Unlock()
		_ = c.Close()
		_ = up.Close()
		return
	}
	o.conns[c], o.conns[up] = struct{}{}, struct{}{}
	o.mu.Unlock()
	pipe := func(dst, src net.Conn) {
		defer o.wg.Done()
		_, _ = io.Copy(dst, src) // until either end closes, or Cut closes both
		_ = dst.Close()
		_ = src.Close()
		o.mu.Lock()
		delete(o.conns, dst)
		delete(o.conns, src)
		o.mu.Unlock()
	}
	o.wg.Add(2)
	go pipe(up, c)
	go pipe(c, up)
}
