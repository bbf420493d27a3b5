// Command loadbench measures the real Cairn server under load beside the
// bare stacks it is built on, and prints one table (`make bench-load`).
//
// In one run it builds ./cmd/cairn and starts it as a subprocess twice, on
// SQLite in a temporary data directory and on PostgreSQL in a database it
// creates and drops; it starts a bare huma server (a GET of a small object)
// and a bare go-sdk server (one trivial tool over streamable HTTP) as
// subprocesses of itself. It seeds each Cairn through its API (tokens with
// `cairn token create`, three-day trips with the GPX upload), then drives
// every row with 16 kept-alive connections for a bounded time and count,
// interleaving the rows over three runs, and prints for each the median
// requests per second, latency percentiles, the server's CPU per request
// (from /proc/PID/stat, background work the requests started included) and
// its ratio to the bare server of the same face.
//
// Where the machine has two CPUs or more, the servers run on CPU 0 and the
// generator on the last one; PostgreSQL's own processes are not moved, and
// their CPU is shown apart.
package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

func main() {
	var err error
	mode := ""
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	// The same program is the generator and, started again in a mode, the
	// bare servers and the pinning launcher.
	switch mode {
	case "pin":
		err = execPinned(os.Args[2:])
	case "bare-huma":
		err = serveBareHuma(os.Args[2:])
	case "bare-mcp":
		err = serveBareMCP(os.Args[2:])
	case "uploads":
		err = runUploads(os.Args[2:], os.Stdout)
	case "scale":
		err = runScale(os.Args[2:], os.Stdout)
	default:
		err = run(os.Args[1:], os.Stdout)
	}
	if err != nil && !errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(os.Stderr, "loadbench:", err)
		os.Exit(1)
	}
}

// options are the command's flags.
type options struct {
	limits
	runs     int
	warmup   time.Duration
	postgres string
	engines  string
	rows     string
	pprof    string
	pprofOut string
	overlay  string
	keep     bool
	verbose  bool
}

func parse(args []string) (options, error) {
	var o options
	fs := flag.NewFlagSet("loadbench", flag.ContinueOnError)
	fs.IntVar(&o.conns, "conns", 16, "concurrent connections per row")
	fs.DurationVar(&o.duration, "duration", 2*time.Second, "length of one run of one row")
	fs.Int64Var(&o.requests, "requests", 100_000, "most requests in one run of one row")
	fs.IntVar(&o.runs, "runs", 3, "interleaved runs per row (the table shows medians)")
	fs.DurationVar(&o.warmup, "warmup", 500*time.Millisecond, "unmeasured load on each row before the first run")
	fs.StringVar(&o.postgres, "postgres", "postgres://postgres@127.0.0.1:5432", "PostgreSQL server to create the benchmark database on; empty skips PostgreSQL")
	fs.StringVar(&o.engines, "engines", "sqlite,postgres", "Cairn engines to measure")
	fs.StringVar(&o.rows, "rows", "", "comma-separated row ids to measure (default all): "+strings.Join(rowIDs, ", "))
	fs.StringVar(&o.pprof, "pprof", "", "ENGINE/ROW to profile after the runs (e.g. sqlite/get_trip_mcp); builds the server with a pprof listener")
	fs.StringVar(&o.pprofOut, "pprof-out", "loadbench.prof", "where -pprof writes the CPU profile")
	fs.StringVar(&o.overlay, "overlay", "", "a go build -overlay file: measure a variant of the server without editing the tree")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory (logs, databases)")
	fs.BoolVar(&o.verbose, "v", false, "print every run")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if o.conns < 1 || o.runs < 1 || o.duration <= 0 || o.requests < 1 {
		return o, errors.New("conns, runs, duration and requests must be positive")
	}
	return o, nil
}

// rowIDs are the rows of a Cairn, in the table's order.
var rowIDs = []string{"get_trip_http", "state_http", "list_http", "get_trip_mcp", "get_trip_mcp_2026", "list_mcp", "list_mcp_2026",
	"write_http", "tools_list", "tools_list_2026"}

// row is one line of the table: one request shape against one server.
type row struct {
	id       string // engine/row id, or bare/...
	label    string
	server   string
	baseline string // id of the bare row it is compared with
	work     workload
	pid      int
	db       func() []int // PostgreSQL backends, nil otherwise
	results  []result
}

func run(args []string, stdout io.Writer) error {
	o, err := parse(args)
	if err != nil {
		return err
	}
	began := time.Now()
	dir, bin, done, err := workspace("cairn-loadbench-", o.keep, o.pprof != "", o.overlay)
	if err != nil {
		return err
	}
	defer done()
	loadBefore := loadAverage()
	// Placement: servers on CPU 0, this generator on the last CPU. The build
	// above ran before, on every CPU.
	serverCPU, pinned := -1, runtime.NumCPU() >= 2
	if pinned {
		serverCPU = 0
		if err := pinSelf(runtime.NumCPU() - 1); err != nil {
			fmt.Fprintln(os.Stderr, "loadbench: cannot pin the generator:", err)
			pinned, serverCPU = false, -1
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}

	var procs []*process
	var cleanups []func()
	defer func() {
		for _, p := range procs {
			p.stop()
		}
		for _, c := range slices.Backward(cleanups) {
			c()
		}
	}()

	var rows []*row
	var cairns []*cairnServer
	var transportSeen *transport
	for _, engine := range strings.Split(o.engines, ",") {
		engine = strings.TrimSpace(engine)
		if engine == "" {
			continue
		}
		if engine == "postgres" && o.postgres == "" {
			continue
		}
		fmt.Fprintf(os.Stderr, "loadbench: starting and seeding cairn on %s\n", engine)
		cs, cleanup, err := startCairn(engine, bin, dir, serverCPU, o)
		if cleanup != nil {
			cleanups = append(cleanups, cleanup)
		}
		if err != nil {
			if engine == "postgres" {
				fmt.Fprintln(os.Stderr, "loadbench: PostgreSQL skipped:", err)
				continue
			}
			return err
		}
		procs = append(procs, cs.proc)
		cairns = append(cairns, cs)
		tr := cs.transport
		transportSeen = &tr
		rows = append(rows, cs.rows()...)
	}
	if transportSeen == nil {
		return errors.New("no Cairn server could be started")
	}

	humaAddr, _ := freeAddr()
	huma, err := start("bare-huma", humaAddr, dir, serverCPU, nil, self, "bare-huma", "-addr", humaAddr)
	if err != nil {
		return err
	}
	procs = append(procs, huma)
	mcpAddr, _ := freeAddr()
	// The bare go-sdk server gets the transport Cairn answered with, so the
	// ratio compares like with like.
	mcpArgs := []string{"bare-mcp", "-addr", mcpAddr}
	if !transportSeen.Stateful {
		mcpArgs = append(mcpArgs, "-stateless")
	}
	if transportSeen.JSON {
		mcpArgs = append(mcpArgs, "-json")
	}
	bareMCP, err := start("bare-mcp", mcpAddr, dir, serverCPU, nil, self, mcpArgs...)
	if err != nil {
		return err
	}
	procs = append(procs, bareMCP)
	rows = append(bareRows(huma, bareMCP), rows...)
	rows = selectRows(rows, o.rows)

	fmt.Fprintf(os.Stderr, "loadbench: %d rows × %d runs of %v (at most %d requests), %d connections\n",
		len(rows), o.runs, o.duration, o.requests, o.conns)
	if o.warmup > 0 {
		for _, r := range rows {
			if _, err := drive(r.work, limits{conns: o.conns, duration: o.warmup, requests: o.requests}, r.pid, nil); err != nil {
				return fmt.Errorf("%s: warm-up: %w", r.id, err)
			}
		}
	}
	for i := range o.runs {
		for _, r := range rows {
			res, err := drive(r.work, o.limits, r.pid, r.db)
			if err != nil {
				return fmt.Errorf("%s: %w", r.id, err)
			}
			r.results = append(r.results, res)
			if o.verbose {
				fmt.Fprintf(os.Stderr, "run %d %-28s %8.0f req/s  %6.0f µs/req  %d errors  drained in %v\n",
					i+1, r.id, res.rps(), micros(res.cpuPerRequest()), res.errors, res.drained.Round(10*time.Millisecond))
			}
		}
	}

	fmt.Fprintf(stdout, "Cairn under load: %d connections, %d interleaved runs per row of %v or %d requests; medians.\n",
		o.conns, o.runs, o.duration, o.requests)
	printConditions(stdout, procs, pinned, loadBefore, transportSeen)
	printTable(stdout, rows)
	printTargets(stdout, rows)

	if o.pprof != "" {
		if err := profile(o, rows, cairns); err != nil {
			return err
		}
	}
	fmt.Fprintf(stdout, "\nwhole run: %v\n", time.Since(began).Round(time.Second))
	return nil
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// workspace makes the run's temporary directory (kept with keep, else
// removed by done) and builds the server into it, with a pprof listener
// when profiling, through a go build -overlay file when one is named.
func workspace(prefix string, keep, profiling bool, overlay string) (dir, bin string, done func(), err error) {
	root, err := moduleRoot()
	if err != nil {
		return "", "", nil, err
	}
	dir, err = os.MkdirTemp("", prefix)
	if err != nil {
		return "", "", nil, err
	}
	done = func() { _ = os.RemoveAll(dir) }
	if keep {
		fmt.Fprintln(os.Stderr, "loadbench: keeping", dir)
		done = func() {}
	}
	fmt.Fprintln(os.Stderr, "loadbench: building ./cmd/cairn")
	if bin, err = cairnBinary(root, dir, profiling, overlay); err != nil {
		done()
		return "", "", nil, err
	}
	return dir, bin, done, nil
}

func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	mod := strings.TrimSpace(string(out))
	if mod == "" || mod == os.DevNull {
		return "", errors.New("run from inside the Cairn module")
	}
	return filepath.Dir(mod), nil
}

func selectRows(rows []*row, only string) []*row {
	if only == "" {
		return rows
	}
	want := strings.Split(only, ",")
	var out []*row
	for _, r := range rows {
		_, short, _ := strings.Cut(r.id, "/")
		if slices.Contains(want, short) || slices.Contains(want, r.id) || strings.HasPrefix(r.id, "bare/") {
			out = append(out, r)
		}
	}
	return out
}

// bareRows are the baselines: bare huma, and the bare go-sdk at each
// revision.
func bareRows(huma, bareMCP *process) []*row {
	bare := func(id, label string, client mcpClient) *row {
		return &row{id: id, label: label, server: "bare", pid: bareMCP.pid(),
			work: workload{
				addr:     bareMCP.addr,
				setup:    func(c *conn, _ int) error { _, err := client.initialize(c); return err },
				next:     func(c *conn) []byte { return client.call(c, "get_object", `{"id":"4242"}`) },
				check:    checkCall("id"),
				teardown: client.end,
			}}
	}
	return []*row{
		{id: "bare/huma", label: "bare huma: GET of a small object", server: "bare", pid: huma.pid(),
			work: workload{
				addr: huma.addr,
				next: func(c *conn) []byte { return request(http.MethodGet, c.addr, "/objects/4242", nil) },
				check: func(c *conn, res *http.Response, _ bool) error {
					return status(c, res, http.StatusOK)
				},
			}},
		bare("bare/mcp", "bare go-sdk: tools/call of a trivial tool (2025-11-25)", mcpClient{path: "/mcp", revision: legacyRevision}),
		bare("bare/mcp_2026", "bare go-sdk: tools/call of a trivial tool (2026-07-28)", mcpClient{path: "/mcp", revision: currentRevision}),
	}
}

func status(c *conn, res *http.Response, want ...int) error {
	if !slices.Contains(want, res.StatusCode) {
		return fmt.Errorf("status %d: %.300s", res.StatusCode, c.body.String())
	}
	return nil
}

// median of the runs of one measure.
func median[T cmp.Ordered](rs []result, f func(result) T) T {
	vs := make([]T, len(rs))
	for i, r := range rs {
		vs[i] = f(r)
	}
	slices.Sort(vs)
	return vs[len(vs)/2]
}

func find(rows []*row, id string) *row {
	for _, r := range rows {
		if r.id == id {
			return r
		}
	}
	return nil
}

func printConditions(w io.Writer, procs []*process, pinned bool, loadBefore string, tr *transport) {
	fmt.Fprintf(w, "machine: %d CPUs, %s; load average before %s, after %s\n",
		runtime.NumCPU(), runtime.Version(), loadBefore, loadAverage())
	if pinned {
		fmt.Fprintf(w, "placement (sched_setaffinity): generator on CPU %s;", allowedCPUs(os.Getpid()))
		for _, p := range procs {
			fmt.Fprintf(w, " %s on CPU %s;", p.name, allowedCPUs(p.pid()))
		}
		fmt.Fprintln(w, " PostgreSQL's processes where the system puts them")
	} else {
		fmt.Fprintln(w, "placement: not pinned (one CPU, or sched_setaffinity refused)")
	}
	fmt.Fprintf(w, "MCP transport (Cairn's, and the bare go-sdk server's to match): %s\n\n", tr)
}

func printTable(w io.Writer, rows []*row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "row\tserver\treq/s\tp50 µs\tp90 µs\tp99 µs\tCPU µs/req\tvs bare\tDB CPU µs/req\terrors\t")
	for _, r := range rows {
		rs := r.results
		if len(rs) == 0 {
			continue
		}
		cpu := median(rs, func(x result) time.Duration { return x.cpuPerRequest() })
		ratio := "-"
		if q, ok := cpuRatio(rows, r); ok {
			ratio = fmt.Sprintf("%.1f×", q)
		}
		db := "-"
		if r.db != nil {
			db = fmt.Sprintf("%.0f", micros(median(rs, func(x result) time.Duration { return x.dbCPUPerRequest() })))
		}
		errs := 0
		for _, x := range rs {
			errs += x.errors
		}
		fmt.Fprintf(tw, "%s\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%s\t%d\t\n", r.label, r.server,
			median(rs, result.rps),
			micros(median(rs, func(x result) time.Duration { return x.percentile(0.50) })),
			micros(median(rs, func(x result) time.Duration { return x.percentile(0.90) })),
			micros(median(rs, func(x result) time.Duration { return x.percentile(0.99) })),
			micros(cpu), ratio, db, errs)
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "CPU: the server process's user+system time over the run and until it is idle again, per request;"+
		" vs bare: its median ratio, run by run, to bare huma (HTTP rows) or bare go-sdk (MCP rows);"+
		" DB CPU: PostgreSQL's backends for the server's database, which the server's own figure leaves out")
	for _, r := range rows {
		for _, x := range r.results {
			if x.firstErr != nil {
				fmt.Fprintf(w, "first error of %s: %v\n", r.id, x.firstErr)
				break
			}
		}
	}
}

// cpuRatio is the median over the runs of the row's CPU per request to its
// bare server's in the same run: each run's pair was measured minutes
// apart at most, so a machine busier in one run than in another moves
// both.
func cpuRatio(rows []*row, r *row) (float64, bool) {
	b := find(rows, r.baseline)
	if b == nil || len(b.results) != len(r.results) || len(r.results) == 0 {
		return 0, false
	}
	qs := make([]float64, len(r.results))
	for i := range r.results {
		qs[i] = float64(r.results[i].cpuPerRequest()) / float64(max(b.results[i].cpuPerRequest(), 1))
	}
	slices.Sort(qs)
	return qs[len(qs)/2], true
}

// targets are the ceilings of the CPU ratios the project holds itself to.
var targets = []struct {
	row string
	max float64
}{
	{"sqlite/get_trip_http", 4}, {"postgres/get_trip_http", 4},
	{"sqlite/get_trip_mcp", 1.5}, {"postgres/get_trip_mcp", 1.5},
	{"sqlite/get_trip_mcp_2026", 1.5}, {"postgres/get_trip_mcp_2026", 1.5},
}

func printTargets(w io.Writer, rows []*row) {
	fmt.Fprintln(w)
	for _, t := range targets {
		r := find(rows, t.row)
		if r == nil || len(r.results) == 0 {
			continue
		}
		b := find(rows, r.baseline)
		if b == nil || len(b.results) == 0 {
			continue
		}
		cpu := median(r.results, func(x result) time.Duration { return x.cpuPerRequest() })
		base := median(b.results, func(x result) time.Duration { return x.cpuPerRequest() })
		ratio, _ := cpuRatio(rows, r)
		verdict := "met"
		if ratio > t.max {
			verdict = "NOT met"
		}
		fmt.Fprintf(w, "target %-24s CPU at most %.1f× %s: %.2f× (medians %.0f µs and %.0f µs) — %s\n",
			t.row, t.max, b.id, ratio, micros(cpu), micros(base), verdict)
	}
}
