package trips

import (
	"net/http"
	"time"

	"cairn.dev/cairn/modules/route/words"
	"cairn.dev/cairn/modules/scopes"
	"cairn.dev/cairn/registry"
)

// Declare adds the trip operations to reg, one declaration each.
func (t *Trips) Declare(reg *registry.Registry) {
	reg.DeclareScope(scopes.TripsRead, registry.ReadScope, "Read your trips, their days, shares and exports, and search places.")
	reg.DeclareScope(scopes.TripsWrite, registry.WriteScope, "Create, change, share and delete your trips.")
	// The trips speak English and French (words.Languages): refusals too.
	reg.SpeakLocales(words.English, words.French)
	reg.Translate(words.French, problemsFR)
	t.declareStages(reg)
	t.declareShares(reg)
	t.declareEnrichments(reg)
	t.declareManual(reg)
	t.declareCopies(reg)
	t.declareRecompute(reg)
	t.declareScan(reg)
	t.declareNearby(reg)
	registry.Add(reg, registry.Op[ListInput, List]{
		ID:      "trips.list",
		Summary: "List your trips, newest first",
		HTTP:    registry.Get("/trips"),
		Tool:    registry.Tool("list_trips", "List the caller's trips, newest first, 20 per page (up to 100), optionally filtered by title or dates. Use an id from here with get_trip."),

		Scope:        scopes.TripsRead,
		Owner:        registry.CallerOwned,
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},
		Paging:       registry.Paged(20, 100),

		Handle: t.list,
	})

	registry.Add(reg, registry.Op[CreateInput, State]{
		ID:      "trips.create",
		Summary: "Create a trip from a route address",
		HTTP:    registry.Post("/trips", http.StatusAccepted),
		Tool:    registry.Tool("create_trip", "Create a trip from the https address of a route (Komoot, Strava or RideWithGPS) and optional settings. Answers at once; the days are computed in the background, so poll get_trip until partial is false.").Viewed(TripView),

		Scope:        scopes.TripsWrite,
		Owner:        registry.CallerOwned,
		RateLimit:    registry.PerUser(10, time.Minute),
		Merge:        t.mergeCreate,
		Validate:     registry.ValidateWith(validateTrip),
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.CreationReplayedBy(t.replayCreate),
		Hints:        registry.Hints{OpenWorld: true},
		Dispatches:   true,
		Record:       (*Trip)(nil),

		Handle: t.create,
	})

	registry.Add(reg, registry.Op[UploadInput, Uploaded]{
		ID:      "trips.upload",
		Summary: "Create a trip from a GPX file (multipart field gpxFile)",
		HTTP:    registry.Upload("/trips/gpx-upload", http.StatusAccepted, UploadFile),
		Tool:    registry.NotATool(registry.MotiveBinaryPayload),

		Scope:        scopes.TripsWrite,
		Owner:        registry.CallerOwned,
		RateLimit:    registry.PerUser(10, time.Minute),
		Merge:        t.mergeUpload,
		Validate:     registry.ValidateWith(validateTrip),
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.CreationReplayedBy(t.replayUpload),
		Hints:        registry.Hints{},
		Dispatches:   true,
		Record:       (*Trip)(nil),

		Handle: t.upload,
	})

	registry.Add(reg, registry.Op[NoInput, Detail]{
		ID:      "trips.get",
		Summary: "Read a trip: settings, then one line per day",
		HTTP:    registry.Get("/trips/{id}/detail"),
		Tool:    registry.Tool("get_trip", "Read one trip as a digest: its settings, then one line per day. Says partial: true while the days are still being computed. Publishes the version that writes need.").Viewed(TripView),

		Scope:        scopes.TripsRead,
		Owner:        registry.ByURIVariable("id", t.store.OwnsDigest),
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},

		Handle: t.detail,
	})

	registry.Add(reg, registry.Op[NoInput, State]{
		ID:      "trips.state",
		Summary: "The trip's address: its computation statuses and lock",
		HTTP:    registry.Get("/trips/{id}"),
		Tool:    registry.NotATool(registry.MotiveCoveredByAnotherTool),

		Scope:        scopes.TripsRead,
		Owner:        registry.ByURIVariable("id", t.store.OwnsForRead),
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},

		Handle: t.state,
	})

	registry.Add(reg, registry.Op[NoInput, EventStream]{
		ID:      "trips.events",
		Summary: "Follow a trip's computations as server-sent events",
		HTTP:    registry.Get("/trips/{id}/events"),
		Tool:    registry.NotATool(registry.MotiveInfrastructure),

		Scope:        scopes.TripsRead,
		Owner:        registry.ByURIVariable("id", t.store.Owns),
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},

		Handle: t.events,
	})

	registry.Add(reg, registry.Op[NoInput, StreamTicket]{
		ID:      "trips.events_ticket",
		Summary: "Get a ticket that opens the trip's event stream once, for a browser's EventSource",
		HTTP:    registry.Post("/trips/{id}/events/ticket", http.StatusOK).Reading(), // the ticket opens a read
		Tool:    registry.NotATool(registry.MotiveInfrastructure),

		Scope:        scopes.TripsRead,
		Owner:        registry.ByURIVariable("id", t.store.Owns),
		RateLimit:    registry.PerUser(60, time.Minute),
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true},

		Handle: t.eventsTicket,
	})

	registry.Add(reg, registry.Op[UpdateInput, SettingsChange]{
		ID:      "trips.update_settings",
		Summary: "Change a trip's settings",
		HTTP:    registry.Patch("/trips/{id}", http.StatusAccepted),
		Tool:    registry.Tool("update_trip_settings", "Change pacing, dates, speed or the route of a trip. Changing the route, end date or pacing recuts every day and discards manual splits and chosen accommodations. Needs the version from get_trip; asks for confirmation only when the change loses something."),

		Scope:        scopes.TripsWrite,
		Owner:        registry.ByURIVariable("id", t.store.Owns),
		RateLimit:    registry.NoRateLimit,
		Load:         t.load,
		Merge:        t.mergeUpdate,
		Validate:     registry.ValidateWith(validateTrip),
		Lock:         registry.LockWhen(LockReason, lockedRecord),
		Precondition: registry.RequireVersion,
		Confirm:      registry.ConfirmWhenLoses(t.settingsImpact),
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{Destructive: true, OpenWorld: true},
		Dispatches:   true,
		Record:       (*Trip)(nil),

		Handle: t.updateSettings,
	})

	registry.Add(reg, registry.Op[NoInput, Deleted]{
		ID:      "trips.delete",
		Summary: "Delete a trip, its days and its share links",
		HTTP:    registry.Delete("/trips/{id}"),
		Tool:    registry.Tool("delete_trip", "Delete a trip with its days and share links. Cannot be undone; asks for confirmation first."),

		Scope:        scopes.TripsWrite,
		Owner:        registry.ByURIVariable("id", t.store.Owns),
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.ConfirmWith(t.deleteImpact),
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{Destructive: true},

		Handle: t.delete,
	})
}

func validateTrip(r registry.Record) []registry.Violation { return r.(*Trip).Violations() }

func lockedRecord(r registry.Record, now time.Time) bool { return Locked(r.(*Trip), now) }
