package alerts

import (
	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/modules/route/words"
)

// along is the point at fraction f (clamped to 0..1) of the polyline's
// length, interpolated linearly between its two neighbours. Rules place an
// alert "at km d" with f = d / stage distance, the same proportion pipeline.md
// §7 uses for rider time, because a stage's distance is measured on other
// points than its decimated geometry. ok is false for an empty line.
func along(line []geo.Point, f float64) (p geo.Point, ok bool) {
	switch len(line) {
	case 0:
		return geo.Point{}, false
	case 1:
		return line[0], true
	}
	f = max(0, min(1, f))
	target := f * geo.Length(line)
	walked := 0.0
	for i := 1; i < len(line); i++ {
		a, b := line[i-1], line[i]
		step := geo.Distance(a, b)
		if step > 0 && walked+step >= target {
			t := (target - walked) / step
			return geo.Point{
				Lat: a.Lat + t*(b.Lat-a.Lat),
				Lon: a.Lon + t*(b.Lon-a.Lon),
				Ele: a.Ele + t*(b.Ele-a.Ele),
			}, true
		}
		walked += step
	}
	return line[len(line)-1], true
}

// coords is p as the optional coordinates of an alert.
func coords(p geo.Point) (lat, lon *float64) {
	return &p.Lat, &p.Lon
}

// navigate is a navigate action to p, with the stretches it concerns when
// there are any.
func navigate(label string, p geo.Point, segments ...[]geo.Point) *Action {
	return navigateWith(label, nil, p, segments...)
}

// navigateWith is navigate with a label taking args.
func navigateWith(label string, args words.Args, p geo.Point, segments ...[]geo.Point) *Action {
	payload := map[string]any{"lat": p.Lat, "lon": p.Lon}
	if len(segments) > 0 {
		lines := make([][][2]float64, 0, len(segments))
		for _, s := range segments {
			line := make([][2]float64, len(s))
			for i, q := range s {
				line[i] = [2]float64{q.Lat, q.Lon}
			}
			lines = append(lines, line)
		}
		payload["segments"] = lines
	}
	return act(ActionNavigate, label, args, payload)
}
