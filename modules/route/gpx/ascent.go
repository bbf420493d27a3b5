package gpx

import "cairn.dev/cairn/modules/route/geo"

// minRun is the climb or drop, in metres, a run must exceed to count: smaller
// runs are barometric and GPS noise.
const minRun = 3.0

// Ascent is the total climb (D+) and drop (D−) in metres along points, by the
// run rule of pipeline.md §3: consecutive rising steps add up to a run, any
// step that does not rise ends it, and a run counts only when its total
// exceeds 3 m; drops are read the same way. So 100→102→100→110 climbs 10 m:
// the 2 m run is noise. loss is returned as a positive number.
func Ascent(points []geo.Point) (gain, loss float64) {
	var up, down float64 // the runs in progress
	for i := 1; i < len(points); i++ {
		step := points[i].Ele - points[i-1].Ele
		if step > 0 {
			up += step
		} else {
			gain += settle(up)
			up = 0
		}
		if step < 0 {
			down -= step
		} else {
			loss += settle(down)
			down = 0
		}
	}
	return gain + settle(up), loss + settle(down)
}

// settle is what a finished run contributes.
func settle(run float64) float64 {
	if run > minRun {
		return run
	}
	return 0
}
