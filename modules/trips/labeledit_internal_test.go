package trips

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/uptrace/bun"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage/storagetest"
)

// TestALabelEditBesideRunningEnrichmentsKeepsTheirPlan: an enrichment reads
// the days' lines and ends, which a change of labels leaves as they were,
// and writes only what it found: a label edit while enrichments run keeps
// their plan (its generation and statuses), dispatches nothing, and the
// running enrichment's outcome still commits. While the days themselves
// are being cut, the cut would replace the edited days: the edit then
// plans again.
func TestALabelEditBesideRunningEnrichmentsKeepsTheirPlan(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		statuses StatusMap
		replans  bool
	}{
		{"enrichments running", StatusMap{ComputeRoute: StatusDone, ComputeStages: StatusDone,
			ComputeTerrain: StatusRunning, ComputeAccommodations: StatusPending}, false},
		{"the days being cut", StatusMap{ComputeRoute: StatusDone, ComputeStages: StatusRunning,
			ComputeTerrain: StatusPending, ComputeAccommodations: StatusPending}, true},
		{"everything settled", StatusMap{ComputeRoute: StatusDone, ComputeStages: StatusDone,
			ComputeTerrain: StatusDone, ComputeAccommodations: StatusDone}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			storagetest.EnginesWith(t, readSources, func(t *testing.T, db *bun.DB) {
				ctx := context.Background()
				s := NewStore(db)
				jobs := &dispatched{}
				trips := &Trips{store: s, jobs: jobs}
				user := readFixture(t, db, "labels@example.com")
				tr := newTrip(user, "00000000-0000-7000-8000-0000000000b"+string(rune('1'+i)), "Alps", time.Now().UTC(), nil, nil)
				tr.ComputationStatus = tt.statuses
				require.NoError(t, s.Insert(ctx, tr))
				require.NoError(t, s.ReplaceStages(ctx, tr.ID, fullStages(tr.ID)))
				stored, err := s.Get(ctx, tr.ID)
				require.NoError(t, err)
				days, err := s.Stages(ctx, tr.ID)
				require.NoError(t, err)
				prev := &Days{Trip: stored, Stages: days, Target: 1}
				merged := prev.clone()
				label := "By the lake"
				merged.Stages[1].Label = &label
				merged.touched = []int{1}

				_, err = trips.saveDays(ctx, &registry.Call{Previous: prev, Merged: merged, Now: time.Now()})
				require.NoError(t, err)
				after, err := s.Get(ctx, tr.ID)
				require.NoError(t, err)
				saved, err := s.Stages(ctx, tr.ID)
				require.NoError(t, err)
				require.Equal(t, label, *saved[1].Label)
				if tt.replans {
					require.Equal(t, stored.Generation+1, after.Generation, "the edit plans again")
					require.NotEmpty(t, jobs.names)
					return
				}
				require.Equal(t, stored.Generation, after.Generation, "the plan is kept")
				require.Equal(t, tt.statuses, after.ComputationStatus)
				require.Empty(t, jobs.names, "nothing is dispatched")
				if tt.statuses[ComputeTerrain] != StatusRunning {
					return
				}
				// The running enrichment's outcome commits, beside the label.
				require.NoError(t, saveAlert(ctx, s, tr.ID, "warning", "Steep"))
				require.NoError(t, s.transition(ctx, tr.ID, stored.Generation, map[string]string{ComputeTerrain: StatusDone}))
				done, err := s.Get(ctx, tr.ID)
				require.NoError(t, err)
				require.Equal(t, StatusDone, done.ComputationStatus[ComputeTerrain])
				saved, err = s.Stages(ctx, tr.ID)
				require.NoError(t, err)
				require.Equal(t, label, *saved[1].Label, "the outcome leaves the label")
				require.NotEmpty(t, saved[1].Alerts[ComputeTerrain])
			})
		})
	}
}
