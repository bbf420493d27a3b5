package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/uptrace/bun/dialect"
	"golang.org/x/sync/errgroup"

	"cairn.dev/cairn/app"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/route/decimate"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/planner"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// The scale mode (`make bench-scale`) measures Cairn over many users and
// trips: it seeds users with trips of 3 to 30 computed days straight into
// the database through the trip store, then drives a mix of reads and
// writes over both faces, the users picked by a Zipf distribution, once
// at full load and once at half the throughput that reached, and each
// operation alone for its CPU. It runs on SQLite (one server) and on
// PostgreSQL with Redis (replicas side by side), at the full size and at
// a hundredth of it, so the growth is a figure.

type scaleOptions struct {
	users, tripsPerUser, smallUsers int
	conns                           int
	duration                        time.Duration
	engines                         string
	postgres, redis                 string
	replicas                        int
	skew                            float64
	keep                            bool
	pprof                           string
}

// scaleOp is one kind of request of the mix.
type scaleOp struct {
	name   string
	weight float64
	read   bool
}

// checkSizes refuses sizes the edits cannot run on, naming the flag: with
// fewer users than connections, connections share a user, each editing
// trips of its own (a settings edit one of the routed trips, a stage edit
// among the rest), so each user needs two trips a sharing connection.
func (o scaleOptions) checkSizes() error {
	if o.conns < 1 {
		return fmt.Errorf("-conns %d: at least one connection is needed", o.conns)
	}
	for _, size := range []struct {
		flag  string
		users int
	}{{"-users", o.users}, {"-small-users", o.smallUsers}} {
		if size.users < 1 {
			return fmt.Errorf("%s %d: at least one user is needed", size.flag, size.users)
		}
		share := (o.conns + size.users - 1) / size.users
		if need := 2 * share; o.tripsPerUser < need {
			return fmt.Errorf("-trips %d: with %s %d and -conns %d, %d connections share each user and edit trips of their own, "+
				"so each user needs at least %d trips: raise -trips or %s, or lower -conns",
				o.tripsPerUser, size.flag, size.users, o.conns, share, need, size.flag)
		}
	}
	return nil
}

// The mix: 80 % get_trip, 10 % list_trips (reads, half over each face), 5 %
// settings edits that recut the days, 5 % edits of a day (HTTP).
var mixOps = []scaleOp{
	{"get_trip", 0.80, true}, {"list_trips", 0.10, true},
	{"settings_edit", 0.05, false}, {"stage_edit", 0.05, false},
}

func runScale(args []string, stdout io.Writer) error {
	var o scaleOptions
	fs := flag.NewFlagSet("loadbench scale", flag.ContinueOnError)
	fs.IntVar(&o.users, "users", 1000, "users at full size")
	fs.IntVar(&o.tripsPerUser, "trips", 100, "trips of each user")
	fs.IntVar(&o.smallUsers, "small-users", 10, "users of the small size (the growth's base)")
	fs.IntVar(&o.conns, "conns", 16, "concurrent connections")
	fs.DurationVar(&o.duration, "duration", 4*time.Second, "length of each measured run")
	fs.StringVar(&o.engines, "engines", "sqlite,postgres", "engines to measure")
	fs.StringVar(&o.postgres, "postgres", "postgres://postgres@127.0.0.1:5432", "PostgreSQL server")
	fs.StringVar(&o.redis, "redis", "redis://127.0.0.1:6379/0", "Redis the PostgreSQL replicas share")
	fs.IntVar(&o.replicas, "replicas", 2, "Cairn replicas over PostgreSQL")
	fs.Float64Var(&o.skew, "zipf", 1.1, "Zipf exponent of the users' popularity (> 1)")
	fs.BoolVar(&o.keep, "keep", false, "keep the temporary directory")
	fs.StringVar(&o.pprof, "pprof", "", "OP/FACE (e.g. get_trip/http) to profile when run alone at full size, or mix or half for the whole mix at full or half load, into scale-ENGINE.prof")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := o.checkSizes(); err != nil {
		return err
	}
	began := time.Now()
	dir, bin, done, err := workspace("cairn-scale-", o.keep, o.pprof != "", "")
	if err != nil {
		return err
	}
	defer done()
	loadBefore := loadAverage()
	serverCPU := -1
	if runtime.NumCPU() >= 2 {
		serverCPU = 0
		if err := pinSelf(runtime.NumCPU() - 1); err != nil {
			serverCPU = -1
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	humaAddr, _ := freeAddr()
	huma, err := start("bare-huma", humaAddr, dir, serverCPU, nil, self, "bare-huma", "-addr", humaAddr)
	if err != nil {
		return err
	}
	defer huma.stop()
	var runs []*scaleRun
	for _, engine := range strings.Split(o.engines, ",") {
		for _, users := range []int{o.users, o.smallUsers} {
			run, err := measureScale(o, engine, users, bin, dir, serverCPU)
			if err != nil {
				return fmt.Errorf("%s, %d users: %w", engine, users, err)
			}
			runs = append(runs, run)
		}
	}
	if len(runs) == 0 {
		return errors.New("no engine measured")
	}
	// The bare go-sdk server speaks the transport Cairn answered with.
	mcpArgs := []string{"bare-mcp", "-addr", ""}
	if !runs[0].transport.Stateful {
		mcpArgs = append(mcpArgs, "-stateless")
	}
	if runs[0].transport.JSON {
		mcpArgs = append(mcpArgs, "-json")
	}
	mcpAddr, _ := freeAddr()
	mcpArgs[2] = mcpAddr
	bareMCP, err := start("bare-mcp", mcpAddr, dir, serverCPU, nil, self, mcpArgs...)
	if err != nil {
		return err
	}
	defer bareMCP.stop()
	bare := bareRows(huma, bareMCP)[:2]
	lim := limits{conns: o.conns, duration: o.duration, requests: 1 << 40}
	var bareCPU [2]time.Duration
	for i, r := range bare {
		if _, err := drive(r.work, limits{conns: o.conns, duration: time.Second, requests: 1 << 40}, r.pid, nil); err != nil {
			return err
		}
		res, err := drive(r.work, lim, r.pid, nil)
		if err != nil {
			return err
		}
		r.results = append(r.results, res)
		bareCPU[i] = res.cpuPerRequest()
	}

	fmt.Fprintf(stdout, "Cairn at scale: %d connections, %v runs; users picked by Zipf (s=%.2f); %d trips per user of 3 to 30 days.\n",
		o.conns, o.duration, o.skew, o.tripsPerUser)
	fmt.Fprintf(stdout, "machine: %d CPUs, %s; load average before %s, after %s; servers on CPU %d, generator on CPU %d\n\n",
		runtime.NumCPU(), runtime.Version(), loadBefore, loadAverage(), serverCPU, runtime.NumCPU()-1)
	printScale(stdout, o, bare, bareCPU, runs)
	fmt.Fprintf(stdout, "\nwhole run: %v\n", time.Since(began).Round(time.Second))
	return nil
}

// scaleRun is what one engine at one size measured.
type scaleRun struct {
	engine    string
	transport transport
	replicas  int
	users     int
	trips     int
	days      int
	seeded    time.Duration
	mix       scaleResult
	half      scaleResult
	alone     map[string]scaleResult // by op/face
	logged    []string               // the servers' errors and panics
}

// scaleResult is one run of the driver: per operation and face.
type scaleResult struct {
	elapsed time.Duration
	byOp    map[string]*opStats
	cpu     time.Duration
	dbCPU   time.Duration
	total   int
	errors  int
	stale   int // edits that found a newer version and were sent again
	first   error
	// scraped is the servers' goroutines' waits for a CPU, under the load,
	// and how the trips' hot reads were answered; nil when not read.
	scraped *scraped
}

type opStats struct {
	lats   []time.Duration
	errors int
}

func (r scaleResult) cpuPerRequest() time.Duration {
	return r.cpu / time.Duration(max(r.total, 1))
}

func (r scaleResult) dbPerRequest() time.Duration {
	return r.dbCPU / time.Duration(max(r.total, 1))
}

// world is the seeded data as the generator addresses it: ids are
// derived from indices, so nothing of 100,000 trips is held.
type world struct {
	users        int
	tripsPerUser int
	routed       int // the first trips of each user, which have a route: one a connection sharing the user
	tokens       []string
}

func tripID(user, trip int) string {
	return fmt.Sprintf("00000000-0000-7000-8000-%06d%06d", user, trip)
}

func stageID(user, trip, pos int) string {
	return fmt.Sprintf("00000000-%04d-7000-9000-%06d%06d", pos, user, trip)
}

// daysOf is a trip's number of days, 3 to 30, fixed by its indices.
func daysOf(user, trip int) int {
	h := fnv.New32a()
	_, _ = fmt.Fprintf(h, "%d/%d", user, trip)
	return 3 + int(h.Sum32()%28)
}

func measureScale(o scaleOptions, engine string, users int, bin, dir string, cpu int) (*scaleRun, error) {
	run := &scaleRun{engine: engine, users: users, trips: users * o.tripsPerUser, replicas: 1, alone: map[string]scaleResult{}}
	var env []string
	var db func() []int
	switch engine {
	case "sqlite":
		env = []string{"CAIRN_DATA_DIR=" + filepath.Join(dir, fmt.Sprintf("scale-sqlite-%d", users))}
	case "postgres":
		url, drop, err := postgresDB(o.postgres)
		if err != nil {
			return nil, err
		}
		defer drop()
		env = []string{"CAIRN_DATABASE_URL=" + url, "CAIRN_REDIS_URL=" + o.redis}
		db = backends(o.postgres, dbName(url))
		run.replicas = o.replicas
	default:
		return nil, fmt.Errorf("unknown engine %q", engine)
	}
	if _, err := cairnCommand(bin, env, "migrate"); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "loadbench: seeding %s with %d users × %d trips\n", engine, users, o.tripsPerUser)
	t0 := time.Now()
	// With fewer users than connections, connections share a user, each
	// writing trips of its own slot: so many trips a user have a route.
	share := (o.conns + users - 1) / users
	w, days, err := seedScale(env, users, o.tripsPerUser, share)
	if err != nil {
		return nil, fmt.Errorf("seeding: %w", err)
	}
	run.seeded, run.days = time.Since(t0), days
	fmt.Fprintf(os.Stderr, "loadbench: seeded %d trips, %d days in %v\n", run.trips, days, run.seeded.Round(time.Second))

	var procs []*process
	defer func() {
		for _, p := range procs {
			p.stop()
		}
	}()
	pprofAddr := ""
	var metricsURLs []string
	for i := range run.replicas {
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		metricsAddr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		metricsURLs = append(metricsURLs, "http://"+metricsAddr+"/metrics")
		serveEnv := append([]string{"CAIRN_ADDR=" + addr, "CAIRN_METRICS_ADDR=" + metricsAddr}, env...)
		if i == 0 && o.pprof != "" {
			pprofAddr, _ = freeAddr()
			serveEnv = append(serveEnv, "LOADBENCH_PPROF="+pprofAddr)
		}
		p, err := start(fmt.Sprintf("cairn-scale-%s-%d-%d", engine, users, i), addr, dir, cpu, serveEnv, bin, "serve")
		if err != nil {
			return nil, err
		}
		procs = append(procs, p)
	}
	c, err := dial(procs[0].addr)
	if err != nil {
		return nil, err
	}
	client := mcpClient{path: "/mcp", token: w.tokens[0], revision: legacyRevision}
	run.transport, err = client.initialize(c)
	client.end(c)
	c.close()
	if err != nil {
		return nil, fmt.Errorf("MCP: %w", err)
	}
	d := &scaleDriver{w: w, procs: procs, db: db, conns: o.conns, skew: o.skew, metrics: metricsURLs}
	reads := []scaleOp{mixOps[0], mixOps[1]}
	// Warm-up: the prepared statements, the first reads of the hottest trips.
	if _, err := d.run(reads, "both", time.Second, 0); err != nil {
		return nil, err
	}
	// Each read alone first, while nothing an edit dispatched runs beside.
	alone := func(op scaleOp, face string) error {
		var stop func() error
		if pprofAddr != "" && op.name+"/"+face == o.pprof && users == o.users {
			stop = startProfile(pprofAddr, "scale-"+engine+".prof", 10)
		}
		res, err := d.run([]scaleOp{{op.name, 1, op.read}}, face, o.duration/2, 0)
		if stop != nil {
			err = errors.Join(err, stop())
		}
		run.alone[op.name+"/"+face] = res
		return err
	}
	for _, op := range reads {
		for _, face := range []string{"http", "mcp"} {
			if err := alone(op, face); err != nil {
				return nil, err
			}
		}
	}
	fmt.Fprintf(os.Stderr, "loadbench: %s %d users: the mix\n", engine, users)
	// A whole mix is profiled from its start to its end.
	mix := func(rate float64, name string) (scaleResult, error) {
		if pprofAddr == "" || o.pprof != name || users != o.users {
			return d.run(mixOps, "both", o.duration, rate)
		}
		var stop func() error
		d.started = func() { stop = startProfile(pprofAddr, "scale-"+engine+".prof", int(math.Ceil(o.duration.Seconds()))) }
		res, err := d.run(mixOps, "both", o.duration, rate)
		d.started = nil
		if stop != nil {
			err = errors.Join(err, stop())
		}
		return res, err
	}
	if run.mix, err = mix(0, "mix"); err != nil {
		return nil, err
	}
	rate := float64(run.mix.total) / run.mix.elapsed.Seconds() / 2
	if run.half, err = mix(rate, "half"); err != nil {
		return nil, err
	}
	for _, op := range mixOps[2:] {
		if err := alone(op, "http"); err != nil {
			return nil, err
		}
	}
	for _, p := range procs {
		if b, err := os.ReadFile(p.log); err == nil {
			for _, line := range strings.Split(string(b), "\n") {
				if strings.Contains(line, "panic") || strings.Contains(line, "level=ERROR") {
					run.logged = append(run.logged, p.name+": "+line)
				}
			}
		}
	}
	return run, nil
}

// seedScale stores users, their tokens and their trips with their days
// through the account and trip stores (in one transaction on SQLite, three
// at once on PostgreSQL), and answers the tokens and the number of days.
// Each user's first trip also has a route (the days of a settings edit are
// cut from it); the others have their days only.
func seedScale(env []string, users, perUser, routed int) (world, int, error) {
	ctx := context.Background()
	cfg, err := config.Load("", env, planner.Keys()...)
	if err != nil {
		return world{}, 0, err
	}
	reg, err := app.Registry(planner.Product(), cfg)
	if err != nil {
		return world{}, 0, err
	}
	db, _, err := storage.Open(cfg.DatabaseURL, cfg.DataDir)
	if err != nil {
		return world{}, 0, err
	}
	defer db.Close()
	acc := accounts.NewStore(db, reg)
	store := trips.NewStore(db)
	w := world{users: users, tripsPerUser: perUser, routed: routed, tokens: make([]string, users)}
	// PostgreSQL takes the users in three transactions at once, so that
	// building the statements and running them overlap (SQLite writes one
	// transaction at a time).
	pg := db.Dialect().Name() == dialect.PG
	workers := 1
	if pg {
		workers = 3
	}
	counted := make([]int, workers)
	var g errgroup.Group
	for k := range workers {
		g.Go(func() error {
			from, to := k*users/workers, (k+1)*users/workers
			return storage.Tx{DB: db}.InTx(ctx, func(ctx context.Context) error {
				n, err := seedUsers(ctx, acc, store, &w, from, to)
				counted[k] = n
				return err
			})
		})
	}
	if err := g.Wait(); err != nil {
		return w, 0, err
	}
	days := 0
	for _, n := range counted {
		days += n
	}
	// The planner's statistics, as a database that has lived has them: just
	// after a bulk load they describe empty tables, and PostgreSQL then
	// joins the listing's day counts by scanning every day. PostgreSQL is
	// also vacuumed, as pgbench does before it measures: otherwise its
	// autovacuum visits the million fresh rows during the runs, and its
	// CPU is counted among the database's backends of whatever runs then.
	maintain := "ANALYZE"
	if pg {
		maintain = "VACUUM ANALYZE"
	}
	_, err = db.ExecContext(ctx, maintain)
	return w, days, err
}

// seedUsers stores users from to to (not included) in ctx's transaction,
// with their tokens (into w.tokens, by user) and their trips and days, in
// multi-row statements of about 20,000 days; it answers how many days.
func seedUsers(ctx context.Context, acc *accounts.Store, store *trips.Store, w *world, from, to int) (int, error) {
	var (
		batchTrips  []*trips.Trip
		batchStages []trips.Stage
		routes      []*trips.RouteRecord
		days        int
	)
	flush := func() error {
		if err := store.Seed(ctx, batchTrips, batchStages); err != nil {
			return err
		}
		for _, rec := range routes {
			if err := store.SaveRoute(ctx, rec); err != nil {
				return err
			}
		}
		batchTrips, batchStages, routes = batchTrips[:0], batchStages[:0], routes[:0]
		return nil
	}
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for u := from; u < to; u++ {
		user, _, err := acc.EnsureUser(ctx, fmt.Sprintf("rider%d@scale.test", u))
		if err != nil {
			return days, err
		}
		tok, err := acc.CreateToken(ctx, user.ID, "scale", []registry.Scope{"trips:read", "trips:write"}, 0)
		if err != nil {
			return days, err
		}
		w.tokens[u] = tok
		for j := range w.tripsPerUser {
			tr := seedTrip(user.ID, u, j, created.Add(time.Duration(u*w.tripsPerUser+j)*time.Minute))
			n := daysOf(u, j)
			if j < w.routed {
				rec, stages, err := seedRoute(ctx, tr, u, j, n)
				if err != nil {
					return days, err
				}
				routes = append(routes, rec)
				batchStages = append(batchStages, stages...)
				n = len(stages)
			} else {
				for pos := range n {
					batchStages = append(batchStages, seedStage(tr.ID, stageID(u, j, pos), pos))
				}
			}
			days += n
			batchTrips = append(batchTrips, tr)
		}
		if len(batchStages) >= 20_000 {
			if err := flush(); err != nil {
				return days, err
			}
		}
	}
	return days, flush()
}

func seedTrip(userID string, u, j int, created time.Time) *trips.Trip {
	title := fmt.Sprintf("Trip %d of rider %d", j, u)
	status := map[string]string{}
	for _, c := range trips.Computations {
		status[c] = trips.StatusDone
	}
	return &trips.Trip{ID: tripID(u, j), UserID: userID, Title: &title,
		SourceURL: "https://www.strava.com/routes/" + strconv.Itoa(u*1000+j), FatigueFactor: 0.9, ElevationPenalty: 50,
		MaxDistancePerDay: 80, AverageSpeed: 15, DepartureHour: 8, EnabledAccommodationTypes: trips.TypeList{"camp_site", "hotel"},
		Locale: "en", Status: trips.StatusReady, ComputationStatus: trips.StatusMap(status), Version: 1, Generation: 1, Revision: 1,
		Alerts: trips.AlertGroups{}, CreatedAt: created, UpdatedAt: created}
}

func seedStage(tripID, id string, pos int) trips.Stage {
	a := geo.Point{Lat: 45 + float64(pos)*0.01, Lon: 6 + float64(pos)*0.9, Ele: 400}
	b := geo.Point{Lat: 45 + float64(pos+1)*0.01, Lon: 6 + float64(pos+1)*0.9, Ele: 450}
	return trips.Stage{ID: id, TripID: tripID, Position: pos, Distance: 71.3, Ascent: 820, Descent: 790,
		StartPoint: trips.Point(a), EndPoint: trips.Point(b), Geometry: trips.Points{a, b},
		Alerts: trips.AlertGroups{trips.ComputeTerrain: {}}}
}

// seedRoute is a route of about n days' riding, a point every 2 km, and the
// days the planner cuts from it.
func seedRoute(ctx context.Context, tr *trips.Trip, u, j, n int) (*trips.RouteRecord, []trips.Stage, error) {
	km := float64(n) * 75
	points := int(km/2) + 1
	raw := make([]geo.Point, points)
	dLon := 2000 / (111_320 * math.Cos(45*math.Pi/180))
	for i := range raw {
		raw[i] = geo.Point{Lat: 45 + 0.02*math.Sin(float64(i)/20), Lon: 2 + math.Mod(float64(i)*dLon, 10), Ele: 400 + 200*math.Sin(float64(i)/15)}
	}
	dec := decimate.Simplify(raw, decimate.Tolerance)
	up, down := gpx.Ascent(raw)
	rec := &trips.RouteRecord{TripID: tr.ID, SourceType: "gpx_upload", Raw: raw, Decimated: dec,
		Distance: geo.Length(raw) / 1000, Ascent: up, Descent: down, PointCount: len(raw), CreatedAt: tr.CreatedAt}
	planned, err := trips.Plan(ctx, tr, rec)
	if err != nil && len(planned) == 0 {
		return nil, nil, err
	}
	stages := make([]trips.Stage, len(planned))
	for i, s := range planned {
		stages[i] = trips.Stage{ID: stageID(u, j, i), TripID: tr.ID, Position: i, Distance: s.Distance, Ascent: s.Ascent,
			Descent: s.Descent, StartPoint: trips.Point(s.Start), EndPoint: trips.Point(s.End), Geometry: s.Geometry,
			Alerts: trips.AlertGroups{trips.ComputeTerrain: {}}}
	}
	return rec, stages, nil
}

// scaleDriver sends the mix to the replicas, a connection to each in turn.
type scaleDriver struct {
	w     world
	procs []*process
	db    func() []int
	conns int
	skew  float64
	// started, when set, is called as the load of a run begins: after the
	// wait for the servers' idle and the connections' set-up.
	started func()
	metrics []string // the servers' metrics listeners
}

// scaleConn is one connection and what it knows: the versions of the
// trips it wrote. Writes go to users of its own (user % conns), so no two
// connections race for one version; reads go to any user.
type scaleConn struct {
	*conn
	index    int
	rng      *rand.Rand
	readers  *rand.Zipf // over every user
	writers  *rand.Zipf // over this connection's users
	versions map[string]int64
	mcp      bool // reads go over MCP
	init     func(*conn) (transport, error)
}

// redial opens the connection again, with its MCP conversation.
func (c *scaleConn) redial() error {
	addr := c.addr
	c.close()
	nc, err := dial(addr)
	if err != nil {
		return err
	}
	c.conn = nc
	if c.mcp {
		_, err = c.init(nc)
	}
	return err
}

func (d *scaleDriver) pids() []int {
	out := make([]int, len(d.procs))
	for i, p := range d.procs {
		out[i] = p.pid()
	}
	return out
}

// idleWait bounds the wait for the servers' idle before a run: the jobs
// an earlier run's edits dispatched are not the next run's.
const idleWait = 20 * time.Second

// run drives ops for duration over face ("http", "mcp", or "both": half
// the connections read over each), closed-loop when rate is 0, else paced
// to rate requests per second in all (latency then counts from the time a
// request was due, so a stall is not hidden).
func (d *scaleDriver) run(ops []scaleOp, face string, duration time.Duration, rate float64) (scaleResult, error) {
	conns := make([]*scaleConn, d.conns)
	defer func() {
		for _, c := range conns {
			if c != nil {
				c.close()
			}
		}
	}()
	pids := d.pids()
	// Wait first, then open the connections: what an earlier run
	// dispatched is not this one's, and a connection opened and left
	// without a request for longer than the server's header timeout (10 s)
	// is closed by the server, as it should be.
	for _, pid := range pids {
		if waited := waitIdle(pid, idleWait); waited >= idleWait {
			fmt.Fprintf(os.Stderr, "loadbench: a server was still busy %s after the last run (its jobs); this run shares its CPU with them\n", idleWait)
		}
	}
	own := max(d.w.users/d.conns, 1)
	for i := range conns {
		p := d.procs[i%len(d.procs)]
		c, err := dial(p.addr)
		if err != nil {
			return scaleResult{}, err
		}
		rng := rand.New(rand.NewPCG(uint64(i), uint64(time.Now().UnixNano())))
		sc := &scaleConn{conn: c, index: i, rng: rng, versions: map[string]int64{},
			readers: rand.NewZipf(rng, d.skew, 1, uint64(d.w.users-1)),
			writers: rand.NewZipf(rng, d.skew, 1, uint64(own-1)),
			mcp:     face == "mcp" || face == "both" && i%2 == 1}
		conns[i] = sc
		sc.init = mcpClient{path: "/mcp", token: d.w.tokens[0], revision: legacyRevision}.initialize
		if sc.mcp {
			if _, err := sc.init(c); err != nil {
				return scaleResult{}, fmt.Errorf("MCP: %w", err)
			}
		}
	}
	var dbPIDs []int
	if d.db != nil {
		dbPIDs = d.db()
	}
	if d.started != nil {
		d.started()
	}
	scraped0 := scrape(d.metrics)
	db0 := cpuOf(dbPIDs)
	cpu0 := cpuOf(pids)
	var total float64
	for _, op := range ops {
		total += op.weight
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		out   = scaleResult{byOp: map[string]*opStats{}}
		start = time.Now()
		end   = start.Add(duration)
	)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := map[string]*opStats{}
			errs, stale := 0, 0
			var first error
			var interval time.Duration
			due := start
			if rate > 0 {
				interval = time.Duration(float64(d.conns) / rate * float64(time.Second))
				due = start.Add(time.Duration(c.rng.Int64N(int64(interval))))
			}
			for {
				if rate > 0 {
					if wait := time.Until(due); wait > 0 {
						time.Sleep(wait)
					}
				}
				t0 := time.Now()
				if t0.After(end) {
					break
				}
				if rate == 0 {
					due = t0
				}
				pick := c.rng.Float64() * total
				op := ops[len(ops)-1]
				for _, o := range ops {
					if pick < o.weight {
						op = o
						break
					}
					pick -= o.weight
				}
				label, err := d.one(c, op)
				lat := time.Since(due)
				st := local[label]
				if st == nil {
					st = &opStats{}
					local[label] = st
				}
				st.lats = append(st.lats, lat)
				if errors.Is(err, errStale) {
					stale++
					err = nil
				}
				if err != nil {
					st.errors++
					errs++
					if first == nil {
						first = err
					}
					// A broken connection is counted once, then opened again.
					if c.redial() != nil {
						break
					}
				}
				due = due.Add(interval)
			}
			mu.Lock()
			for k, v := range local {
				if out.byOp[k] == nil {
					out.byOp[k] = &opStats{}
				}
				out.byOp[k].lats = append(out.byOp[k].lats, v.lats...)
				out.byOp[k].errors += v.errors
				out.total += len(v.lats)
			}
			out.errors += errs
			out.stale += stale
			if out.first == nil {
				out.first = first
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	out.elapsed = time.Since(start)
	out.scraped = scrape(d.metrics).since(scraped0) // under load, before the jobs left drain
	for _, pid := range pids {
		waitIdle(pid, 20*time.Second) // the recuts the edits dispatched are theirs
	}
	out.cpu = cpuOf(pids) - cpu0
	out.dbCPU = cpuOf(dbPIDs) - db0
	for _, st := range out.byOp {
		slices.Sort(st.lats)
	}
	return out, nil
}

// readLabels are the reads' rows, each run alone.
var readLabels = []string{"get_trip/http", "list_trips/http", "get_trip/mcp", "list_trips/mcp"}

// errStale is an edit that met a newer version (a recut moved it on): the
// connection read the trip again and sent the edit once more.
var errStale = errors.New("stale version, sent again")

// one sends one request of op and answers its label (op/face).
func (d *scaleDriver) one(c *scaleConn, op scaleOp) (string, error) {
	switch op.name {
	case "get_trip", "list_trips":
		u := int(c.readers.Uint64())
		token := d.w.tokens[u]
		if c.mcp {
			m := mcpClient{path: "/mcp", token: token, revision: legacyRevision}
			var req []byte
			want := "member"
			if op.name == "get_trip" {
				req, want = m.call(c.conn, "get_trip", `{"id":"`+tripID(u, c.rng.IntN(d.w.tripsPerUser))+`"}`), "days"
			} else {
				req = m.call(c.conn, "list_trips", `{}`)
			}
			res, err := c.do(req)
			if err != nil {
				return op.name + "/mcp", err
			}
			return op.name + "/mcp", checkCall(want)(c.conn, res, false)
		}
		path := "/trips"
		if op.name == "get_trip" {
			path = "/trips/" + tripID(u, c.rng.IntN(d.w.tripsPerUser)) + "/detail"
		}
		res, err := c.do(request(http.MethodGet, c.addr, path, nil, "Authorization", "Bearer "+token))
		if err != nil {
			return op.name + "/http", err
		}
		return op.name + "/http", status(c.conn, res, http.StatusOK)
	}
	// Writes go to users of the connection's own (user % conns), or, with
	// fewer users than connections, to its own slot of one user's trips.
	u, slot := int(c.writers.Uint64())*d.conns+c.index%d.conns, 0
	if d.w.users < d.conns {
		u, slot = c.index%d.w.users, c.index/d.w.users
	}
	token := d.w.tokens[u]
	var id, path, body string
	if op.name == "settings_edit" {
		id = tripID(u, slot)
		path = "/trips/" + id
		body = `{"maxDistancePerDay":` + strconv.Itoa(70+20*c.rng.IntN(2)) + `}`
	} else {
		share := d.w.routed
		j := d.w.routed + slot + share*c.rng.IntN(max((d.w.tripsPerUser-d.w.routed)/share, 1))
		id = tripID(u, j)
		path = "/trips/" + id + "/stages/" + stageID(u, j, c.rng.IntN(daysOf(u, j)))
		body = `{"label":"Day ` + strconv.Itoa(c.rng.IntN(100)) + `"}`
	}
	label := op.name + "/http"
	var staleErr error
	confirm := ""
	for attempt := 0; attempt < 4; attempt++ {
		v := c.versions[id]
		if v == 0 {
			v = 1
		}
		res, err := c.do(request(http.MethodPatch, c.addr, path, []byte(body), "Authorization", "Bearer "+token,
			"Content-Type", "application/json", "If-Match", strconv.Quote(strconv.FormatInt(v, 10)),
			"Confirmation-Token", confirm))
		if err != nil {
			return label, err
		}
		switch {
		case res.StatusCode == http.StatusPreconditionFailed && attempt < 3:
			// Read the trip's version as a client would, and send again.
			r2, err := c.do(request(http.MethodGet, c.addr, "/trips/"+id, nil, "Authorization", "Bearer "+token))
			if err != nil {
				return label, err
			}
			nv, ok := etag(r2.Header.Get("ETag"))
			if !ok {
				return label, fmt.Errorf("no version in the trip's ETag %q: %d", r2.Header.Get("ETag"), r2.StatusCode)
			}
			c.versions[id] = nv
			staleErr = errStale
			confirm = "" // a confirmation is for the version it was asked at
			continue
		case res.StatusCode == http.StatusConflict && confirm == "" && res.Header.Get("Confirmation-Token") != "":
			// A recut discards what the days held: the server asks, the
			// client confirms with the token it was given.
			confirm = res.Header.Get("Confirmation-Token")
			continue
		}
		if err := status(c.conn, res, http.StatusOK, http.StatusAccepted); err != nil {
			return label, err
		}
		if nv, ok := etag(res.Header.Get("ETag")); ok {
			c.versions[id] = nv
		}
		return label, staleErr
	}
	return label, errors.New("still refused after a fresh read and a confirmation")
}

// readVersion reads the version of an ETag: "3", W/"3", or a read's
// "3-<hash>".
func printScale(w io.Writer, o scaleOptions, bare []*row, bareCPU [2]time.Duration, runs []*scaleRun) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "engine\ttrips\trow\treq/s\tp50 µs\tp99 µs\tCPU µs/req\tvs bare\tDB CPU µs/req\terrors\t")
	for i, r := range bare {
		res := r.results[0]
		fmt.Fprintf(tw, "bare\t-\t%s\t%.0f\t%.0f\t%.0f\t%.0f\t-\t-\t%d\t\n", r.label, res.rps(),
			micros(res.percentile(0.5)), micros(res.percentile(0.99)), micros(bareCPU[i]), res.errors)
	}
	for _, run := range runs {
		name := run.engine
		if run.replicas > 1 {
			name = fmt.Sprintf("%s ×%d", run.engine, run.replicas)
		}
		mix := run.mix
		fmt.Fprintf(tw, "%s\t%d\tmix, all operations\t%.0f\t-\t-\t%.0f\t-\t%s\t%d\t\n", name, run.trips,
			float64(mix.total)/mix.elapsed.Seconds(), micros(mix.cpuPerRequest()), dbCol(run, mix), mix.errors)
		for _, label := range sortedOps(mix.byOp) {
			st := mix.byOp[label]
			alone := run.alone[label]
			ratio := "-"
			if b := bareOf(label, bareCPU); b > 0 {
				ratio = fmt.Sprintf("%.2f×", float64(alone.cpuPerRequest())/float64(b))
			}
			fmt.Fprintf(tw, "%s\t%d\t  %s\t%.0f\t%.0f\t%.0f\t%.0f\t%s\t%s\t%d\t\n", name, run.trips, label,
				float64(len(st.lats))/mix.elapsed.Seconds(), micros(pct(st.lats, 0.5)), micros(pct(st.lats, 0.99)),
				micros(alone.cpuPerRequest()), ratio, dbCol(run, alone), st.errors+alone.errors)
		}
		half := run.half
		var reads []time.Duration
		for label, st := range half.byOp {
			if strings.HasPrefix(label, "get_trip") || strings.HasPrefix(label, "list_trips") {
				reads = append(reads, st.lats...)
			}
		}
		slices.Sort(reads)
		fmt.Fprintf(tw, "%s\t%d\tmix at half its throughput, reads\t%.0f\t%.0f\t%.0f\t%.0f\t-\t%s\t%d\t\n", name, run.trips,
			float64(half.total)/half.elapsed.Seconds(), micros(pct(reads, 0.5)), micros(pct(reads, 0.99)),
			micros(half.cpuPerRequest()), dbCol(run, half), half.errors)
		// Each operation's share of it: a stall a read meets shows beside
		// the write it waited on.
		for _, label := range sortedOps(half.byOp) {
			st := half.byOp[label]
			fmt.Fprintf(tw, "%s\t%d\t  at half: %s\t%.0f\t%.0f\t%.0f\t-\t-\t-\t%d\t\n", name, run.trips, label,
				float64(len(st.lats))/half.elapsed.Seconds(), micros(pct(st.lats, 0.5)), micros(pct(st.lats, 0.99)), st.errors)
		}
	}
	_ = tw.Flush()
	fmt.Fprintln(w, "mix: closed loop; per operation its share of the mix's throughput and latency; CPU µs/req: the same operation alone"+
		" (its own run, the users Zipf-picked), the servers' user+system time until idle, edits' recuts included; vs bare: bare huma"+
		" (HTTP) or bare go-sdk (MCP), same run; DB CPU: PostgreSQL's backends for the database")
	for _, run := range runs {
		fmt.Fprintf(w, "seeding %s, %d trips (%d days): %v\n", run.engine, run.trips, run.days, run.seeded.Round(time.Second))
		for label, r := range run.alone {
			if r.first != nil {
				fmt.Fprintf(w, "first error of %s %d trips %s: %v\n", run.engine, run.trips, label, r.first)
			}
		}
		if run.mix.first != nil {
			fmt.Fprintf(w, "first error of %s %d trips mix: %v\n", run.engine, run.trips, run.mix.first)
		}
		if run.half.first != nil {
			fmt.Fprintf(w, "first error of %s %d trips mix at half: %v\n", run.engine, run.trips, run.half.first)
		}
		if n := len(run.logged); n > 0 {
			fmt.Fprintf(w, "%s %d trips: the servers logged %d errors, the first: %.400s\n", run.engine, run.trips, n, run.logged[0])
		}
		if run.mix.stale+run.half.stale > 0 {
			fmt.Fprintf(w, "%s %d trips: %d edits met a version a recut had moved on, read the trip and were sent again\n",
				run.engine, run.trips, run.mix.stale+run.half.stale)
		}
		for _, r := range []struct {
			name string
			s    *scraped
		}{{"mix", run.mix.scraped}, {"mix at half", run.half.scraped}} {
			if r.s != nil {
				fmt.Fprintf(w, "%s %d trips, %s: the servers' goroutines waited for a CPU (go_sched_latencies_seconds, its buckets' bounds): %s\n",
					run.engine, run.trips, r.name, r.s.waits.describe())
			}
		}
		// How the reads were answered: from memory, or not. A read that
		// grows with the trips has its misses here.
		memoryLine := func(label string, r scaleResult) {
			if r.scraped == nil {
				return
			}
			if d := r.scraped.memory.describe(); d != "" {
				fmt.Fprintf(w, "%s %d trips, %s: reads answered from memory (cairn_trips_memory_reads_total): %s\n",
					run.engine, run.trips, label, d)
			}
		}
		memoryLine("mix", run.mix)
		for _, label := range readLabels {
			if r, ok := run.alone[label]; ok {
				memoryLine(label, r)
			}
		}
	}
	fmt.Fprintln(w)
	for _, run := range runs {
		if run.users != o.users {
			continue
		}
		for _, label := range readLabels {
			if r, ok := run.alone[label]; ok {
				limit := 3.0
				if strings.HasSuffix(label, "/mcp") {
					limit = 1.5
				}
				q := float64(r.cpuPerRequest()) / float64(max(bareOf(label, bareCPU), 1))
				fmt.Fprintf(w, "target %s %s CPU at most %.1f× bare: %.2f× — %s\n", run.engine, label, limit, q, verdict(q <= limit))
			}
		}
		for _, small := range runs {
			if small.engine != run.engine || small.users == run.users {
				continue
			}
			for _, label := range sortedOps(run.mix.byOp) {
				big, base := run.alone[label].cpuPerRequest(), small.alone[label].cpuPerRequest()
				if base == 0 {
					continue
				}
				q := float64(big) / float64(base)
				fmt.Fprintf(w, "target %s %s CPU growth %d → %d trips at most 1.3×: %.2f× — %s\n", run.engine, label,
					small.trips, run.trips, q, verdict(q <= 1.3))
			}
		}
		var reads []time.Duration
		for label, st := range run.half.byOp {
			if strings.HasPrefix(label, "get_trip") || strings.HasPrefix(label, "list_trips") {
				reads = append(reads, st.lats...)
			}
		}
		slices.Sort(reads)
		p99 := pct(reads, 0.99)
		fmt.Fprintf(w, "target %s p99 of reads at half the saturation throughput at most 25 ms: %.1f ms — %s\n", run.engine,
			float64(p99)/float64(time.Millisecond), verdict(p99 <= 25*time.Millisecond))
	}
	errs := 0
	for _, run := range runs {
		errs += run.mix.errors + run.half.errors
		for _, r := range run.alone {
			errs += r.errors
		}
	}
	fmt.Fprintf(w, "target 0 errors: %d — %s\n", errs, verdict(errs == 0))
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

func dbCol(run *scaleRun, r scaleResult) string {
	if run.engine != "postgres" {
		return "-"
	}
	return fmt.Sprintf("%.0f", micros(r.dbPerRequest()))
}

func bareOf(label string, bareCPU [2]time.Duration) time.Duration {
	if strings.HasSuffix(label, "/mcp") {
		return bareCPU[1]
	}
	return bareCPU[0]
}

func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(int(float64(len(sorted))*p), len(sorted)-1)]
}

func sortedOps(m map[string]*opStats) []string {
	order := []string{"get_trip/http", "get_trip/mcp", "list_trips/http", "list_trips/mcp", "settings_edit/http", "stage_edit/http"}
	var out []string
	for _, k := range order {
		if _, ok := m[k]; ok {
			out = append(out, k)
		}
	}
	return out
}
