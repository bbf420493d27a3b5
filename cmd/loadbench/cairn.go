package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// tripsPerUser keeps the seeding under the upload's rate limit (10 a
// minute per user).
const tripsPerUser = 8

// listed is how many trips the reading user owns, so how many list_trips
// answers.
const listed = 5

// cairnServer is one running Cairn with its seeded data.
type cairnServer struct {
	engine    string
	proc      *process
	pprofAddr string
	db        func() []int
	transport transport

	reader string     // token of the reading user
	trip   seededTrip // the three-day trip every read asks for
	slots  []*writeSlot
}

// writeSlot is one connection's own trip for the guarded write, so that 16
// writers never race for one version.
type writeSlot struct {
	token   string
	trip    string
	stage   string
	version int64
}

// startCairn migrates, mints tokens, starts the server on engine and seeds
// it. The cleanup (dropping a PostgreSQL database) is returned even on
// failure.
func startCairn(engine, bin, dir string, cpu int, o options) (*cairnServer, func(), error) {
	var env []string
	var cleanup func()
	cs := &cairnServer{engine: engine}
	switch engine {
	case "sqlite":
		env = []string{"CAIRN_DATA_DIR=" + filepath.Join(dir, "sqlite")}
	case "postgres":
		url, drop, err := postgresDB(o.postgres)
		if err != nil {
			return nil, nil, err
		}
		cleanup = drop
		env = []string{"CAIRN_DATABASE_URL=" + url}
		cs.db = backends(o.postgres, dbName(url))
	default:
		return nil, nil, fmt.Errorf("unknown engine %q (sqlite, postgres)", engine)
	}
	if _, err := cairnCommand(bin, env, "migrate"); err != nil {
		return nil, cleanup, err
	}
	token := func(email string) (string, error) {
		return cairnCommand(bin, env, "token", "create", "--email", email, "--scope", "trips:read", "--scope", "trips:write", "--name", "loadbench")
	}
	var err error
	if cs.reader, err = token("reader@loadbench.test"); err != nil {
		return nil, cleanup, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, cleanup, err
	}
	serveEnv := append([]string{"CAIRN_ADDR=" + addr}, env...)
	if o.pprof != "" {
		cs.pprofAddr, _ = freeAddr()
		serveEnv = append(serveEnv, "LOADBENCH_PPROF="+cs.pprofAddr)
	}
	if cs.proc, err = start("cairn-"+engine, addr, dir, cpu, serveEnv, bin, "serve"); err != nil {
		return nil, cleanup, err
	}
	if err := cs.seed(bin, env, o.conns); err != nil {
		cs.proc.stop()
		return nil, cleanup, err
	}
	c, err := dial(addr)
	if err != nil {
		cs.proc.stop()
		return nil, cleanup, err
	}
	defer c.close()
	client := mcpClient{path: "/mcp", token: cs.reader, revision: legacyRevision}
	if cs.transport, err = client.initialize(c); err != nil {
		cs.proc.stop()
		return nil, cleanup, fmt.Errorf("MCP: %w", err)
	}
	client.end(c)
	return cs, cleanup, nil
}

// seed uploads the reader's trips and one trip per writing connection, and
// waits until their enrichments are settled.
func (cs *cairnServer) seed(bin string, env []string, conns int) error {
	a := api{base: "http://" + cs.proc.addr, client: &http.Client{Timeout: 60 * time.Second}}
	gpx := gpxRoute(routeKm)
	var all []seededTrip
	owner := map[string]string{}
	for i := range listed {
		t, err := a.upload(cs.reader, gpx)
		if err != nil {
			return err
		}
		if i == 0 {
			cs.trip = t
		}
		all = append(all, t)
		owner[t.ID] = cs.reader
	}
	if len(cs.trip.Days) != 3 {
		return fmt.Errorf("the seeded trip has %d days, not 3", len(cs.trip.Days))
	}
	var writer string
	for i := range conns {
		if i%tripsPerUser == 0 {
			tok, err := cairnCommand(bin, env, "token", "create", "--email", fmt.Sprintf("writer%d@loadbench.test", i/tripsPerUser),
				"--scope", "trips:read", "--scope", "trips:write", "--name", "loadbench")
			if err != nil {
				return err
			}
			writer = tok
		}
		t, err := a.upload(writer, gpx)
		if err != nil {
			return err
		}
		all = append(all, t)
		owner[t.ID] = writer
		cs.slots = append(cs.slots, &writeSlot{token: writer, trip: t.ID, stage: t.Days[1]})
	}
	versions := map[string]int64{}
	for _, t := range all {
		v, err := a.settle(owner[t.ID], t.ID)
		if err != nil {
			return err
		}
		versions[t.ID] = v
	}
	for _, s := range cs.slots {
		s.version = versions[s.trip]
	}
	return nil
}

// rows are the measured requests of this server.
func (cs *cairnServer) rows() []*row {
	e := cs.engine
	legacy := mcpClient{path: "/mcp", token: cs.reader, revision: legacyRevision}
	current := mcpClient{path: "/mcp", token: cs.reader, revision: currentRevision}
	auth := "Bearer " + cs.reader
	id := cs.trip.ID
	get := func(path string, check func(c *conn, res *http.Response, deep bool) error) workload {
		return workload{
			addr:  cs.proc.addr,
			next:  func(c *conn) []byte { return request(http.MethodGet, c.addr, path, nil, "Authorization", auth) },
			check: check,
		}
	}
	mcpWork := func(client mcpClient, next func(mcpClient, *conn) []byte, want string) workload {
		return workload{
			addr:     cs.proc.addr,
			setup:    func(c *conn, _ int) error { _, err := client.initialize(c); return err },
			next:     func(c *conn) []byte { return next(client, c) },
			check:    checkCall(want),
			teardown: client.end,
		}
	}
	getTrip := func(m mcpClient, c *conn) []byte { return m.call(c, "get_trip", `{"id":"`+id+`"}`) }
	listTrips := func(m mcpClient, c *conn) []byte { return m.call(c, "list_trips", `{}`) }
	list := func(m mcpClient, c *conn) []byte { return m.list(c) }
	mk := func(short, label, baseline string, w workload) *row {
		return &row{id: e + "/" + short, label: label, server: "cairn " + e, baseline: baseline,
			work: w, pid: cs.proc.pid(), db: cs.db}
	}
	return []*row{
		mk("get_trip_http", "HTTP GET /trips/{id}/detail (get_trip), 3 days", "bare/huma",
			get("/trips/"+id+"/detail", jsonCheck(func(v map[string]any) bool { d, _ := v["days"].([]any); return len(d) == 3 }))),
		mk("state_http", "HTTP GET /trips/{id}", "bare/huma",
			get("/trips/"+id, jsonCheck(func(v map[string]any) bool { return v["id"] == id }))),
		mk("list_http", "HTTP GET /trips ("+strconv.Itoa(listed)+" trips)", "bare/huma",
			get("/trips", jsonCheck(func(v map[string]any) bool { m, _ := v["member"].([]any); return len(m) == listed }))),
		mk("get_trip_mcp", "MCP get_trip, 3 days (2025-11-25)", "bare/mcp", mcpWork(legacy, getTrip, "days")),
		mk("get_trip_mcp_2026", "MCP get_trip, 3 days (2026-07-28)", "bare/mcp_2026", mcpWork(current, getTrip, "days")),
		mk("list_mcp", "MCP list_trips (2025-11-25)", "bare/mcp", mcpWork(legacy, listTrips, "member")),
		mk("list_mcp_2026", "MCP list_trips (2026-07-28)", "bare/mcp_2026", mcpWork(current, listTrips, "member")),
		mk("write_http", "HTTP PATCH stage label, If-Match (edit_stages update)", "bare/huma", cs.write()),
		mk("tools_list", "MCP tools/list (2025-11-25)", "bare/mcp", mcpWork(legacy, list, "tools")),
		mk("tools_list_2026", "MCP tools/list (2026-07-28)", "bare/mcp_2026", mcpWork(current, list, "tools")),
	}
}

// write is the guarded write: each connection renames a day of its own
// trip, alternating two labels, sending the version the previous answer
// published.
func (cs *cairnServer) write() workload {
	return workload{
		addr: cs.proc.addr,
		setup: func(c *conn, worker int) error {
			c.state = cs.slots[worker%len(cs.slots)]
			return nil
		},
		next: func(c *conn) []byte {
			s := c.state.(*writeSlot)
			label := `{"label":"Day A"}`
			if c.seq%2 == 1 {
				label = `{"label":"Day B"}`
			}
			return request(http.MethodPatch, c.addr, "/trips/"+s.trip+"/stages/"+s.stage, []byte(label),
				"Authorization", "Bearer "+s.token, "Content-Type", "application/json",
				"If-Match", strconv.Quote(strconv.FormatInt(s.version, 10)))
		},
		check: func(c *conn, res *http.Response, _ bool) error {
			s := c.state.(*writeSlot)
			if err := status(c, res, http.StatusOK, http.StatusAccepted); err != nil {
				return err
			}
			v, ok := etag(res.Header.Get("ETag"))
			if !ok {
				return fmt.Errorf("the write answered no version: %.200s", c.body.String())
			}
			s.version = v
			return nil
		},
	}
}

// jsonCheck is a 200 whose JSON body satisfies ok (judged on the deep check).
func jsonCheck(ok func(map[string]any) bool) func(*conn, *http.Response, bool) error {
	return func(c *conn, res *http.Response, deep bool) error {
		if err := status(c, res, http.StatusOK); err != nil || !deep {
			return err
		}
		var v map[string]any
		if err := json.Unmarshal(c.body.Bytes(), &v); err != nil || !ok(v) {
			return fmt.Errorf("unexpected answer: %.300s", c.body.String())
		}
		return nil
	}
}

// profile runs the row named by -pprof once more while the server records
// a CPU profile, and writes it to -pprof-out.
func profile(o options, rows []*row, cairns []*cairnServer) error {
	r := find(rows, o.pprof)
	if r == nil {
		return fmt.Errorf("-pprof %s: no such row", o.pprof)
	}
	var cs *cairnServer
	for _, c := range cairns {
		if c.proc.pid() == r.pid {
			cs = c
		}
	}
	if cs == nil || cs.pprofAddr == "" {
		return fmt.Errorf("-pprof %s: only Cairn rows can be profiled", o.pprof)
	}
	seconds := max(1, int(o.duration.Seconds()))
	done := make(chan error, 1)
	go func() {
		res, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", cs.pprofAddr, seconds))
		if err != nil {
			done <- err
			return
		}
		defer res.Body.Close()
		f, err := os.Create(o.pprofOut)
		if err != nil {
			done <- err
			return
		}
		_, err = io.Copy(f, res.Body)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		done <- err
	}()
	lim := o.limits
	lim.duration = time.Duration(seconds)*time.Second + 200*time.Millisecond
	lim.requests = 1 << 40
	if _, err := drive(r.work, lim, r.pid, nil); err != nil {
		return err
	}
	if err := <-done; err != nil {
		return fmt.Errorf("profile: %w", err)
	}
	fmt.Fprintf(os.Stderr, "loadbench: CPU profile of %s written to %s (go tool pprof %s)\n", r.id, o.pprofOut, o.pprofOut)
	return nil
}
