package trips

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// The hot reads (get_trip, list_trips, a trip's address) are prepared
// statements naming the columns they answer: the engine parses them once,
// and no stage geometry, point or accommodation list is ever read or
// decoded for them.

// tripColumns are a trip's columns, in the order scanTrip reads them.
const tripColumns = `id, user_id, title, source_url, source_type, start_date, end_date, fatigue_factor,
	elevation_penalty, max_distance_per_day, average_speed, departure_hour, ebike_mode, accommodation_types,
	locale, status, computation_status, version, generation, created_at, updated_at, revision, alerts, coverage, out_of_zone`

// dayColumns are what the digest says of a day: no geometry, no
// accommodation candidates; its two end points; its chosen accommodation,
// of which it gives the name alone (chosenOf).
const dayColumns = `id, position, distance, ascent, descent, label, is_rest_day, alerts, start_point, end_point, start_label, end_label, selected_accommodation`

// chosenOf is the name of a stored chosen accommodation: nil without a
// choice (NULL, or JSON null), "" for a choice without a name, as decoding
// the whole accommodation gives. It reads the spelling the store writes
// ({"id":…,"name":…}) without a decoder. In the engine's JSON functions the
// name cost a parse of the accommodation for every day of every read.
func chosenOf(b []byte) (*string, error) {
	if b == nil || string(b) == "null" {
		return nil, nil
	}
	if rest, ok := bytes.CutPrefix(b, []byte(`{"id":`)); ok {
		if _, rest, ok = plainString(rest); ok {
			if rest, ok = bytes.CutPrefix(rest, []byte(`,"name":`)); ok {
				if name, rest, ok := plainString(rest); ok && len(rest) > 0 && (rest[0] == ',' || rest[0] == '}') {
					return &name, nil
				}
			}
		}
	}
	var a struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &a); err != nil {
		return nil, err
	}
	return &a.Name, nil
}

// summaryColumns are a listed trip's, with its riding days counted and
// summed (rest days ignored) through the stages index.
const summaryColumns = `t.id, t.title, t.start_date, t.end_date, t.status, t.computation_status, t.created_at, t.updated_at,
	CASE WHEN t.days_digest_revision = t.revision THEN t.listed_days ELSE ` + countedDays + ` END,
	CASE WHEN t.days_digest_revision = t.revision THEN t.listed_distance ELSE ` + summedDistance + ` END`

// countedDays and summedDistance are what the listing gives of the days of
// trip t: read where its row keeps them (listed_days and listed_distance,
// written with its kept days), counted otherwise.
const (
	countedDays    = `(SELECT COUNT(*) FROM stages AS s WHERE s.trip_id = t.id AND NOT s.is_rest_day)`
	summedDistance = `(SELECT COALESCE(SUM(s.distance), 0.0) FROM stages AS s WHERE s.trip_id = t.id AND NOT s.is_rest_day)`
)

// listConditions are the listing's conditions beside its user's, each
// with one argument, in the order of the bits of a listing's filter
// (filterTitle, filterFrom, filterBy).
var listConditions = [...]string{`LOWER(t.title) LIKE ? ESCAPE '\'`, `t.start_date >= ?`, `t.end_date <= ?`}

const (
	filterTitle = 1 << iota
	filterFrom
	filterBy
	filters // how many combinations
)

// listFilter is the listing's WHERE clause for the conditions given (a
// set of filter bits). Each combination is a statement of its own: one
// statement for all, each condition disabled by an empty argument, had
// the engine test every disabled condition at every trip counted.
func listFilter(given int) string {
	where := "t.user_id = ?"
	for i, c := range listConditions {
		if given&(1<<i) != 0 {
			where += " AND " + c
		}
	}
	return where
}

// tripWithShare is what a digest reads its trip from: the trip (t) and its
// active share (sh), of which a trip has at most one (a partial unique
// index), so the share's join repeats no row.
const tripWithShare = " FROM trips AS t LEFT JOIN trip_shares AS sh ON sh.trip_id = t.id AND sh.deleted_at IS NULL"

// reads are the prepared statements of the hot reads.
type reads struct {
	trip  *storage.Stmt
	state *storage.Stmt
	// stored is the trip, its share and its days as its row keeps them;
	// digest joins its days instead, for a trip whose kept days are behind.
	stored *storage.Stmt
	digest *storage.Stmt
	// revision is all a cached digest costs: the trip's revision by key.
	revision *storage.Stmt
	// keptAt and keep are keepDigest's: they run before every write
	// commits, and were parsed again each time.
	keptAt *storage.Stmt
	keep   *storage.Stmt
	// page and count are the listing's, by the filters given.
	page  [filters]*storage.Stmt
	count [filters]*storage.Stmt
	// listingStamp is all a kept listing costs (keptlist.go); stampOwner
	// and stampUser move a stamp on, by trip and by user.
	listingStamp *storage.Stmt
	stampOwner   *storage.Stmt
	stampUser    *storage.Stmt
	// announces says stampOwner also sends a write's notices and answers
	// the owner (PostgreSQL).
	announces bool
	// dayOutcomes and saveDay are saveOutcome's, which runs for every
	// enrichment of every recut, once for the trip and once per day: bun's
	// text, new at each value, was parsed again each time (a sixth of a
	// recut's CPU).
	dayOutcomes *storage.Stmt
	saveDay     *storage.Stmt
	// saveDays writes every day of an outcome at once, on PostgreSQL
	// alone (nil on SQLite).
	saveDays *storage.Stmt
	// lockTrip and setStatus are the computations' (lockTrip,
	// transition): three reads and two writes of every job.
	lockTrip  *storage.Stmt
	setStatus *storage.Stmt
}

// stampAgain moves a listing stamp on that exists: both engines' upsert.
const stampAgain = " ON CONFLICT (user_id) DO UPDATE SET stamp = trip_listing_stamps.stamp + 1"

// stampOwner moves the listing stamp of a trip's owner on. SQLite reads an
// upsert's SELECT unambiguously only with a WHERE.
const stampOwner = "INSERT INTO trip_listing_stamps (user_id, stamp) SELECT user_id, 1 FROM trips WHERE id = ?" + stampAgain

func prepareReads(db *bun.DB) reads {
	r := reads{
		trip:  storage.Prepare(db, "SELECT "+tripColumns+" FROM trips WHERE id = ?"),
		state: storage.Prepare(db, "SELECT id, start_date, computation_status, version FROM trips WHERE id = ?"),
		stored: storage.Prepare(db, "SELECT "+qualified("t", tripColumns)+", sh.short_code, t.days_digest_revision, t.days_digest"+
			tripWithShare+" WHERE t.id = ?"),
		// One statement for the trip, its active share and its days: each
		// statement is a read transaction of its own on SQLite, and a round
		// trip on PostgreSQL.
		digest: storage.Prepare(db, "SELECT "+qualified("t", tripColumns)+", sh.short_code, "+
			qualified("s", dayColumns)+tripWithShare+
			" LEFT JOIN stages AS s ON s.trip_id = t.id WHERE t.id = ? ORDER BY s.position"),
		revision: storage.Prepare(db, "SELECT revision FROM trips WHERE id = ?"),
		keptAt:   storage.Prepare(db, "SELECT revision, days_digest_revision FROM trips WHERE id = ?"),
		keep: storage.Prepare(db, "UPDATE trips AS t SET days_digest = ?, days_digest_revision = ?, listed_days = "+countedDays+
			", listed_distance = "+summedDistance+" WHERE t.id = ? AND t.revision = ?"),
		listingStamp: storage.Prepare(db, "SELECT stamp FROM trip_listing_stamps WHERE user_id = ?"),
		stampOwner:   storage.Prepare(db, stampOwner),
		stampUser:    storage.Prepare(db, "INSERT INTO trip_listing_stamps (user_id, stamp) VALUES (?, 1)"+stampAgain),
		dayOutcomes:  storage.Prepare(db, "SELECT id, alerts, coverage FROM stages WHERE trip_id = ?"),
		lockTrip:     storage.Prepare(db, "SELECT generation, computation_status, completion_announced FROM trips WHERE id = ?"+forUpdate(db)),
		setStatus: storage.Prepare(db, "UPDATE trips SET computation_status = ?, completion_announced = ?, "+bumpKeeping+
			" WHERE id = ?"),
		// A day's data of another kind than the outcome's is kept: each
		// column is written only when its flag is given.
		saveDay: storage.Prepare(db, "UPDATE stages SET alerts = ?, coverage = ?, "+
			"weather = CASE WHEN ? THEN ? ELSE weather END, resupply = CASE WHEN ? THEN ? ELSE resupply END, "+
			"events = CASE WHEN ? THEN ? ELSE events END WHERE id = ?"),
	}
	if db.Dialect().Name() == dialect.PG {
		// The stamp's statement also announces the write (the trip's notice
		// and its owner's listing's: Store.SetNotices), one round trip for
		// the three, and answers the owner, whose stamp the writer forgets
		// at commit. No row: the trip is gone.
		r.announces = true
		r.stampOwner = storage.Prepare(db, "WITH s AS ("+stampOwner+" RETURNING user_id) SELECT s.user_id FROM s, "+
			"LATERAL (SELECT pg_notify('"+tripsChannel+"', ?), pg_notify('"+listingsChannel+"', s.user_id)) AS n")
		r.saveDays = storage.Prepare(db, "UPDATE stages AS s SET alerts = v.alerts, coverage = v.coverage, "+
			"weather = CASE WHEN ? THEN v.weather ELSE s.weather END, resupply = CASE WHEN ? THEN v.resupply ELSE s.resupply END, "+
			"events = CASE WHEN ? THEN v.events ELSE s.events END "+
			"FROM unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[]) AS v(id, alerts, coverage, weather, resupply, events) "+
			"WHERE s.id = v.id")
	}
	for given := range filters {
		r.page[given] = storage.Prepare(db, "SELECT "+summaryColumns+" FROM trips AS t WHERE "+listFilter(given)+
			" ORDER BY t.created_at DESC, t.id DESC LIMIT ? OFFSET ?")
		r.count[given] = storage.Prepare(db, "SELECT COUNT(*) FROM trips AS t WHERE "+listFilter(given))
	}
	return r
}

// qualified prefixes each of a list of columns with a table alias.
func qualified(alias, columns string) string {
	cs := strings.Split(columns, ",")
	for i, c := range cs {
		cs[i] = alias + "." + strings.TrimSpace(c)
	}
	return strings.Join(cs, ", ")
}

// tripTargets are the scan targets of tripColumns, and what to do once
// they are scanned.
func tripTargets(t *Trip) ([]any, func() error) {
	var created, updated storage.NullTime
	types, statuses := new([]byte), new([]byte)
	return []any{&t.ID, &t.UserID, &t.Title, &t.SourceURL, &t.SourceType, &t.StartDate, &t.EndDate,
			&t.FatigueFactor, &t.ElevationPenalty, &t.MaxDistancePerDay, &t.AverageSpeed, &t.DepartureHour,
			&t.EbikeMode, types, &t.Locale, &t.Status, statuses,
			&t.Version, &t.Generation, &created, &updated, &t.Revision, &t.Alerts, &t.Coverage, &t.OutOfZone},
		func() error {
			t.CreatedAt, t.UpdatedAt = created.Time, updated.Time
			if *types != nil {
				list, err := stringList(*types)
				if err != nil {
					return err
				}
				t.EnabledAccommodationTypes = list
			}
			if *statuses != nil {
				m, err := stringMap(*statuses)
				if err != nil {
					return err
				}
				t.ComputationStatus = m
			}
			return nil
		}
}

// stringList reads a JSON list of strings as the store writes it
// (["hotel","camp_site"]) without a decoder; any other spelling goes
// through encoding/json.
func stringList(b []byte) (TypeList, error) {
	out := TypeList{}
	rest, ok := bytes.CutPrefix(b, []byte{'['})
	if ok && string(rest) == "]" {
		return out, nil
	}
	for ok {
		var item string
		if item, rest, ok = plainString(rest); !ok {
			break
		}
		out = append(out, item)
		if string(rest) == "]" {
			return out, nil
		}
		rest, ok = bytes.CutPrefix(rest, []byte{','})
	}
	out = nil
	return out, json.Unmarshal(b, &out)
}

// stringMap reads a JSON object of strings as the store writes it
// ({"stages":"done"}) without a decoder; any other spelling goes through
// encoding/json.
func stringMap(b []byte) (StatusMap, error) {
	out := StatusMap{}
	rest, ok := bytes.CutPrefix(b, []byte{'{'})
	if ok && string(rest) == "}" {
		return out, nil
	}
	for ok {
		var k, v string
		if k, rest, ok = plainString(rest); !ok {
			break
		}
		if rest, ok = bytes.CutPrefix(rest, []byte{':'}); !ok {
			break
		}
		if v, rest, ok = plainString(rest); !ok {
			break
		}
		out[k] = v
		if string(rest) == "}" {
			return out, nil
		}
		rest, ok = bytes.CutPrefix(rest, []byte{','})
	}
	out = nil
	return out, json.Unmarshal(b, &out)
}

// plainString reads a quoted string without escapes or control
// characters at the start of b; false for anything else.
func plainString(b []byte) (string, []byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return "", b, false
	}
	for i := 1; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			if !utf8.Valid(b[1:i]) {
				return "", b, false
			}
			return string(b[1:i]), b[i+1:], true
		case c == '\\' || c < 0x20:
			return "", b, false
		}
	}
	return "", b, false
}

// scanTrip reads a row of tripColumns.
func scanTrip(row *sql.Row, t *Trip) error {
	targets, done := tripTargets(t)
	if err := row.Scan(targets...); err != nil {
		return err
	}
	return done()
}

// notFound is the answer for a trip deleted meanwhile (callers behind the
// owner guard) or a stale reference (the pipeline).
func notFound(err error) error {
	if storage.NoRows(err) {
		return registry.Fail(registry.KindNotFound, registry.NotFoundDetail)
	}
	return err
}

// Get loads trip id.
func (s *Store) Get(ctx context.Context, id string) (*Trip, error) {
	row, err := s.reads.trip.QueryRow(ctx, id)
	if err != nil {
		return nil, err
	}
	t := new(Trip)
	if err := scanTrip(row, t); err != nil {
		return nil, notFound(err)
	}
	return t, nil
}

// Brief loads what a trip's address answers: a Trip with only its id,
// start date, statuses and version set.
func (s *Store) Brief(ctx context.Context, id string) (*Trip, error) {
	row, err := s.reads.state.QueryRow(ctx, id)
	if err != nil {
		return nil, err
	}
	t := new(Trip)
	var statuses []byte
	if err := row.Scan(&t.ID, &t.StartDate, &statuses, &t.Version); err != nil {
		return nil, notFound(err)
	}
	if statuses != nil {
		m, err := stringMap(statuses)
		if err != nil {
			return nil, err
		}
		t.ComputationStatus = m
	}
	return t, nil
}

// countAlerts counts a day's stored alerts by severity without decoding
// them: each stored alert names its severity once, as "type".
func countAlerts(stored string) AlertCount {
	var n AlertCount
	n.Critical = strings.Count(stored, `"type":"critical"`)
	n.Warning = strings.Count(stored, `"type":"warning"`)
	n.Nudge = strings.Count(stored, `"type":"nudge"`)
	return n
}

// severities counts list as countAlerts counts a day's stored alerts.
func severities(list []AlertRecord) AlertCount {
	var n AlertCount
	for _, a := range list {
		switch a.Severity {
		case "critical", "warning", "nudge": // countAlerts counts no other
			n.add(a.Severity)
		}
	}
	return n
}

// dayTargets are the scan targets of dayColumns, each nullable: a trip
// without days reads as one row of NULLs in the digest's join.
type dayTargets struct {
	id, label, alerts         sql.NullString
	startLabel, endLabel      sql.NullString
	start, end, chosen        sql.RawBytes // parsed at once, before the next row
	position                  sql.NullInt64
	distance, ascent, descent sql.NullFloat64
	rest                      sql.NullBool
}

func (d *dayTargets) targets() []any {
	return []any{&d.id, &d.position, &d.distance, &d.ascent, &d.descent, &d.label, &d.rest, &d.alerts,
		&d.start, &d.end, &d.startLabel, &d.endLabel, &d.chosen}
}

// latLon reads a stored point ([lat,lon,ele], as appendPoint writes it)
// as the digest gives it, to 5 decimals; any other spelling goes through
// encoding/json.
func latLon(b []byte) (LatLon, error) {
	if rest, ok := bytes.CutPrefix(b, []byte{'['}); ok {
		if i := bytes.IndexByte(rest, ','); i > 0 {
			if j := bytes.IndexByte(rest[i+1:], ','); j > 0 {
				lat, errLat := strconv.ParseFloat(string(rest[:i]), 64)
				lon, errLon := strconv.ParseFloat(string(rest[i+1:i+1+j]), 64)
				if errLat == nil && errLon == nil {
					return LatLon{round5(lat), round5(lon)}, nil
				}
			}
		}
	}
	var p [3]float64
	if err := json.Unmarshal(b, &p); err != nil {
		return LatLon{}, err
	}
	return LatLon{round5(p[0]), round5(p[1])}, nil
}

// round5 rounds a coordinate to 5 decimals, about a metre: finer says
// nothing more of where a day starts or ends.
func round5(x float64) float64 { return math.Round(x*1e5) / 1e5 }

// day is the digest line of the scanned day.
func (d *dayTargets) day() (Day, error) {
	st := Stage{ID: d.id.String, Position: int(d.position.Int64), Distance: d.distance.Float64,
		Ascent: d.ascent.Float64, Descent: d.descent.Float64, IsRestDay: d.rest.Bool}
	if d.label.Valid {
		label := d.label.String
		st.Label = &label
	}
	day := dayOf(&st)
	if d.alerts.Valid {
		n := countAlerts(d.alerts.String)
		day.Alerts = &n
	}
	sleep, err := chosenOf(d.chosen)
	day.Sleep = sleep
	return day, err
}

// digest is a trip's digest as Digest answers it, at one revision.
type digest struct {
	trip *Trip
	days []DigestDay // nil until decoded, when read in their kept form
	code string
	kept []byte // days in their kept form (encodeDays), when read so
}

// lines are d's days, decoded from their kept form when read so: a digest
// read to be remembered, or for its owner, is not decoded.
func (d digest) lines() ([]DigestDay, error) {
	if d.days != nil || d.kept == nil {
		return d.days, nil
	}
	return decodeDays(d.kept)
}

// remembered is a digest Digest gives again, and when its revision was
// last found to be the stored one. Its trip and days are held in their
// kept forms (kepttrip.go, keptdays.go): bytes the collector does not look
// into. Held as a Trip and DigestDays they were a dozen pointers a day and
// some fifty a trip over thousands of trips, followed at every collection:
// a fifth of an MCP read's CPU over 100,000 trips. A read decodes them
// again, which costs less.
type remembered struct {
	trip     []byte
	alerts   AlertGroups // the trip's own, held as they are: most trips have none
	revision int64       // the trip's, and
	owner    string      // its owner's id: read without decoding the trip
	days     []byte
	code     string
	checked  time.Time
	heard    uint64 // the generation of the notices heard when checked; 0 when none were (Store.SetNotices)
}

// rememberedOf is d held, checked at now.
func rememberedOf(d digest, now time.Time) remembered {
	kept := d.kept
	if kept == nil {
		kept = encodeDays(d.days)
	}
	return remembered{trip: encodeTrip(d.trip), alerts: d.trip.Alerts, revision: d.trip.Revision,
		owner: d.trip.UserID, days: kept, code: d.code, checked: now}
}

// answer is what r gives a read, as Digest answers it: its trip and days
// decoded afresh, so no two callers share them.
func (r remembered) answer() (*Trip, []DigestDay, string, error) {
	t, err := decodeTrip(r.trip)
	if err != nil {
		return nil, nil, "", err
	}
	t.Alerts = r.alerts
	days, err := decodeDays(r.days)
	if err != nil {
		return nil, nil, "", err
	}
	return t, days, r.code, nil
}

// Digest loads trip id, the code of its active share ("" when it is not
// shared) and the digest lines of its days, the caller's own.
//
// A digest read outside a transaction is remembered at the trip's
// revision. Within checkEvery of the last check it is given as it is;
// after that, the stored revision is read (one read of a key in place of
// the join of the trip, its share and its days) and the digest given again
// while it is the same. A write made through this store forgets the trip's
// digest once it commits, so its writer, and every reader after it, reads
// the write; a write made elsewhere (another replica, a script) is read
// within checkEvery. On PostgreSQL, while the store hears the other
// replicas' notices (SetNotices), their writes are forgotten as their
// notices arrive, and a digest is given without a check for up to
// heardFor, within which a script's write is read. Inside a transaction
// the digest is read afresh and not remembered: it may hold writes that
// are then rolled back.
func (s *Store) Digest(ctx context.Context, id string) (*Trip, []DigestDay, string, error) {
	f, err := s.look(ctx, id)
	if err != nil {
		return nil, nil, "", err
	}
	return f.answer()
}

// found is a digest as look finds it: held (remembered), or read when read
// is set. Neither is decoded until answer.
type found struct {
	held remembered
	read *digest
}

// revision is the trip's revision the digest is of.
func (f found) revision() int64 {
	if f.read != nil {
		return f.read.trip.Revision
	}
	return f.held.revision
}

// owner is the trip's owner.
func (f found) owner() string {
	if f.read != nil {
		return f.read.trip.UserID
	}
	return f.held.owner
}

// answer is the digest decoded: the trip, its days and its share's code.
func (f found) answer() (*Trip, []DigestDay, string, error) {
	if f.read != nil {
		days, err := f.read.lines()
		return f.read.trip, days, f.read.code, err
	}
	return f.held.answer()
}

// look finds trip id's digest as Digest answers it: held, when what is
// remembered is current (within checkEvery, or at the stored revision), or
// read, and then remembered. What is held is not decoded here: the owner
// check reads its owner alone.
func (s *Store) look(ctx context.Context, id string) (found, error) {
	if _, inTx := storage.SQLTx(ctx); inTx {
		d, err := s.readDigest(ctx, id)
		return found{read: &d}, err
	}
	now := s.now()
	heard := s.notices.Heard() // before the epoch: a notice heard after it forgets what is read below
	s.mu.Lock()
	cached, ok := s.digests.Get(id)
	epoch := s.forgets.of(id) // a forget after this makes what is read below too old to keep
	s.mu.Unlock()
	if ok && (now.Sub(cached.checked) < s.checkEvery || s.stillHeard(cached.heard, cached.checked, heard, now)) {
		s.counts.digestHeld.Inc()
		return found{held: cached}, nil
	}
	if ok {
		row, err := s.reads.revision.QueryRow(ctx, id)
		if err != nil {
			return found{}, err
		}
		var revision int64
		if err := row.Scan(&revision); err != nil {
			return found{}, notFound(err)
		}
		if revision == cached.revision {
			cached.checked, cached.heard = now, heard
			s.keep(id, cached, epoch)
			s.counts.digestChecked.Inc()
			return found{held: cached}, nil
		}
	}
	d, err := s.readDigest(ctx, id)
	if err != nil {
		return found{}, err
	}
	s.counts.digestRead.Inc()
	r := rememberedOf(d, now)
	r.heard = heard
	s.keep(id, r, epoch)
	return found{read: &d}, nil
}

// stillHeard reports whether what was read or checked at `at`, while the
// notices' generation was `was`, may be given at now without reading the
// database: the same listening hears still (heard, storage.Notices.Heard),
// so a write since would have forgotten it, and heardFor has not passed.
func (s *Store) stillHeard(was uint64, at time.Time, heard uint64, now time.Time) bool {
	return heard != 0 && was == heard && now.Sub(at) < s.heardFor
}

// keep holds r, held as it was read, unless a write to a trip of its
// stripe was forgotten since epoch.
func (s *Store) keep(id string, r remembered, epoch epoch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.forgets.of(id) != epoch {
		return
	}
	// Two readers may race: the later revision is the one kept.
	if prev, ok := s.digests.Get(id); ok && prev.revision > r.revision {
		return
	}
	s.digests.Put(id, r)
}

// changed forgets the digest of trip id once the transaction carried by
// ctx commits (at once outside one): every write of the store calls it,
// beside moving the revision on.
//
// Before the transaction commits, it also keeps the trip's days on its row
// (keepDigest), once however many writes the transaction made, and moves
// its owner's listing stamp on (stamped). Outside a
// transaction a failure to keep them is left: the kept days are then behind
// the revision, and reads join the days until the next write.
func (s *Store) changed(ctx context.Context, id string) {
	_ = storage.BeforeCommit(ctx, "trips.digest:"+id, func(ctx context.Context) error { return s.keepDigest(ctx, id) })
	s.stamped(ctx, id) // and on PostgreSQL announces the write to the other replicas
	storage.AfterCommit(ctx, func() { s.forget(id) })
}

// forget drops the remembered digest of trip id: the next read reads the
// revision, at least.
func (s *Store) forget(id string) {
	s.mu.Lock()
	s.digests.Forget(id)
	s.forgets.forgot(id)
	s.mu.Unlock()
}

// changedAll forgets every digest once ctx's transaction commits: for the
// writes that name no single trip (an account's trips deleted at once).
func (s *Store) changedAll(ctx context.Context) {
	_ = storage.BeforeCommit(ctx, "trips.notice:"+everyTrip, func(ctx context.Context) error {
		return storage.Notify(ctx, s.db, tripsChannel, everyTrip)
	})
	storage.AfterCommit(ctx, s.forgetAll)
}

// forgetAll forgets every remembered digest, and every read in flight.
func (s *Store) forgetAll() {
	s.mu.Lock()
	s.digests.Clear()
	s.forgets.forgotAll()
	s.stamps.Clear()
	s.stampForgets.forgotAll()
	s.mu.Unlock()
}

// readDigest reads trip id, its active share and the digest lines of its
// days: from the trip's row alone when the days it keeps were written at
// its revision, by joining its days otherwise.
func (s *Store) readDigest(ctx context.Context, id string) (digest, error) {
	row, err := s.reads.stored.QueryRow(ctx, id)
	if err != nil {
		return digest{}, err
	}
	t := new(Trip)
	var (
		code   sql.NullString
		at     sql.NullInt64
		stored []byte
	)
	targets, done := tripTargets(t)
	if err := row.Scan(append(targets, &code, &at, &stored)...); err != nil {
		return digest{}, notFound(err)
	}
	// Days kept in a form this version does not write are read afresh.
	if at.Valid && at.Int64 == t.Revision && len(stored) > 0 && stored[0] == keptForm {
		if err := done(); err != nil {
			return digest{}, err
		}
		return digest{trip: t, code: code.String, kept: stored}, nil
	}
	return s.joinDigest(ctx, id)
}

// keepDigest writes the days of trip id, as joining them reads them, to
// the trip's row with the revision they were read at, unless the row keeps
// those of its revision already (the transaction's writes carried them
// along: bumpKeeping). The write names that revision, so days read before
// another write committed are not kept: the other write keeps its own.
func (s *Store) keepDigest(ctx context.Context, id string) error {
	var revision int64
	var kept sql.NullInt64
	row, err := s.reads.keptAt.QueryRow(ctx, id)
	if err == nil {
		err = row.Scan(&revision, &kept)
	}
	if storage.NoRows(err) {
		return nil // deleted
	}
	if err != nil {
		return err
	}
	if kept.Valid && kept.Int64 == revision {
		return nil
	}
	d, err := s.joinDigest(ctx, id)
	if err != nil && registry.AsError(err).Kind == registry.KindNotFound {
		return nil // deleted
	}
	if err != nil {
		return err
	}
	_, err = s.reads.keep.Exec(ctx, encodeDays(d.days), d.trip.Revision, id, d.trip.Revision)
	return err
}

// joinDigest reads trip id, its active share and the digest lines of its
// days in one statement.
func (s *Store) joinDigest(ctx context.Context, id string) (digest, error) {
	rows, err := s.reads.digest.Query(ctx, id)
	if err != nil {
		return digest{}, err
	}
	defer rows.Close()
	t := new(Trip)
	var (
		d             dayTargets
		code          sql.NullString
		days          []DigestDay
		found         bool
		first         time.Time // the start date, zero without one
		targets, done = tripTargets(t)
	)
	targets = append(targets, &code)
	dayAt := len(targets)
	targets = append(targets, d.targets()...)
	for rows.Next() {
		if err := rows.Scan(targets...); err != nil {
			return digest{}, err
		}
		if !found {
			// The trip's columns and its share repeat on every day's row:
			// decoded once, then only carried over.
			if err := done(); err != nil {
				return digest{}, err
			}
			found = true
			for i := range dayAt {
				targets[i] = new(sql.RawBytes)
			}
			if t.StartDate != nil {
				first, _ = time.Parse(dateLayout, *t.StartDate) // a stored date is valid; zero gives no dates
			}
		}
		if !d.id.Valid {
			continue // the trip has no day
		}
		day, err := d.day()
		if err != nil {
			return digest{}, err
		}
		dd := DigestDay{Day: day}
		if d.endLabel.Valid {
			l := d.endLabel.String
			dd.EndLabel = &l
		}
		if !first.IsZero() {
			dd.Date = first.AddDate(0, 0, len(days)).Format(dateLayout)
		}
		start, err := latLon(d.start)
		if err != nil {
			return digest{}, err
		}
		if dd.End, err = latLon(d.end); err != nil {
			return digest{}, err
		}
		// A day says where it starts only where that is news: not when it
		// starts where the one before ended.
		if n := len(days); n == 0 || days[n-1].End != start {
			dd.Start = &start
			if d.startLabel.Valid {
				l := d.startLabel.String
				dd.StartLabel = &l
			}
		}
		days = append(days, dd)
	}
	if err := rows.Err(); err != nil {
		return digest{}, err
	}
	if !found {
		return digest{}, notFound(sql.ErrNoRows)
	}
	return digest{trip: t, days: days, code: code.String}, nil
}

// Listed is a trip as the listing reads it: the trip's listed columns, and
// its riding days counted and summed.
type Listed struct {
	Trip          Trip // only the listed columns are set; the statuses only when one is unsettled
	StageCount    int
	TotalDistance float64 // km
}

// List returns the user's trips from offset on, at most per of them,
// newest first, and the total.
func (s *Store) List(ctx context.Context, userID string, f Filter, offset, per int) ([]Listed, int, error) {
	filter, given := []any{userID}, 0
	if f.Title != "" {
		filter, given = append(filter, "%"+strings.ToLower(escapeLike(f.Title))+"%"), given|filterTitle
	}
	if isDate(f.StartFrom) {
		filter, given = append(filter, f.StartFrom), given|filterFrom
	}
	if isDate(f.EndBy) {
		filter, given = append(filter, f.EndBy), given|filterBy
	}
	rows, err := s.reads.page[given].Query(ctx, append(filter, per, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var out []Listed
	for rows.Next() {
		var (
			l                Listed
			created, updated storage.NullTime
			statuses         string
		)
		t := &l.Trip
		if err := rows.Scan(&t.ID, &t.Title, &t.StartDate, &t.EndDate, &t.Status, &statuses,
			&created, &updated, &l.StageCount, &l.TotalDistance); err != nil {
			return nil, 0, err
		}
		t.CreatedAt, t.UpdatedAt = created.Time, updated.Time
		// The listing reads the statuses only for one that is unsettled: a
		// text without either word has none, and is not decoded.
		if strings.Contains(statuses, `"`+StatusPending+`"`) || strings.Contains(statuses, `"`+StatusRunning+`"`) {
			if err := t.ComputationStatus.Scan(statuses); err != nil {
				return nil, 0, err
			}
		}
		out = append(out, l)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	rows.Close()
	// A short page ends the listing: its total is known without counting.
	if len(out) > 0 && len(out) < per {
		return out, offset + len(out), nil
	}
	if offset == 0 && len(out) == 0 {
		return out, 0, nil
	}
	row, err := s.reads.count[given].QueryRow(ctx, filter...)
	if err != nil {
		return nil, 0, err
	}
	var total int
	return out, total, row.Scan(&total)
}
