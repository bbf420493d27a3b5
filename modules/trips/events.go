package trips

import (
	"context"
	"net/url"
	"time"

	"cairn.dev/cairn/progress"
	"cairn.dev/cairn/registry"
)

// Heartbeat is how often an idle event stream sends a comment, so proxies
// and clients keep the connection open.
var Heartbeat = 15 * time.Second

// EventStatus is the first event of a stream that does not resume: the
// trip's current statuses (the State body). Its id covers every event
// published before it, so a reconnection from it misses nothing.
const EventStatus = "status"

// EventTripComplete is published once every computation of the trip has
// settled; the stream ends after it.
const EventTripComplete = "trip_complete"

// EventStream is a trip's progress stream: first the current statuses,
// then every event as it happens, from whichever replica does the work,
// until the trip's computations have all settled. A reconnection with the
// id of the last event received (Last-Event-ID) resumes after it, without
// the statuses, while the replay buffer still holds it.
type EventStream struct {
	trips *Trips
	id    string
	after string // Last-Event-ID, as sent
}

var (
	_ registry.Streamer   = EventStream{}
	_ registry.EventTypes = EventStream{}
)

// Stream implements registry.Streamer. It ends after trip_complete, and at
// once, after the statuses, on a trip whose computations are all settled:
// nothing more will come until the trip is changed. A reconnection after
// the last event of a settled trip, with nothing new since, answers
// registry.ErrNothingToFollow (204), which stops a browser's EventSource.
func (s EventStream) Stream(ctx context.Context, send func(registry.StreamEvent) error) error {
	sub, err := s.trips.progress.Subscribe(ctx, s.id, s.after)
	if err != nil {
		return err
	}
	// Subscribed first, then the state: an event in between is sent
	// after the statuses that already show it, rather than lost.
	tr, err := s.trips.store.Get(ctx, s.id)
	if err != nil {
		return err
	}
	settled := allSettled(tr.ComputationStatus)
	switch {
	case sub.Resumed && sub.Replayed == 0 && settled:
		return registry.ErrNothingToFollow
	case !sub.Resumed:
		if err := send(registry.StreamEvent{ID: sub.Last, Event: EventStatus, Data: stateOf(tr, time.Now())}); err != nil {
			return err
		}
		if settled {
			return nil
		}
	}
	tick := time.NewTicker(Heartbeat)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
			if err := send(registry.StreamEvent{Data: map[string]string{"heartbeat": time.Now().UTC().Format(time.RFC3339)}}); err != nil {
				return err
			}
		case e, ok := <-sub.Events:
			if !ok {
				return nil
			}
			// An event tells of a write that has committed, perhaps on
			// another replica: the reads this replica answers after
			// relaying it must not give the digest from before it.
			s.trips.store.forget(s.id)
			if err := send(registry.StreamEvent{ID: e.ID, Event: e.Type, Data: e.Data}); err != nil {
				return err
			}
			if e.Type == EventTripComplete {
				return nil
			}
		}
	}
}

// allSettled reports whether every scheduled computation has settled; a
// trip with none scheduled has nothing to follow either.
func allSettled(cs map[string]string) bool {
	for _, s := range cs {
		if !Settled(s) {
			return false
		}
	}
	return true
}

// streamEvents documents every event a trip's stream sends. A test holds it
// against the events the module publishes.
var streamEvents = []registry.EventType{
	{Name: EventStatus, Doc: "First event of a stream that does not resume: the trip's State (computationStatus, isLocked, version). Its id covers everything before it."},
	{Name: "computation_running", Doc: "A computation started: {computation}."},
	{Name: "route_parsed", Doc: "The route was imported: {totalDistance (km), totalElevation, totalElevationLoss (m), sourceType, title}."},
	{Name: "stages_computed", Doc: "The days were cut: {stageCount}."},
	{Name: "terrain_alerts", Doc: "Terrain was judged: {alertCount}."},
	{Name: "accommodations_found", Doc: "Accommodation candidates were gathered: {stageCount}."},
	{Name: "pois_scanned", Doc: "The places to buy food and water along the days were read, and each day's stops chosen: {alertCount, stageCount}."},
	{Name: "weather_fetched", Doc: "The days' forecasts were read: {alertCount, stageCount}."},
	{Name: "wind_alerts", Doc: "Headwinds and riding comfort were judged: {alertCount, stageCount}."},
	{Name: "fords_alerts", Doc: "Fords on the route were judged against the rain: {alertCount, stageCount}."},
	{Name: "calendar_alerts", Doc: "Public holidays and Sundays were found: {alertCount, stageCount}."},
	{Name: "bike_shops_alerts", Doc: "Bike shops near the days were looked for: {alertCount, stageCount}."},
	{Name: "water_points_alerts", Doc: "Stretches without drinking water were found: {alertCount, stageCount}."},
	{Name: "health_services_alerts", Doc: "Pharmacies, hospitals and clinics near the days were looked for: {alertCount, stageCount}."},
	{Name: "cultural_pois_alerts", Doc: "Places to see near the route were suggested: {alertCount, stageCount}."},
	{Name: "railway_stations_alerts", Doc: "Stations near the days' ends were looked for: {alertCount, stageCount}."},
	{Name: "border_crossing_alerts", Doc: "Border crossings were found: {alertCount, stageCount}."},
	{Name: "ferries_alerts", Doc: "Ferry crossings were found: {alertCount, stageCount}."},
	{Name: "events_found", Doc: "Events near the days' ends on their dates were read: {alertCount, stageCount}."},
	{Name: "computation_step_completed", Doc: "A computation settled: {completed, failed, total} computations."},
	{Name: "computation_error", Doc: "A computation failed: {computation, message, retryable}; retryable: false means it settled as failed."},
	{Name: "computation_superseded", Doc: "A computation's work was discarded, a newer change having replaced it: {computation}."},
	{Name: "validation_error", Doc: "The route or its pacing cannot be used: {code}."},
	{Name: "route_segment_recalculated", Doc: "A day's route was recalculated through a waypoint: {stageId, reason, distance (km), elevationGain (m), duration (min)}."},
	{Name: "recompute_started", Doc: "A recomputation was asked for: {modifications}."},
	{Name: EventTripComplete, Doc: "Every computation has settled: {computationStatus}. The stream ends after it."},
}

// EventTypes implements registry.EventTypes.
func (EventStream) EventTypes() []registry.EventType { return streamEvents }

func (t *Trips) events(_ context.Context, c *registry.Call, _ *NoInput) (EventStream, error) {
	return EventStream{trips: t, id: c.Var("id"), after: c.LastEventID}, nil
}

// StreamTicket opens the trip's event stream once, within its short life,
// where an Authorization header cannot be sent: GET
// /trips/{id}/events?ticket=…. It opens nothing else.
type StreamTicket struct {
	Ticket    string    `json:"ticket" doc:"Single-use ticket for GET /trips/{id}/events?ticket=…; opens this trip's stream only, and is no bearer token."`
	ExpiresAt time.Time `json:"expiresAt" doc:"When the ticket stops opening the stream (about a minute after it was issued)."`
	Stream    string    `json:"stream" doc:"The stream's address, ticket included, for new EventSource(stream); absolute under the server's public address when one is set."`
}

func (t *Trips) eventsTicket(ctx context.Context, c *registry.Call, _ *NoInput) (StreamTicket, error) {
	if t.tickets == nil {
		return StreamTicket{}, registry.Fail(registry.KindUnavailable, "stream tickets are not configured; send the bearer token in the Authorization header")
	}
	ticket, expires, err := t.tickets.Issue(ctx, progress.Grant{Op: "trips.events", ID: c.Var("id"), Credential: c.Credential}, progress.TicketTTL)
	if err != nil {
		return StreamTicket{}, err
	}
	return StreamTicket{Ticket: ticket, ExpiresAt: expires.UTC(),
		Stream: t.absolute("/trips/" + url.PathEscape(c.Var("id")) + "/events?ticket=" + url.QueryEscape(ticket))}, nil
}
