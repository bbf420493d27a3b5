package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// The load generator speaks HTTP/1.1 itself over one kept-alive connection
// per worker: a request is prepared bytes, a response is read with
// http.ReadResponse. It costs a few microseconds a request, so one core
// keeps a server on the other core busy, and the connection count is
// exactly the worker count.

// conn is one worker's connection and what it carries between requests
// (an MCP session, a version to send back).
type conn struct {
	addr string
	nc   net.Conn
	br   *bufio.Reader
	body bytes.Buffer

	session  string // Mcp-Session-Id, when the server keeps sessions
	protocol string // the negotiated MCP protocol version
	state    any    // the row's own per-connection state
	seq      int    // requests sent on this connection
}

func dial(addr string) (*conn, error) {
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return nil, err
	}
	return &conn{addr: addr, nc: nc, br: bufio.NewReaderSize(nc, 16<<10)}, nil
}

func (c *conn) close() { _ = c.nc.Close() }

// do sends one request and reads its whole answer into c.body.
func (c *conn) do(req []byte) (*http.Response, error) {
	_ = c.nc.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := c.nc.Write(req); err != nil {
		return nil, err
	}
	res, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return nil, err
	}
	c.body.Reset()
	_, err = c.body.ReadFrom(res.Body)
	res.Body.Close()
	if err != nil {
		return nil, err
	}
	if res.Close {
		return res, errors.New("the server closed the connection")
	}
	return res, nil
}

// request builds an HTTP/1.1 request. headers alternate names and values.
func request(method, addr, path string, body []byte, headers ...string) []byte {
	var b bytes.Buffer
	b.Grow(256 + len(body))
	b.WriteString(method + " " + path + " HTTP/1.1\r\nHost: " + addr + "\r\n")
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] != "" {
			b.WriteString(headers[i] + ": " + headers[i+1] + "\r\n")
		}
	}
	if body != nil || method == http.MethodPost || method == http.MethodPatch {
		b.WriteString("Content-Length: " + strconv.Itoa(len(body)) + "\r\n")
	}
	b.WriteString("\r\n")
	b.Write(body)
	return b.Bytes()
}

// workload is what a row asks of a server.
type workload struct {
	addr string
	// setup prepares a new connection (an MCP session); nil when nothing is needed.
	setup func(c *conn, worker int) error
	// next is the request to send next on c.
	next func(c *conn) []byte
	// check judges an answer; deep asks for a full check (the first answer
	// of each connection), a cheap one is enough otherwise.
	check func(c *conn, res *http.Response, deep bool) error
	// teardown ends a connection's session; nil when nothing is needed.
	teardown func(c *conn)
}

// result is one run of one row.
type result struct {
	requests  int
	errors    int
	firstErr  error
	elapsed   time.Duration
	latencies []time.Duration // sorted
	cpu       time.Duration   // the server's CPU over the run and its drain
	dbCPU     time.Duration   // the database backends' CPU (PostgreSQL)
	drained   time.Duration   // how long the server took to go idle after the load
}

func (r result) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func (r result) percentile(p float64) time.Duration { return pct(r.latencies, p) }

func (r result) cpuPerRequest() time.Duration {
	if r.requests == 0 {
		return 0
	}
	return r.cpu / time.Duration(r.requests)
}

func (r result) dbCPUPerRequest() time.Duration {
	if r.requests == 0 {
		return 0
	}
	return r.dbCPU / time.Duration(r.requests)
}

// limits bound one run.
type limits struct {
	conns    int
	duration time.Duration
	requests int64
}

// drive runs w with lim.conns workers until lim.duration has passed or
// lim.requests were sent, and measures the server (pid) and its database
// backends (dbPIDs, read at the start) meanwhile. The CPU window closes
// when the server is idle again, so background work a request started (a
// job it dispatched) is counted with it.
func drive(w workload, lim limits, pid int, dbPIDs func() []int) (result, error) {
	conns := make([]*conn, lim.conns)
	defer func() {
		for _, c := range conns {
			if c != nil {
				if w.teardown != nil {
					w.teardown(c)
				}
				c.close()
			}
		}
	}()
	for i := range conns {
		c, err := dial(w.addr)
		if err != nil {
			return result{}, err
		}
		conns[i] = c
		if w.setup != nil {
			if err := w.setup(c, i); err != nil {
				return result{}, fmt.Errorf("connection setup: %w", err)
			}
		}
	}
	waitIdle(pid, 2*time.Second) // the setup's own work is not the row's
	db0 := backendTimes(dbPIDs)
	cpu0, err := cpuTime(pid)
	if err != nil {
		return result{}, err
	}

	var (
		sent     atomic.Int64
		wg       sync.WaitGroup
		mu       sync.Mutex
		out      result
		lats     = make([][]time.Duration, lim.conns)
		start    = time.Now()
		deadline = start.Add(lim.duration)
	)
	for i, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			errs := 0
			var first error
			deep := true
			for time.Now().Before(deadline) && sent.Add(1) <= lim.requests {
				req := w.next(c)
				t0 := time.Now()
				res, err := c.do(req)
				local = append(local, time.Since(t0))
				c.seq++
				if err == nil {
					err = w.check(c, res, deep)
				}
				deep = false
				if err != nil {
					errs++
					if first == nil {
						first = err
					}
					if res == nil || res.Close { // the connection is unusable: open another
						c.close()
						if nc, derr := dial(w.addr); derr == nil {
							*c = *nc
							if w.setup != nil {
								_ = w.setup(c, i)
							}
						} else {
							break
						}
					}
				}
			}
			lats[i] = local
			mu.Lock()
			out.errors += errs
			if out.firstErr == nil {
				out.firstErr = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	out.drained = waitIdle(pid, 15*time.Second)
	cpu1, err := cpuTime(pid)
	if err != nil {
		return result{}, err
	}
	out.cpu = cpu1 - cpu0
	for pid, t := range backendTimes(dbPIDs) {
		out.dbCPU += t - db0[pid] // a backend born during the run counts from zero
	}
	for _, l := range lats {
		out.latencies = append(out.latencies, l...)
	}
	out.requests = len(out.latencies)
	slices.Sort(out.latencies)
	return out, nil
}

// backendTimes reads the CPU time of each database backend. A backend
// that exits during a run takes its time with it: the figure is a floor.
func backendTimes(list func() []int) map[int]time.Duration {
	out := map[int]time.Duration{}
	if list == nil {
		return out
	}
	for _, pid := range list() {
		if t, err := cpuTime(pid); err == nil {
			out[pid] = t
		}
	}
	return out
}

// waitIdle waits until pid used at most one clock tick in 200 ms (or max
// passed) and says how long that took.
func waitIdle(pid int, max time.Duration) time.Duration {
	start := time.Now()
	prev, err := cpuTime(pid)
	if err != nil {
		return 0
	}
	for time.Since(start) < max {
		time.Sleep(200 * time.Millisecond)
		now, err := cpuTime(pid)
		if err != nil || now-prev <= clockTick {
			break
		}
		prev = now
	}
	return time.Since(start)
}
