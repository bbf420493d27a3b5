package pacing_test

import (
	"bytes"
	"cairn.dev/cairn/metrics"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"testing"

	"cairn.dev/cairn/modules/route/decimate"
	"cairn.dev/cairn/modules/route/export"
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/gpx"
	"cairn.dev/cairn/modules/route/pacing"
	"cairn.dev/cairn/modules/route/routefixture"
)

func BenchmarkPlanLong(b *testing.B) {
	route := newRoute(b, routefixture.Long())
	b.ReportAllocs()
	for b.Loop() {
		if _, err := pacing.Plan(route, pacing.Params{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkImport is the import step on recorded points, as an upload or a
// route source runs it: measure, decimate, pace. Every shape runs at 10k,
// 100k, 200k and 1M points, so the growth shows; cpu-ns/op is the process's
// CPU time per import, which a machine shared with other work inflates less
// than the wall clock (run with -cpu 1).
func BenchmarkImport(b *testing.B) {
	for _, shape := range routefixture.Shapes() {
		for _, n := range []int{10_000, 100_000, 200_000, 1_000_000} {
			b.Run(fmt.Sprintf("shape=%s/points=%d", shape.Name, n), func(b *testing.B) {
				raw := shape.Points(n)
				b.ReportAllocs()
				start := metrics.ProcessCPU()
				for b.Loop() {
					importPoints(b, raw)
				}
				b.ReportMetric(float64(metrics.ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
			})
		}
	}
	// The 12 MB upload that once held a core for minutes: 10,000 km of
	// routefixture.Zigzag, a point every 50 m.
	b.Run("shape=zigzag50m/points=200000", func(b *testing.B) {
		raw := routefixture.Zigzag(10_000_000)
		b.ReportAllocs()
		start := metrics.ProcessCPU()
		for b.Loop() {
			importPoints(b, raw)
		}
		b.ReportMetric(float64(metrics.ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
	})
}

// BenchmarkUpload is a whole GPX upload of 30 MB, the largest accepted, as
// pipeline.md §2 runs it synchronously: parse, measure, decimate, pace. The
// file is read from disk, where the server's multipart reader leaves a
// file that size. peak-MB is the resident memory the upload takes above the
// idle process (Linux only).
func BenchmarkUpload(b *testing.B) {
	for _, shape := range routefixture.Shapes() {
		b.Run("shape="+shape.Name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "upload.gpx")
			data := uploadOf(shape, 30<<20)
			if err := os.WriteFile(path, data, 0o600); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(data)))
			data = nil
			b.ReportAllocs()
			runtime.GC()
			debug.FreeOSMemory()
			idle := residentBytes()
			resetPeakResident()
			start := metrics.ProcessCPU()
			points := 0
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				parsed, err := gpx.Parser{MaxBytes: 30 << 20}.Parse(f)
				_ = f.Close()
				if err != nil {
					b.Fatal(err)
				}
				importPoints(b, parsed.Points)
				points = len(parsed.Points)
			}
			b.ReportMetric(float64(metrics.ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(points), "points")
			if peak := peakResidentBytes(); peak > 0 {
				b.ReportMetric(float64(peak-idle)/1e6, "peak-MB")
			}
		})
	}
}

func importPoints(b *testing.B, raw []geo.Point) {
	ctx := context.Background()
	dec, err := decimate.SimplifyContext(ctx, raw, decimate.Tolerance)
	if err != nil {
		b.Fatal(err)
	}
	gain, _ := gpx.Ascent(raw)
	route := pacing.Route{Decimated: dec, Raw: raw, Distance: geo.Length(raw) / 1000, Ascent: gain}
	if _, err := pacing.PlanContext(ctx, route, pacing.Params{}); err != nil {
		b.Fatal(err)
	}
}

// uploadOf is a GPX file of the shape of about size bytes (under it),
// written as a device writes it: 6 decimals of a degree, 1 of a metre.
func uploadOf(shape routefixture.Shape, size int) []byte {
	write := func(n int) []byte {
		points := shape.Points(n)
		for i := range points {
			points[i].Lat = math.Round(points[i].Lat*1e6) / 1e6
			points[i].Lon = math.Round(points[i].Lon*1e6) / 1e6
			points[i].Ele = math.Round(points[i].Ele*10) / 10
		}
		var buf bytes.Buffer
		if err := export.WriteGPX(&buf, export.Track{Name: "Upload", Points: points}); err != nil {
			panic(err) // a bytes.Buffer does not fail
		}
		return buf.Bytes()
	}
	n := 10_000
	data := write(n)
	for len(data) > size || len(data) < size*98/100 {
		n = int(float64(n) * float64(size) / float64(len(data)) * 0.99)
		data = write(n)
	}
	return data
}

// BenchmarkUploadPoints is a whole GPX upload by its number of points, as
// a device writes them (elevation included), from 200,000 to 1,000,000:
// parse, measure, decimate, pace. A million points do not fit the 30 MB
// upload limit written this way (about 60 MB), so the parser's limit is
// raised here to measure the per-point cost at that count.
func BenchmarkUploadPoints(b *testing.B) {
	shape := routefixture.Shapes()[0]
	for _, n := range []int{200_000, 1_000_000} {
		b.Run(fmt.Sprintf("points=%d", n), func(b *testing.B) {
			points := shape.Points(n)
			for i := range points {
				points[i].Lat = math.Round(points[i].Lat*1e6) / 1e6
				points[i].Lon = math.Round(points[i].Lon*1e6) / 1e6
				points[i].Ele = math.Round(points[i].Ele*10) / 10
			}
			var buf bytes.Buffer
			if err := export.WriteGPX(&buf, export.Track{Name: "Upload", Points: points}); err != nil {
				b.Fatal(err)
			}
			path := filepath.Join(b.TempDir(), "upload.gpx")
			if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(buf.Len()))
			points, buf = nil, bytes.Buffer{}
			b.ReportAllocs()
			runtime.GC()
			debug.FreeOSMemory()
			idle := residentBytes()
			resetPeakResident()
			start := metrics.ProcessCPU()
			for b.Loop() {
				f, err := os.Open(path)
				if err != nil {
					b.Fatal(err)
				}
				parsed, err := gpx.Parser{MaxBytes: 128 << 20}.Parse(f)
				_ = f.Close()
				if err != nil || len(parsed.Points) != n {
					b.Fatal(len(parsed.Points), err)
				}
				importPoints(b, parsed.Points)
			}
			b.ReportMetric(float64(metrics.ProcessCPU()-start)/float64(b.N), "cpu-ns/op")
			if peak := peakResidentBytes(); peak > 0 {
				b.ReportMetric(float64(peak-idle)/1e6, "peak-MB")
			}
		})
	}
}
