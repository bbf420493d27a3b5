// Package trips serves trips: their creation from a route address, their
// settings, listing, reading and deletion. It declares its operations once;
// the faces and the guard chain come from the declarations.
package trips

import (
	"cairn.dev/cairn/progress"
	"log/slog"

	"go.uber.org/fx"

	"cairn.dev/cairn/modules/route/places"
	"cairn.dev/cairn/modules/route/poi"
	"cairn.dev/cairn/modules/route/routing"
	"cairn.dev/cairn/registry"
)

// Module provides the trip store, the pipeline and the trip declarations.
var Module = fx.Module("trips", fx.Provide(NewStore, New))

// Params are what the module needs; the application provides the queue,
// the progress hub and the route source.
type Params struct {
	fx.In
	Store    *Store
	Jobs     Dispatcher
	Progress progress.Hub
	Source   Source
	Places   poi.Provider    `optional:"true"` // accommodation candidates
	Router   routing.Router  `optional:"true"` // detours through a waypoint
	Geocoder places.Searcher `optional:"true"` // locates hand-entered accommodations
	Public   PublicURL       `optional:"true"` // where visitors reach the server: share links are absolute
	Log      *slog.Logger

	// Tickets open event streams from a browser (events.go).
	Tickets progress.Tickets `optional:"true"`

	// What the enrichments read (enrichments.go); each may be absent, and
	// the computations then say so rather than find nothing.
	MapData   MapData         `optional:"true"`
	Forecasts Forecaster      `optional:"true"`
	Events    EventFeed       `optional:"true"`
	Borders   Borders         `optional:"true"`
	Namer     places.Reverser `optional:"true"` // names the days' ends
}

// Result is what the module adds to the application.
type Result struct {
	fx.Out
	Trips    *Trips
	Pipeline *Pipeline
	Declare  registry.Declarer `group:"declarations"`
}

// Trips holds the handlers. New works without fx as well.
type Trips struct {
	store    *Store
	jobs     Dispatcher
	progress progress.Hub
	router   routing.Router
	geocoder places.Searcher
	tickets  progress.Tickets
	public   PublicURL
	places   poi.Provider // in-ride search reads its index, when it has one
	namer    places.Reverser
	data     MapData
	uploads  uploadSlots                                    // bounds the GPX uploads read at once
	kept     *publicCache                                   // the public reads' answers, by revision (sharecache.go)
	details  *keptAnswers[string, Detail, detailHead]       // get_trip's answers, by trip and revision (keptanswers.go)
	lists    *keptAnswers[listKey, List, registry.PageInfo] // list_trips' answers, by listing stamp (keptlist.go)
}

// New builds the module.
func New(p Params) Result {
	t := &Trips{public: p.Public, store: p.Store, jobs: p.Jobs, progress: p.Progress, router: p.Router, geocoder: p.Geocoder,
		places: p.Places, tickets: p.Tickets, namer: p.Namer, data: p.MapData,
		uploads: newUploadSlots(MaxConcurrentUploads, UploadWait), kept: newPublicCache(),
		details: newKeptDetails(), lists: newKeptLists()}
	pl := &Pipeline{store: p.Store, source: p.Source, jobs: p.Jobs, progress: p.Progress, places: p.Places, log: p.Log,
		data: p.MapData, forecasts: p.Forecasts, feed: p.Events, borders: p.Borders, namer: p.Namer}
	return Result{Trips: t, Pipeline: pl, Declare: t.Declare}
}
