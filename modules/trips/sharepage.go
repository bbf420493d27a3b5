package trips

import (
	"bytes"
	"cairn.dev/cairn/modules/route/words"
	"context"
	"crypto/sha256"
	_ "embed" // the page's template and style
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"cairn.dev/cairn/modules/route/geo"
	"cairn.dev/cairn/registry"
)

// PublicTrip is a shared trip: the TripDetail as JSON, or, for a person's
// browser, the page that shows it.
type PublicTrip struct {
	Detail
	page registry.Page
	tag  string
	raw  []byte // the JSON, kept (sharecache.go)
	lang string // the JSON's language, the trip's
}

// ContentLanguage implements registry.Localized.
func (p PublicTrip) ContentLanguage() string {
	if p.lang != "" {
		return p.lang
	}
	return p.Detail.ContentLanguage()
}

// AsPage implements registry.Negotiated: the page, when the call wanted one.
func (p PublicTrip) AsPage() registry.Page { return p.page }

// EntityTag implements registry.Tagged.
func (p PublicTrip) EntityTag() string { return p.tag }

// EncodedJSON implements registry.Encoded: the kept JSON, sent without
// being scanned again.
func (p PublicTrip) EncodedJSON() []byte { return p.raw }

// MarshalJSON writes the kept JSON.
func (p PublicTrip) MarshalJSON() ([]byte, error) {
	if p.raw != nil {
		return p.raw, nil
	}
	return json.Marshal(p.Detail)
}

func (t *Trips) publicTrip(ctx context.Context, c *registry.Call, _ *NoInput) (PublicTrip, error) {
	tr, err := t.sharedRow(ctx, c)
	if err != nil {
		return PublicTrip{}, err
	}
	code := c.Var("code")
	if c.WantsPage {
		// The page holds the code (its file links) and is kept under it.
		key := publicKey("page:"+code, tr.ID, tr.Revision)
		return PublicTrip{tag: publicTag("page", tr.Revision), page: keptPage{get: func() ([]byte, error) {
			return answer(ctx, t.kept, key, func(ctx context.Context) ([]byte, int, error) {
				stages, err := t.publicDays(ctx, tr)
				if err != nil {
					return nil, 0, err
				}
				var b bytes.Buffer
				if err := renderPageTo(&b, t.sharePageView(tr, stages, code)); err != nil {
					return nil, 0, err
				}
				return b.Bytes(), b.Len(), nil
			})
		}}}, nil
	}
	// The detail says whether the trip is locked, which turns with the
	// calendar day: the day is part of what is kept and of the tag.
	kind := "json-" + c.Now.UTC().Format("20060102")
	raw, err := answer(ctx, t.kept, publicKey(kind, tr.ID, tr.Revision), func(ctx context.Context) ([]byte, int, error) {
		d, err := t.Detail(ctx, tr.ID, c.Now)
		if err != nil {
			return nil, 0, err
		}
		b, err := registry.Encode(d)
		return b, len(b), err
	})
	if err != nil {
		return PublicTrip{}, err
	}
	return PublicTrip{tag: publicTag(kind, tr.Revision), raw: raw, lang: tr.Locale}, nil
}

// keptPage is a page read from the public answers when it is written: a
// 304 never makes it.
type keptPage struct{ get func() ([]byte, error) }

// WritePage implements registry.Page.
func (p keptPage) WritePage(w io.Writer) error {
	b, err := p.get()
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// ContentSecurityPolicy implements registry.PagePolicy.
func (keptPage) ContentSecurityPolicy() string { return sharePagePolicy }

//go:embed sharepage.html
var sharePageText string

//go:embed sharepage.css
var sharePageCSS string

var sharePageTemplate = template.Must(template.New("share").Parse(sharePageText))

// sharePagePolicy lets the page load nothing at all and run no script: its
// one style sheet is inline and allowed by its hash, its drawings are
// inline SVG.
var sharePagePolicy = func() string {
	sum := sha256.Sum256([]byte(sharePageCSS))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; " +
		"img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
}()

// pageView is what the template shows. It holds no id, no source address
// and nothing of the owner: only what a visitor needs to follow the trip.
type pageView struct {
	CSS      template.CSS
	Missing  bool // the 404 (or 400) page for a visitor
	Reason   string
	Title    string
	Dates    string
	Lang     string
	W        map[string]string // the page's words, in Lang
	Summary  string
	Caption  string // the profile's
	Days     []pageDay
	Map      svgMap
	Profile  svgProfile
	GPX, FIT string
}

type pageDay struct {
	Number         int
	Date           string
	Name           string
	Ends           string // where it goes, from the gazetteer's names
	Rest           bool
	Distance       string
	Climb, Descent string
	Sleep          string
	Alerts         []string
	Analysed       bool
	GPX, FIT       string
	Swatch         int // the day's colour, as on the map
}

// svgMap is the route drawn in a plane: one polyline per day.
type svgMap struct {
	W, H  int
	Lines []svgLine
	Marks []svgMark
}

type svgLine struct {
	Points string
	Color  string
	Day    int
}

type svgMark struct {
	X, Y  string
	Label string
}

// svgProfile is the elevation along the route.
type svgProfile struct {
	W, H          int
	Area, Line    string
	Splits        []svgSplit
	Top, Bottom   string // elevation labels, m
	TopY, BottomY string
	Length        string // km, the days' distances summed
	Plotted       bool
}

type svgSplit struct {
	X     string
	Label string
}

// dayColors alternate along the route so that each day reads apart.
var dayColors = []string{"#2d6a4f", "#bc4749", "#1d4e89", "#b5651d"}

// sharePageView is what the page of trip tr, shared at code, shows.
func (t *Trips) sharePageView(tr *Trip, stages []Stage, code string) pageView {
	lang := words.English
	if words.Supported(tr.Locale) {
		lang = tr.Locale
	}
	v := pageView{CSS: template.CSS(sharePageCSS), Lang: lang, W: words.Page(lang, "page.")}
	v.Title, v.Dates = v.W["untitled"], v.W["no_dates"]
	if tr.Title != nil && strings.TrimSpace(*tr.Title) != "" {
		v.Title = *tr.Title
	}
	start, dated := parseDay(tr.StartDate)
	if dated {
		v.Dates = longDate(lang, start)
		if end, ok := parseDay(tr.EndDate); ok {
			v.Dates += " – " + longDate(lang, end)
		} else if len(stages) > 0 {
			v.Dates += " – " + longDate(lang, start.AddDate(0, 0, len(stages)-1))
		}
	}
	base := SharePath(code)
	if len(stages) > 0 {
		v.GPX, v.FIT = t.absolute(base+".gpx"), t.absolute(base+".fit")
	}
	total, climb := 0.0, 0.0
	for i := range stages {
		s := &stages[i]
		d := pageDay{Number: s.Position + 1, Name: stageName(s, lang), Rest: s.IsRestDay,
			Distance: strconv.FormatFloat(round1(s.Distance), 'f', 1, 64),
			Climb:    strconv.Itoa(int(s.Ascent + 0.5)), Descent: strconv.Itoa(int(s.Descent + 0.5)),
			GPX:    t.absolute(fmt.Sprintf("%s/stages/%d.gpx", base, i)),
			FIT:    t.absolute(fmt.Sprintf("%s/stages/%d.fit", base, i)),
			Swatch: i % len(dayColors)}
		if dated {
			d.Date = shortDate(lang, start.AddDate(0, 0, s.Position))
		}
		if s.IsRestDay {
			d.Name = words.Render(lang, "page.rest_day", words.Args{"day": s.Position + 1})
		}
		if s.StartLabel != nil && s.EndLabel != nil && !s.IsRestDay && (s.Label != nil && strings.TrimSpace(*s.Label) != "") {
			d.Ends = words.Render(lang, "page.ends", words.Args{"from": *s.StartLabel, "to": *s.EndLabel})
		}
		if s.Selected != nil {
			d.Sleep = s.Selected.Name
		}
		if s.Alerts != nil {
			d.Analysed = true
			for _, a := range renderAlerts(s.Alerts, lang) {
				d.Alerts = append(d.Alerts, a.Message)
			}
		}
		if w := s.Weather.described(lang); w != nil {
			d.Alerts = append(d.Alerts, words.Render(lang, "page.weather_values",
				words.Args{"description": w.Description, "min": w.TempMin, "max": w.TempMax, "wind": w.WindSpeed}))
		}
		if !s.IsRestDay {
			total += s.Distance
			climb += s.Ascent
		}
		v.Days = append(v.Days, d)
	}
	if len(stages) > 0 {
		v.Summary = words.Render(lang, "page.summary", words.Args{"days": len(stages),
			"km": decimal(lang, round1(total)), "climb": int(climb + 0.5)})
	}
	v.Map = drawMap(stages)
	v.Profile = drawProfile(stages)
	// The days' own distances, as in the summary: the drawn line is the
	// simplified one, a little shorter.
	v.Profile.Length = strconv.FormatFloat(round1(total), 'f', 1, 64)
	v.Caption = words.Render(lang, "page.profile_caption", words.Args{"km": decimal(lang, round1(total))})
	return v
}

// refusalPage is what a visitor opening a link that leads nowhere reads:
// an unknown or revoked code, or an address that is no share code at all.
func refusalPage(e *registry.Error) registry.Page {
	v := pageView{CSS: template.CSS(sharePageCSS), Missing: true, Lang: "en", W: words.Page(words.English, "page."), Title: "This trip is not shared here",
		Reason: "The link may be mistyped, or the person who shared the trip has stopped sharing it. Ask them for a new link."}
	switch e.Kind {
	case registry.KindNotFound:
	case registry.KindMalformed:
		v.Reason = "This address is not a share link: a share link ends with a short code of letters, digits, - and _. Check the link you were sent."
	default:
		v.Title, v.Reason = "This trip cannot be shown right now", "Try again in a moment."
	}
	pg, err := renderPage(v)
	if err != nil {
		return nil // the face writes the problem instead
	}
	return pg
}

func renderPage(v pageView) (registry.Page, error) {
	var b bytes.Buffer
	if err := renderPageTo(&b, v); err != nil {
		return nil, err
	}
	return registry.StaticPage{HTML: b.Bytes(), Policy: sharePagePolicy}, nil
}

func renderPageTo(w io.Writer, v pageView) error { return sharePageTemplate.Execute(w, v) }

func parseDay(s *string) (time.Time, bool) {
	if s == nil {
		return time.Time{}, false
	}
	d, err := time.Parse(dateLayout, *s)
	return d, err == nil
}

func longDate(lang string, d time.Time) string {
	if s := words.LongDate(lang, d.Year(), int(d.Month()), d.Day(), int(d.Weekday())); s != "" {
		return s
	}
	return d.Format("Monday 2 January 2006")
}

func shortDate(lang string, d time.Time) string {
	if s := words.ShortDate(lang, int(d.Month()), d.Day(), int(d.Weekday())); s != "" {
		return s
	}
	return d.Format("Mon 2 Jan")
}

// decimal writes a number with one decimal in the language's way.
func decimal(lang string, x float64) string {
	s := strconv.FormatFloat(x, 'f', 1, 64)
	if lang == words.French {
		s = strings.Replace(s, ".", ",", 1)
	}
	return s
}

// maxDrawnPoints bounds the points drawn per day, on the map and on the
// profile: enough for the eye, and the page stays small on a long trip.
const maxDrawnPoints = 300

// thin keeps at most n points of a line, evenly spread, the last included.
func thin(ps []geo.Point, n int) []geo.Point {
	if len(ps) <= n {
		return ps
	}
	out := make([]geo.Point, 0, n+1)
	step := float64(len(ps)-1) / float64(n-1)
	for i := range n {
		out = append(out, ps[int(math.Round(float64(i)*step))])
	}
	return out
}

func num(x float64) string { return strconv.FormatFloat(x, 'f', 1, 64) }

// drawMap projects the days onto a plane (equirectangular, scaled at the
// route's mean latitude: a day's worth of riding is flat enough) and fits
// them in the drawing.
func drawMap(stages []Stage) svgMap {
	const w, pad = 800.0, 24.0
	m := svgMap{W: int(w), H: 160}
	var all []geo.Point
	for _, s := range stages {
		all = append(all, s.Geometry...)
	}
	if len(all) == 0 {
		return m
	}
	minLat, maxLat, minLon, maxLon := all[0].Lat, all[0].Lat, all[0].Lon, all[0].Lon
	for _, p := range all {
		minLat, maxLat = math.Min(minLat, p.Lat), math.Max(maxLat, p.Lat)
		minLon, maxLon = math.Min(minLon, p.Lon), math.Max(maxLon, p.Lon)
	}
	k := math.Cos((minLat + maxLat) / 2 * math.Pi / 180)
	dx, dy := (maxLon-minLon)*k, maxLat-minLat
	scale := 1.0
	switch {
	case dx == 0 && dy == 0:
	case dy == 0 || dx/dy > w/500:
		scale = (w - 2*pad) / dx
	default:
		scale = (500 - 2*pad) / dy
	}
	h := math.Max(dy*scale+2*pad, 160)
	m.H = int(math.Ceil(h))
	offX := (w - dx*scale) / 2
	offY := (h - dy*scale) / 2
	at := func(p geo.Point) (string, string) {
		return num(offX + (p.Lon-minLon)*k*scale), num(offY + (maxLat-p.Lat)*scale)
	}
	for i, s := range stages {
		if len(s.Geometry) == 0 {
			continue
		}
		var b strings.Builder
		for j, p := range thin(s.Geometry, maxDrawnPoints) {
			if j > 0 {
				b.WriteByte(' ')
			}
			x, y := at(p)
			b.WriteString(x + "," + y)
		}
		m.Lines = append(m.Lines, svgLine{Points: b.String(), Color: dayColors[i%len(dayColors)], Day: s.Position + 1})
		if !s.IsRestDay {
			x, y := at(s.Geometry[len(s.Geometry)-1])
			m.Marks = append(m.Marks, svgMark{X: x, Y: y, Label: strconv.Itoa(s.Position + 1)})
		}
	}
	return m
}

// drawProfile plots elevation against distance along the route, with a
// mark where each day starts.
func drawProfile(stages []Stage) svgProfile {
	const w, h, left, bottom = 800.0, 220.0, 56.0, 24.0
	pr := svgProfile{W: int(w), H: int(h)}
	type sample struct{ d, ele float64 }
	var samples []sample
	var starts []float64
	dist := 0.0
	var prev *geo.Point
	for _, s := range stages {
		if s.IsRestDay || len(s.Geometry) == 0 {
			continue
		}
		starts = append(starts, dist)
		for _, p := range thin(s.Geometry, maxDrawnPoints) {
			if prev != nil {
				dist += geo.Haversine(*prev, p)
			}
			samples = append(samples, sample{dist, p.Ele})
			q := p
			prev = &q
		}
	}
	if len(samples) < 2 || dist == 0 {
		return pr
	}
	lo, hi := samples[0].ele, samples[0].ele
	for _, s := range samples {
		lo, hi = math.Min(lo, s.ele), math.Max(hi, s.ele)
	}
	if hi-lo < 50 { // a flat route is drawn flat, not as noise blown up
		mid := (hi + lo) / 2
		floor := mid - 25
		if lo >= 0 && floor < 0 {
			floor = 0 // no sea below a route that never goes under it
		}
		lo, hi = floor, floor+50
	}
	plotW, plotH := w-left-8, h-bottom-12
	x := func(d float64) float64 { return left + d/dist*plotW }
	y := func(e float64) float64 { return 12 + (hi-e)/(hi-lo)*plotH }
	var line strings.Builder
	for i, s := range samples {
		if i > 0 {
			line.WriteByte(' ')
		}
		line.WriteString(num(x(s.d)) + "," + num(y(s.ele)))
	}
	pr.Line = line.String()
	pr.Area = num(left) + "," + num(12+plotH) + " " + pr.Line + " " + num(x(dist)) + "," + num(12+plotH)
	pr.Top, pr.Bottom = strconv.Itoa(int(math.Round(hi))), strconv.Itoa(int(math.Round(lo)))
	pr.TopY, pr.BottomY = num(y(hi)+4), num(y(lo))
	n := 0
	for _, s := range stages {
		if s.IsRestDay || len(s.Geometry) == 0 {
			continue
		}
		pr.Splits = append(pr.Splits, svgSplit{X: num(x(starts[n])), Label: strconv.Itoa(s.Position + 1)})
		n++
	}
	pr.Plotted = true
	return pr
}
