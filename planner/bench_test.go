package planner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/danielgtaylor/huma/v2/adapters/humago"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/metrics"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/trips"
	"cairn.dev/cairn/planner/plannertest"
	"cairn.dev/cairn/registry"
)

// The benchmarks serve one read (get_trip) bare — a plain huma handler and
// a plain go-sdk tool doing the same read — and through the guard chain, on
// both faces. `make bench` prints the guarded/bare ratio of each face;
// cpu-ns/op, the process's CPU per call, is the steadier figure on a
// machine shared with other work.

// benchCheckEvery is digest_cache_ttl's default.
const benchCheckEvery = 250 * time.Millisecond

type benchEnv struct {
	app   *plannertest.App
	token string
	id    string
	trips *trips.Trips
}

func setupBench(b *testing.B) benchEnv {
	b.Helper()
	// As served by default: a remembered digest is checked once per
	// digest_cache_ttl, on both sides.
	a := plannertest.New(b, func(_ testing.TB, c *config.Config) { *c = c.With("digest_cache_ttl", benchCheckEvery.String()) })
	e := newEnv(b, a)
	id := e.trip(b, nil)
	// Measured once the days are computed: work still running in the
	// background would be charged to the reads.
	a.WaitSettled(b, e.token, id)
	// The same module, outside the chain: the baseline does the same read.
	store := trips.NewStore(a.DB)
	store.SetCheckEvery(benchCheckEvery)
	tr := trips.New(trips.Params{Store: store}).Trips
	return benchEnv{app: a, token: e.token, id: id, trips: tr}
}

func httpGet(b *testing.B, client *http.Client, url, token string) {
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	res, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, res.Body)
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		b.Fatalf("status %d", res.StatusCode)
	}
}

func BenchmarkGetTripHTTP(b *testing.B) {
	e := setupBench(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}

	mux := http.NewServeMux()
	api := humago.New(mux, huma.DefaultConfig("bare", "1"))
	type in struct {
		ID string `path:"id"`
	}
	type out struct{ Body trips.Detail }
	huma.Get(api, "/trips/{id}/detail", func(ctx context.Context, i *in) (*out, error) {
		d, err := e.trips.Detail(ctx, i.ID, time.Now())
		return &out{Body: d}, err
	})
	bare := httptest.NewServer(mux)
	defer bare.Close()

	b.Run("bare", func(b *testing.B) {
		b.ReportAllocs()
		began := metrics.ProcessCPU()
		for b.Loop() {
			httpGet(b, client, bare.URL+"/trips/"+e.id+"/detail", e.token)
		}
		reportCPU(b, began)
	})
	b.Run("guarded", func(b *testing.B) {
		b.ReportAllocs()
		began := metrics.ProcessCPU()
		for b.Loop() {
			httpGet(b, client, e.app.URL+"/trips/"+e.id+"/detail", e.token)
		}
		reportCPU(b, began)
	})
}

func BenchmarkGetTripMCP(b *testing.B) {
	e := setupBench(b)

	server := mcp.NewServer(&mcp.Implementation{Name: "bare", Version: "1"}, nil)
	type in struct {
		ID string `json:"id"`
	}
	mcp.AddTool(server, &mcp.Tool{Name: "get_trip"}, func(ctx context.Context, _ *mcp.CallToolRequest, i in) (*mcp.CallToolResult, trips.Detail, error) {
		d, err := e.trips.Detail(ctx, i.ID, time.Now())
		return nil, d, err
	})
	bare := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer bare.Close()

	call := func(b *testing.B, endpoint string) {
		client := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
		s, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{
			Endpoint: endpoint, HTTPClient: &http.Client{Transport: authorized{e.token}},
		}, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		args := map[string]any{"id": e.id}
		b.ReportAllocs()
		began := metrics.ProcessCPU()
		for b.Loop() {
			res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "get_trip", Arguments: args})
			if err != nil || res.IsError {
				raw, _ := json.Marshal(res)
				b.Fatalf("call: %v %s", err, raw)
			}
		}
		reportCPU(b, began)
	}
	b.Run("bare", func(b *testing.B) { call(b, bare.URL) })
	b.Run("guarded", func(b *testing.B) { call(b, e.app.URL+"/mcp") })
}

// BenchmarkStateInProcess serves GET /trips/{id} (the trip's address, a
// four-column read) by the server's handler, with no socket: what is left
// is the framework path (request id, logging, metrics, guards, face) and
// the read, so a change to either shows in ns/op and allocs/op without
// the loopback's noise.
func BenchmarkStateInProcess(b *testing.B) {
	e := setupBench(b)
	h := e.app.Server.Handler
	b.ReportAllocs()
	began := metrics.ProcessCPU()
	for b.Loop() {
		req := httptest.NewRequest(http.MethodGet, "/trips/"+e.id, nil)
		req.Header.Set("Authorization", "Bearer "+e.token)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK {
			b.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
	}
	reportCPU(b, began)
}

// reportCPU reports the process's CPU per call (client and server, both in
// this process) since began: steadier than ns/op on a shared machine.
func reportCPU(b *testing.B, began time.Duration) {
	b.ReportMetric(float64(metrics.ProcessCPU()-began)/float64(b.N), "cpu-ns/op")
}

type authorized struct{ token string }

func (a authorized) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+a.token)
	return http.DefaultTransport.RoundTrip(r)
}

// BenchmarkSharePage reads the page of the largest trip the bounds allow
// (trips.MaxDays days, trips.MaxRoutePoints points once simplified) as an
// anonymous visitor: "rendered" is the first read of a revision (the
// share made again before each, outside the count), "kept" a read of the
// kept page, "revalidated" a read holding its tag (304). Each call comes
// from its own client address, under the per-address limit.
func BenchmarkSharePage(b *testing.B) {
	a := plannertest.New(b)
	e := newEnv(b, a)
	points := everyPointKept(trips.MaxRoutePoints)
	perDay := geo.Length(points) / 1000 / (trips.MaxDays - 0.5) // the daily distance that makes MaxDays days
	out := e.uploadFile(b, gpxOf(b, "Largest", points), map[string]any{"maxDistancePerDay": perDay})
	if out.Status != http.StatusAccepted {
		b.Fatalf("upload: %d %s", out.Status, out.Raw)
	}
	if n := len(out.Body["days"].([]any)); n != trips.MaxDays {
		b.Fatalf("the largest trip has %d days, not %d", n, trips.MaxDays)
	}
	id := out.Body["id"].(string)
	a.WaitSettled(b, e.token, id) // background work would be charged to the reads
	share := func() string {
		res := a.Do(b, http.MethodPost, "/trips/"+id+"/share", e.token, nil)
		if res.Status != http.StatusCreated {
			b.Fatalf("share: %d %s", res.Status, res.Body)
		}
		return res.JSON(b)["shortCode"].(string)
	}
	unshare := func() {
		res := a.Do(b, http.MethodDelete, "/trips/"+id+"/share", e.token, nil)
		if res.Status == http.StatusConflict {
			res = a.Do(b, http.MethodDelete, "/trips/"+id+"/share", e.token, nil,
				"Confirmation-Token", res.JSON(b)["confirmationToken"].(string))
		}
		if res.Status >= 300 {
			b.Fatalf("unshare: %d %s", res.Status, res.Body)
		}
	}
	var calls int
	read := func(code, tag string, want int) (int, string) {
		calls++
		req, _ := http.NewRequest(http.MethodGet, a.URL+"/s/"+code, nil)
		req.Header.Set("Accept", browserAccept)
		req.Header.Set("X-Forwarded-For", fmt.Sprintf("198.18.%d.%d", calls/250%250, calls%250+1))
		if tag != "" {
			req.Header.Set("If-None-Match", tag)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		n, _ := io.Copy(io.Discard, res.Body)
		res.Body.Close()
		if res.StatusCode != want {
			b.Fatalf("status %d, want %d", res.StatusCode, want)
		}
		return int(n), res.Header.Get("ETag")
	}
	code := share()
	size, tag := read(code, "", http.StatusOK)
	b.Logf("the page of %d days and %d points is %d bytes", trips.MaxDays, trips.MaxRoutePoints, size)
	for _, path := range []string{"/route", ".gpx", ".fit"} {
		res := a.Do(b, http.MethodGet, "/s/"+code+path, "", nil, "X-Forwarded-For", "198.19.0.1")
		if res.Status != http.StatusOK {
			b.Fatalf("%s: %d", path, res.Status)
		}
		b.Logf("/s/{code}%s is %d bytes", path, len(res.Body))
	}
	detail := a.ViaMCP(b, e.mcp, apptest.Request{Op: lookup(b, a, "trips.get"), Token: e.token, Vars: map[string]string{"id": id}})
	b.Logf("get_trip answers %d bytes of structured content", len(detail.Raw))

	b.Run("rendered", func(b *testing.B) {
		var spent time.Duration
		for b.Loop() {
			b.StopTimer()
			unshare()
			code = share()
			b.StartTimer()
			began := metrics.ProcessCPU()
			read(code, "", http.StatusOK)
			spent += metrics.ProcessCPU() - began
		}
		b.ReportMetric(float64(spent)/float64(b.N), "cpu-ns/op")
	})
	_, tag = read(code, "", http.StatusOK)
	b.Run("kept", func(b *testing.B) {
		began := metrics.ProcessCPU()
		for b.Loop() {
			read(code, "", http.StatusOK)
		}
		reportCPU(b, began)
	})
	b.Run("revalidated", func(b *testing.B) {
		began := metrics.ProcessCPU()
		for b.Loop() {
			read(code, tag, http.StatusNotModified)
		}
		reportCPU(b, began)
	})
}

func lookup(b *testing.B, a *plannertest.App, id string) *registry.Operation {
	op, ok := a.Server.Registry.Lookup(id)
	if !ok {
		b.Fatalf("no operation %s", id)
	}
	return op
}
