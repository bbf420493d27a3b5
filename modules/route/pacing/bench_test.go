package pacing_test

import (
	"bytes"
	"fmt"
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

// BenchmarkImport is a whole GPX upload as pipeline.md §2 runs it
// synchronously: parse, measure, decimate, pace. Sizes are a quarter, half
// and all of the long fixture, to show the cost grows with the points.
func BenchmarkImport(b *testing.B) {
	for _, n := range []int{routefixture.LongPoints / 4, routefixture.LongPoints / 2, routefixture.LongPoints} {
		var buf bytes.Buffer
		if err := export.WriteGPX(&buf, export.Track{Name: "Import", Points: routefixture.Route(routefixture.LongSeed, n, routefixture.LongSpacing)}); err != nil {
			b.Fatal(err)
		}
		data := buf.Bytes()
		b.Run(fmt.Sprintf("points=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				importGPX(b, data)
			}
		})
	}
}

func importGPX(b *testing.B, data []byte) {
	parsed, err := gpx.Parse(bytes.NewReader(data))
	if err != nil {
		b.Fatal(err)
	}
	gain, _ := gpx.Ascent(parsed.Points)
	route := pacing.Route{
		Decimated: decimate.Simplify(parsed.Points, decimate.Tolerance),
		Raw:       parsed.Points,
		Distance:  geo.Length(parsed.Points) / 1000,
		Ascent:    gain,
	}
	if _, err := pacing.Plan(route, pacing.Params{}); err != nil {
		b.Fatal(err)
	}
}
