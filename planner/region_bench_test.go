package planner_test

import (
	"bufio"
	"bytes"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/osmfixture"
	"cairn.dev/cairn/modules/route/routefixture"
	"cairn.dev/cairn/planner/plannertest"
)

// BenchmarkRegion imports a generated extract of a region's size (2
// million places and 5 million way segments along a 2,400 km trip, as
// PBF) with the cairn command, in a process of its own, then analyses a
// 30-day trip over it with every computation, a local forecast and events
// feed answering. It reports the import's peak resident memory and CPU
// seconds, and the CPU seconds the analysis took. A few minutes: run it
// with make bench-region (CAIRN_TEST_BENCH_REGION=1).
// CAIRN_TEST_BENCH_REGION_KEEP=dir keeps the extract and its import in dir
// and, when dir already holds them, analyses over them without importing
// again: a change to the analysis is measured in a minute, not ten.
func BenchmarkRegion(b *testing.B) {
	if os.Getenv("CAIRN_TEST_BENCH_REGION") == "" {
		b.Skip("a region-sized import takes minutes: run make bench-region (CAIRN_TEST_BENCH_REGION=1)")
	}
	dir := os.Getenv("CAIRN_TEST_BENCH_REGION_KEEP")
	if dir == "" {
		dir = b.TempDir()
	}
	route := routefixture.Route(7, 24_000, 100) // 2,400 km with hills
	data := filepath.Join(dir, "data")
	if _, err := os.Stat(filepath.Join(dir, "imported")); err == nil {
		for range b.N {
			analyseRegion(b, route, data)
		}
		return
	}
	pbf := filepath.Join(dir, "region.osm.pbf")
	f, err := os.Create(pbf)
	require.NoError(b, err)
	bw := bufio.NewWriterSize(f, 1<<20)
	w, err := osmfixture.NewPBF(bw)
	require.NoError(b, err)
	require.NoError(b, osmfixture.Generate(w, route, osmfixture.Spec{Points: 2_000_000, Segments: 5_000_000, Seed: 7}))
	require.NoError(b, bw.Flush())
	require.NoError(b, f.Close())
	st, _ := os.Stat(pbf)

	bin := filepath.Join(dir, "cairn")
	build := exec.Command("go", "build", "-o", bin, "./cmd/cairn")
	build.Dir = ".."
	out, err := build.CombinedOutput()
	require.NoError(b, err, string(out))

	for range b.N {
		require.NoError(b, os.RemoveAll(data))
		start := time.Now()
		imp := exec.Command(bin, "pois", "import", pbf)
		imp.Env = append(os.Environ(), "CAIRN_DATA_DIR="+data)
		out, err := imp.CombinedOutput()
		require.NoError(b, err, string(out))
		ru := imp.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		b.ReportMetric(float64(ru.Maxrss)/1024, "import-peak-MB")
		b.ReportMetric(cpu.Seconds(), "import-cpu-s")
		b.ReportMetric(time.Since(start).Seconds(), "import-wall-s")
		b.Logf("extract %d MB; %s", st.Size()>>20, bytes.TrimSpace(out))
		require.NoError(b, os.WriteFile(filepath.Join(dir, "imported"), nil, 0o600))
		analyseRegion(b, route, data)
	}
}

// analyseRegion uploads the dated 30-day trip over the region imported in
// data and reports the CPU its analysis took.
func analyseRegion(b *testing.B, route []geo.Point, data string) {
	first := time.Now().UTC().AddDate(0, 0, 10).Truncate(24 * time.Hour)
	weatherURL := forecastServer(b, first)
	a := plannertest.New(b, func(_ testing.TB, c *config.Config) {
		c.DataDir = data
		*c = c.With("weather_url", weatherURL).With("events_url", eventsServer(b, route[len(route)/2], first.AddDate(0, 0, 15)))
	})
	e := newEnv(b, a)
	var g bytes.Buffer
	require.NoError(b, export.WriteGPX(&g, export.Track{Name: "Thirty days", Points: route}))
	op, _ := a.Server.Registry.Lookup("trips.upload")
	var before syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &before))
	began := time.Now()
	up := a.ViaHTTP(b, apptest.Request{Op: op, Token: e.token, Key: key(),
		Args: map[string]any{"startDate": first.Format("2006-01-02"), "endDate": first.AddDate(0, 0, 29).Format("2006-01-02"),
			"maxDistancePerDay": 100, "fatigueFactor": 1.0},
		Files: map[string]apptest.File{"gpxFile": {Name: "long.gpx", ContentType: "application/gpx+xml", Body: g.Bytes()}}})
	require.Equal(b, http.StatusAccepted, up.Status, string(up.Raw))
	state := a.WaitSettled(b, e.token, up.Body["id"].(string))
	var after syscall.Rusage
	require.NoError(b, syscall.Getrusage(syscall.RUSAGE_SELF, &after))
	for name, s := range state["computationStatus"].(map[string]any) {
		require.Equal(b, "done", s, name)
	}
	used := time.Duration(after.Utime.Nano()+after.Stime.Nano()) - time.Duration(before.Utime.Nano()+before.Stime.Nano())
	b.ReportMetric(used.Seconds(), "analysis-cpu-s")
	b.ReportMetric(time.Since(began).Seconds(), "analysis-wall-s")
	b.Logf("analysis of 30 days, 17 computations: %s CPU, %s wall", used, time.Since(began).Round(time.Millisecond))
}
