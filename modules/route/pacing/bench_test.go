package pacing_test

import (
	"bytes"
	"testing"

	"cairn/modules/route/decimate"
	"cairn/modules/route/geo"
	"cairn/modules/route/gpx"
	"cairn/modules/route/pacing"
	"cairn/modules/route/routefixture"
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
// synchronously: parse, measure, decimate, pace.
func BenchmarkImport(b *testing.B) {
	data := routefixture.LongGPX()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
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
}
