package apptest

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// RoundRobin is a load balancer in front of replicas, as a test starts
// it: each request goes to the next replica in turn, with no stickiness of
// any kind. A replica that refuses the connection (stopped) is skipped for
// that request, as a balancer's health check would; nothing else is
// retried. Event streams are passed on as they come.
type RoundRobin struct {
	URL      string
	mu       sync.Mutex
	backends []string
	next     atomic.Uint64
	served   map[string]int // requests each backend URL answered
	// OnRequest, when set, is called with the number of requests seen so
	// far, before each is sent on (a test's "halfway"); that request waits
	// for it, the others do not.
	OnRequest func(n int64)
	seen      atomic.Int64
}

// NewRoundRobin starts a balancer over backends (base URLs) for the
// test's duration.
func NewRoundRobin(t testing.TB, backends ...string) *RoundRobin {
	p := &RoundRobin{backends: append([]string(nil), backends...), served: map[string]int{}}
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	p.URL = srv.URL
	return p
}

// Set replaces backend slot i (a replica restarted on another port).
func (p *RoundRobin) Set(i int, url string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.backends[i] = url
}

// Seen is how many requests the balancer received.
func (p *RoundRobin) Seen() int64 { return p.seen.Load() }

// Served is how many requests the replica at url answered.
func (p *RoundRobin) Served(url string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.served[url]
}

// A connection per request: a stopped replica then refuses the next
// connection, rather than closing an idle one under a request in flight.
var balancerTransport = &http.Transport{DisableCompression: true, DisableKeepAlives: true}

// ServeHTTP implements http.Handler.
func (p *RoundRobin) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if n := p.seen.Add(1); p.OnRequest != nil {
		p.OnRequest(n)
	}
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	backends := append([]string(nil), p.backends...)
	p.mu.Unlock()
	start := int(p.next.Add(1))
	for k := range backends {
		slot := (start + k) % len(backends)
		out, err := http.NewRequestWithContext(r.Context(), r.Method, backends[slot]+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = r.Header.Clone()
		res, err := balancerTransport.RoundTrip(out)
		if err != nil {
			if refused(err) {
				continue // a stopped replica: the next one
			}
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		p.mu.Lock()
		p.served[backends[slot]]++
		p.mu.Unlock()
		relay(w, res)
		return
	}
	http.Error(w, "no replica is up", http.StatusBadGateway)
}

// refused reports whether a request never reached a replica.
func refused(err error) bool {
	var op *net.OpError
	return errors.Is(err, syscall.ECONNREFUSED) || (errors.As(err, &op) && op.Op == "dial")
}

// relay copies a replica's answer, flushing as it comes (event streams).
func relay(w http.ResponseWriter, res *http.Response) {
	defer res.Body.Close()
	for k, v := range res.Header {
		w.Header()[k] = v
	}
	w.WriteHeader(res.StatusCode)
	flusher, _ := w.(http.Flusher)
	buf := make([]byte, 32<<10)
	for {
		n, err := res.Body.Read(buf)
		if n > 0 {
			if _, werr := w.Write(buf[:n]); werr != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		}
		if err != nil {
			return
		}
	}
}
