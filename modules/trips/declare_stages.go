package trips

import (
	"net/http"

	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/registry"
)

// editStages is the one tool over the five stage operations: one concept
// (recutting the day split) wearing five URLs.
const editStages = "edit_stages"

const editStagesDoc = "Change the days of a trip. action picks the change: " +
	"add (startPoint and endPoint required, position optional), " +
	"update (stageId, then label, startPoint/endPoint, or distance to recut along the route), " +
	"move (stageId and toIndex), delete (stageId; a trip keeps at least two days), " +
	"rest_day (stageId: a rest day after that day). Answers the new version."

// dayEdit is why the stage edits ask nothing: each is made against the
// version the caller read, and changes how the route is cut into days,
// never the route itself, so another edit cuts it back.
var dayEdit = registry.NoConfirmBecause("a day edit is made against the version the caller read and recuts the days of a route kept whole; another edit cuts them back")

// declareStages adds the stage operations: get_stage and the five branches
// of edit_stages, each declared once with every guard.
func (t *Trips) declareStages(reg *registry.Registry) {
	registry.Add(reg, registry.Op[StageInput, StageDetail]{
		ID:      "stages.get",
		Summary: "Read one day in full",
		HTTP:    registry.Get("/trips/{id}/stages/{stageId}/detail"),
		Tool:    registry.Tool("get_stage", "Read one day in full: alerts, weather, resupply, accommodations, events. stageId from get_trip.").Viewed(TripView),

		Scope:        scopes.TripsRead,
		Owner:        registry.ByURIVariable("id", t.store.OwnsForRead).Within("stageId"),
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},

		Handle: t.stageDetail,
	})

	registry.Add(reg, registry.Op[AddStageInput, StageEdit]{
		ID: "stages.add", Summary: "Add a day",
		HTTP: registry.Post("/trips/{id}/stages", http.StatusAccepted),
		Tool: registry.ToolAction(editStages, editStagesDoc, "add").Viewed(TripView),

		Scope: scopes.TripsWrite, Owner: registry.ByURIVariable("id", t.store.Owns), RateLimit: registry.NoRateLimit,
		Load: t.loadEditable, Merge: t.mergeAdd, Validate: registry.ValidateWith(validateDays),
		Lock: registry.LockWhen(LockReason, lockedDays), Precondition: registry.RequireVersion,
		Confirm: dayEdit, Idempotency: registry.NotACreation,
		Hints: registry.Hints{Destructive: true}, Dispatches: true, Record: (*Stage)(nil), Refusals: []*registry.Error{refusedWhileComputing},

		Handle: saveWith[AddStageInput](t),
	})

	registry.Add(reg, registry.Op[UpdateStageInput, StageEdit]{
		ID: "stages.update", Summary: "Change a day: label, ends, or length",
		HTTP: registry.Patch("/trips/{id}/stages/{stageId}", http.StatusAccepted),
		Tool: registry.ToolAction(editStages, editStagesDoc, "update").Viewed(TripView),

		Scope: scopes.TripsWrite, Owner: registry.ByURIVariable("id", t.store.Owns).Within("stageId"), RateLimit: registry.NoRateLimit,
		Load: t.loadEditable, Merge: t.mergeUpdateStage, Validate: registry.ValidateWith(validateDays),
		Lock: registry.LockWhen(LockReason, lockedDays), Precondition: registry.RequireVersion,
		Confirm: dayEdit, Idempotency: registry.NotACreation,
		Hints: registry.Hints{Destructive: true}, Dispatches: true, Record: (*Stage)(nil), Refusals: []*registry.Error{refusedWhileComputing},

		Handle: saveWith[UpdateStageInput](t),
	})

	registry.Add(reg, registry.Op[MoveStageInput, StageEdit]{
		ID: "stages.move", Summary: "Move a day to another place in the order",
		HTTP: registry.Patch("/trips/{id}/stages/{stageId}/move", http.StatusAccepted),
		Tool: registry.ToolAction(editStages, editStagesDoc, "move").Viewed(TripView),

		Scope: scopes.TripsWrite, Owner: registry.ByURIVariable("id", t.store.Owns).Within("stageId"), RateLimit: registry.NoRateLimit,
		Load: t.loadEditable, Merge: t.mergeMove, Validate: registry.ValidateWith(validateDays),
		Lock: registry.LockWhen(LockReason, lockedDays), Precondition: registry.RequireVersion,
		Confirm: dayEdit, Idempotency: registry.NotACreation,
		Hints: registry.Hints{Destructive: true}, Dispatches: true, Record: (*Stage)(nil), Refusals: []*registry.Error{refusedWhileComputing},

		Handle: saveWith[MoveStageInput](t),
	})

	registry.Add(reg, registry.Op[NoInput, StageEdit]{
		ID: "stages.delete", Summary: "Delete a day (merged into a neighbour to keep the route whole)",
		HTTP: registry.Delete("/trips/{id}/stages/{stageId}"),
		Tool: registry.ToolAction(editStages, editStagesDoc, "delete").Viewed(TripView),

		Scope: scopes.TripsWrite, Owner: registry.ByURIVariable("id", t.store.Owns).Within("stageId"), RateLimit: registry.NoRateLimit,
		Load: t.loadEditable, Merge: t.mergeDelete, Validate: registry.ValidateWith(validateDays),
		Lock: registry.LockWhen(LockReason, lockedDays), Precondition: registry.RequireVersion,
		Confirm: dayEdit, Idempotency: registry.NotACreation,
		Hints: registry.Hints{Destructive: true}, Dispatches: true, Record: (*Stage)(nil), Refusals: []*registry.Error{refusedWhileComputing},

		Handle: saveWith[NoInput](t),
	})

	registry.Add(reg, registry.Op[NoInput, StageEdit]{
		ID: "stages.rest_day", Summary: "Insert a rest day after a day",
		HTTP: registry.Post("/trips/{id}/stages/{stageId}/rest-day", http.StatusAccepted),
		Tool: registry.ToolAction(editStages, editStagesDoc, "rest_day").Viewed(TripView),

		Scope: scopes.TripsWrite, Owner: registry.ByURIVariable("id", t.store.Owns).Within("stageId"), RateLimit: registry.NoRateLimit,
		Load: t.loadEditable, Merge: t.mergeRestDay, Validate: registry.ValidateWith(validateDays),
		Lock: registry.LockWhen(LockReason, lockedDays), Precondition: registry.RequireVersion,
		Confirm: dayEdit, Idempotency: registry.NotACreation,
		Hints: registry.Hints{Destructive: true}, Dispatches: true, Record: (*Stage)(nil), Refusals: []*registry.Error{refusedWhileComputing},

		Handle: saveWith[NoInput](t),
	})
}
