package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"
)

// The uploads mode measures GPX uploads on the real server: for each file,
// the server's CPU from the request to its answer (the days cut), and its
// peak resident memory above the idle process, reset before each case
// through /proc/PID/clear_refs. `go run ./cmd/loadbench uploads`.

// uploadCase is one measured upload: a file, sent by so many clients at once.
type uploadCase struct {
	name   string
	file   []byte
	points int
	at     int // uploads sent at once
}

type uploadResult struct {
	cpu         time.Duration // server CPU from the first request to the last answer
	settled     time.Duration // server CPU until the enrichments it started are idle too
	dbCPU       time.Duration
	peak        int64 // bytes of resident memory above idle, at the highest until the last answer
	settledPeak int64 // the same until the enrichments are done
	wall        time.Duration
	statuses    []int
	retry       []string
}

func runUploads(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("loadbench uploads", flag.ContinueOnError)
	postgres := fs.String("postgres", "postgres://postgres@127.0.0.1:5432", "PostgreSQL server; empty measures SQLite only")
	engines := fs.String("engines", "sqlite", "Cairn engines to measure (sqlite,postgres)")
	runs := fs.Int("runs", 2, "runs of each case (the table shows the lower CPU and the higher peak)")
	keep := fs.Bool("keep", false, "keep the temporary directory")
	pprof := fs.Bool("pprof", false, "write a CPU profile of the server over the first 10 s of each case to uploads-ENGINE-POINTS-AT.prof")
	if err := fs.Parse(args); err != nil {
		return err
	}
	root, err := moduleRoot()
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "cairn-uploads-")
	if err != nil {
		return err
	}
	if *keep {
		fmt.Fprintln(os.Stderr, "loadbench: keeping", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	bin, err := cairnBinary(root, dir, *pprof, "")
	if err != nil {
		return err
	}
	serverCPU := -1
	if runtime.NumCPU() >= 2 {
		serverCPU = 0
		if err := pinSelf(runtime.NumCPU() - 1); err != nil {
			serverCPU = -1
		}
	}
	fmt.Fprintln(os.Stderr, "loadbench: writing the files")
	mid := densestGPX(200_000, true)
	big := sizedGPX(30 << 20)
	dense := densestGPX(0, false)
	cases := []uploadCase{
		{name: "200,000 points with elevation", file: mid.file, points: mid.points, at: 1},
		{name: "30 MB, with elevation", file: big.file, points: big.points, at: 1},
		{name: "densest the limit admits, no elevation", file: dense.file, points: dense.points, at: 1},
		{name: "three of the densest at once", file: dense.file, points: dense.points, at: 3},
		{name: "four of the densest at once", file: dense.file, points: dense.points, at: 4},
	}
	fmt.Fprintf(stdout, "GPX uploads on the real server, server on CPU %d; machine load before %s\n", serverCPU, loadAverage())
	for _, engine := range strings.Split(*engines, ",") {
		if engine == "postgres" && *postgres == "" {
			continue
		}
		if err := uploadsOn(stdout, engine, bin, dir, serverCPU, *postgres, *runs, *pprof, cases); err != nil {
			return fmt.Errorf("%s: %w", engine, err)
		}
	}
	fmt.Fprintf(stdout, "machine load after %s\n", loadAverage())
	return nil
}

func uploadsOn(stdout io.Writer, engine, bin, dir string, cpu int, pg string, runs int, profiling bool, cases []uploadCase) error {
	var env []string
	var db func() []int
	switch engine {
	case "sqlite":
		env = []string{"CAIRN_DATA_DIR=" + filepath.Join(dir, "uploads-sqlite")}
	case "postgres":
		url, drop, err := postgresDB(pg)
		if err != nil {
			return err
		}
		defer drop()
		env = []string{"CAIRN_DATABASE_URL=" + url}
		db = backends(pg, dbName(url))
	default:
		return fmt.Errorf("unknown engine %q", engine)
	}
	if _, err := cairnCommand(bin, env, "migrate"); err != nil {
		return err
	}
	// One user per upload of a run, under the upload's rate limit per user.
	var tokens []string
	for i := range 5 * runs * len(cases) {
		tok, err := cairnCommand(bin, env, "token", "create", "--email", fmt.Sprintf("uploader%d@loadbench.test", i),
			"--scope", "trips:read", "--scope", "trips:write", "--name", "loadbench")
		if err != nil {
			return err
		}
		tokens = append(tokens, tok)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "%s: case\tMB\tpoints\tat once\tCPU s\tCPU s until idle\tDB CPU s\tpeak RSS MB above idle\tuntil idle\twall s\tanswers\t\n", engine)
	for k, c := range cases {
		var best uploadResult
		for r := range runs {
			from := (k*runs + r) * 5
			res, err := freshUpload(bin, dir, engine, env, cpu, db, tokens[from:from+5], c, profiling)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			peak, settledPeak := max(best.peak, res.peak), max(best.settledPeak, res.settledPeak)
			if r == 0 || res.cpu < best.cpu {
				best = res
			}
			best.peak, best.settledPeak = peak, settledPeak
		}
		answers := make([]string, len(best.statuses))
		for i, s := range best.statuses {
			answers[i] = strconv.Itoa(s)
			if best.retry[i] != "" {
				answers[i] += " Retry-After " + best.retry[i]
			}
		}
		fmt.Fprintf(tw, "%s\t%.1f\t%d\t%d\t%.2f\t%.2f\t%.2f\t%.0f\t%.0f\t%.2f\t%s\t\n", c.name, float64(len(c.file))/1e6, c.points, c.at,
			best.cpu.Seconds(), best.settled.Seconds(), best.dbCPU.Seconds(), float64(best.peak)/1e6, float64(best.settledPeak)/1e6, best.wall.Seconds(), strings.Join(answers, ","))
	}
	_ = tw.Flush()
	fmt.Fprintln(stdout, "each case on a server of its own, started for it; CPU: the server process's user+system time from the first"+
		" request to the last answer (the days are cut before the answer); until idle: with the enrichments the uploads queued;"+
		" peak: VmHWM at the last answer, and once the enrichments are done (the first trip of a process loads its time zones"+
		" and gazetteer), less the VmRSS of the idle server before the case")
	return nil
}

// freshUpload measures one case on a server started for it, so that the
// idle memory is a new process's and not what an earlier case left.
func freshUpload(bin, dir, engine string, env []string, cpu int, db func() []int, tokens []string, c uploadCase, profiling bool) (uploadResult, error) {
	addr, err := freeAddr()
	if err != nil {
		return uploadResult{}, err
	}
	serveEnv := append([]string{"CAIRN_ADDR=" + addr}, env...)
	pprofAddr := ""
	if profiling {
		pprofAddr, _ = freeAddr()
		serveEnv = append(serveEnv, "LOADBENCH_PPROF="+pprofAddr)
	}
	proc, err := start("cairn-uploads-"+engine, addr, dir, cpu, serveEnv, bin, "serve")
	if err != nil {
		return uploadResult{}, err
	}
	defer proc.stop()
	a := api{base: "http://" + addr, client: &http.Client{Timeout: 120 * time.Second}}
	// No upload before the case: the first trip's enrichments load data
	// sets once per process (the time zones, the gazetteer), which would
	// be counted as idle, and the heap they leave free would hide the
	// upload's own.
	waitIdle(proc.pid(), 2*time.Minute)
	var stopProfile func() error
	if profiling {
		stopProfile = startProfile(pprofAddr, fmt.Sprintf("uploads-%s-%d-%d.prof", engine, c.points, c.at), 10)
	}
	res, err := measureUpload(a, proc.pid(), db, tokens, c)
	if stopProfile != nil {
		err = errors.Join(err, stopProfile())
	}
	return res, err
}

// measureUpload sends c.at copies of the file at once and measures the
// server while they run.
func measureUpload(a api, pid int, db func() []int, tokens []string, c uploadCase) (uploadResult, error) {
	waitIdle(pid, 2*time.Minute)
	idle, err := residentBytes(pid, "VmRSS")
	if err != nil {
		return uploadResult{}, err
	}
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		return uploadResult{}, fmt.Errorf("resetting the peak: %w", err)
	}
	var pgs []int
	var pgBefore time.Duration
	if db != nil {
		pgs = db()
		pgBefore = cpuOf(pgs)
	}
	began := time.Now()
	before, _ := cpuTime(pid)
	res := uploadResult{statuses: make([]int, c.at), retry: make([]string, c.at)}
	var wg sync.WaitGroup
	errs := make([]error, c.at)
	ids := make([]string, c.at)
	for i := range c.at {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res.statuses[i], res.retry[i], ids[i], errs[i] = a.rawUpload(tokens[i], c.file)
		}()
	}
	wg.Wait()
	after, _ := cpuTime(pid)
	hwm, err := residentBytes(pid, "VmHWM")
	if err != nil {
		return res, err
	}
	res.peak = hwm - idle
	res.wall = time.Since(began)
	res.cpu = after - before
	if err := errors.Join(errs...); err != nil {
		return res, err
	}
	for i, id := range ids {
		if id == "" {
			continue
		}
		if _, err := a.settle(tokens[i], id); err != nil {
			return res, err
		}
	}
	waitIdle(pid, 2*time.Minute)
	settled, _ := cpuTime(pid)
	res.settled = settled - before
	if db != nil {
		res.dbCPU = cpuOf(pgs) - pgBefore
	}
	settledHWM, err := residentBytes(pid, "VmHWM")
	if err != nil {
		return res, err
	}
	res.settledPeak = settledHWM - idle
	fmt.Fprintf(os.Stderr, "loadbench: %s ×%d: idle RSS %.0f MB, peak %.0f MB at the answers, %.0f MB until idle\n",
		c.name, c.at, float64(idle)/1e6, float64(hwm)/1e6, float64(settledHWM)/1e6)
	return res, nil
}

// rawUpload sends a file as a creation of a trip over three days and
// returns the answer's status, its Retry-After and the trip made.
func (a api) rawUpload(token string, gpx []byte) (int, string, string, error) {
	var body bytes.Buffer
	w := multipart.NewWriter(&body)
	start := time.Now().UTC().AddDate(0, 1, 0)
	_ = w.WriteField("startDate", start.Format(time.DateOnly))
	_ = w.WriteField("endDate", start.AddDate(0, 0, 9).Format(time.DateOnly))
	h := textproto.MIMEHeader{}
	h.Set("Content-Disposition", `form-data; name="gpxFile"; filename="route.gpx"`)
	h.Set("Content-Type", "application/gpx+xml")
	part, err := w.CreatePart(h)
	if err != nil {
		return 0, "", "", err
	}
	_, _ = part.Write(gpx)
	_ = w.Close()
	key := make([]byte, 16)
	_, _ = rand.Read(key)
	res, raw, err := a.do(http.MethodPost, "/trips/gpx-upload", token, body.Bytes(), w.FormDataContentType(),
		"Idempotency-Key", "loadbench-"+hex.EncodeToString(key))
	if err != nil {
		return 0, "", "", err
	}
	if res.StatusCode/100 != 2 && res.StatusCode != http.StatusServiceUnavailable {
		return res.StatusCode, "", "", fmt.Errorf("upload: status %d: %.300s", res.StatusCode, raw)
	}
	var out struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(raw, &out)
	return res.StatusCode, res.Header.Get("Retry-After"), out.ID, nil
}

func cpuOf(pids []int) time.Duration {
	var sum time.Duration
	for _, p := range pids {
		if d, err := cpuTime(p); err == nil {
			sum += d
		}
	}
	return sum
}

// residentBytes reads a field of /proc/PID/status given in kB (VmRSS, VmHWM).
func residentBytes(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb * 1024, err
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, field)
}

// startProfile records the server's CPU profile until the returned
// function is called.
func startProfile(addr, out string, seconds int) func() error {
	done := make(chan error, 1)
	go func() {
		done <- saveProfile(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", addr, seconds), out)
	}()
	return func() error {
		fmt.Fprintln(os.Stderr, "loadbench: waiting for the 10 s profile to end, into", out)
		if err := <-done; err != nil {
			return err
		}
		return saveProfile("http://"+addr+"/debug/pprof/heap", out+".heap")
	}
}

// saveProfile writes the profile at url to out. After the CPU profile the
// heap is saved too (out.heap: go tool pprof -sample_index inuse_space):
// what the server holds is what each collection walks.
func saveProfile(url, out string) error {
	res, err := http.Get(url)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, res.Body)
	return errors.Join(err, f.Close())
}

// generated is a GPX file and the number of its points.
type generated struct {
	file   []byte
	points int
}

// densestGPX writes a track as a device does, a point every 10 m (5
// decimals of a degree), up to n points or, with n 0, up to what the 30 MB
// upload limit holds.
func densestGPX(n int, ele bool) generated {
	const limit = 30 << 20
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<gpx version="1.1" creator="loadbench" xmlns="http://www.topografix.com/GPX/1/1"><trk><name>Long route</name><trkseg>` + "\n")
	const tail = "</trkseg></trk></gpx>\n"
	const lat0, lon0, step = 45.0, 6.0, 10.0
	dLon := step / (111_320 * math.Cos(lat0*math.Pi/180))
	var line []byte
	i := 0
	for ; n == 0 || i < n; i++ {
		line = append(line[:0], `<trkpt lat="`...)
		line = strconv.AppendFloat(line, lat0+0.05*math.Sin(float64(i)/2000), 'f', 5, 64)
		line = append(line, `" lon="`...)
		// Wrapped east to west every 8 degrees, so a long track stays on land.
		line = strconv.AppendFloat(line, lon0+math.Mod(float64(i)*dLon, 8), 'f', 5, 64)
		if ele {
			line = append(line, `"><ele>`...)
			line = strconv.AppendFloat(line, 400+150*math.Sin(float64(i)/600), 'f', 1, 64)
			line = append(line, "</ele></trkpt>\n"...)
		} else {
			line = append(line, "\"/>\n"...)
		}
		if n == 0 && b.Len()+len(line)+len(tail) > limit {
			break
		}
		b.Write(line)
	}
	b.WriteString(tail)
	return generated{file: b.Bytes(), points: i}
}

// sizedGPX is the largest file with elevation under size bytes.
func sizedGPX(size int) generated {
	g := densestGPX(size/60, true)
	for len(g.file) > size {
		g = densestGPX(g.points*size/len(g.file)*99/100, true)
	}
	return g
}
