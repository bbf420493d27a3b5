package trips

import (
	"context"

	"cairn.dev/cairn/modules/route/places"
)

// labelDays names each day's ends from the gazetteer: the nearest town or
// village within its reach, nil beyond it. A day whose ends are those of
// known (same points, already named) keeps its names.
func labelDays(ctx context.Context, namer places.Reverser, stages []Stage, known []Stage) {
	if namer == nil {
		return
	}
	prev := map[Point]*string{}
	for _, s := range known {
		if s.StartLabel != nil {
			prev[s.StartPoint] = s.StartLabel
		}
		if s.EndLabel != nil {
			prev[s.EndPoint] = s.EndLabel
		}
	}
	name := func(p Point) *string {
		if l, ok := prev[p]; ok {
			return l
		}
		found, err := namer.Reverse(ctx, p.Lat, p.Lon)
		if err != nil || len(found) == 0 || found[0].Name == "" {
			prev[p] = nil
			return nil
		}
		l := found[0].Name
		prev[p] = &l
		return &l
	}
	for i := range stages {
		stages[i].StartLabel, stages[i].EndLabel = name(stages[i].StartPoint), name(stages[i].EndPoint)
	}
}
