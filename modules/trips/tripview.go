package trips

import (
	_ "embed" // the view's style and script
	"encoding/json"
	"strings"

	"cairn.dev/cairn/modules/route/words"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/views"
)

var (
	//go:embed tripview.css
	tripViewStyle string
	//go:embed tripview.js
	tripViewScript string
)

// TripViewURI names the trip's view.
const TripViewURI = "ui://trips/trip"

// TripView shows a trip beside the results of get_trip, create_trip,
// share_trip, the stage edits and get_stage, in a host speaking the MCP
// Apps extension: the days on the route, a colour each, the profile of
// what they climb, and per day its distance, climb, place to sleep and
// alerts in words; get_stage's day in full. It draws from the result the
// host hands over and reaches nothing else; its words are the catalogue's,
// in the trip's language.
var TripView = &registry.View{
	URI:         TripViewURI,
	Name:        "trip",
	Description: "The trip's days on the route, a colour per day, the elevation profile, and per day its distance, climb, place to sleep and alerts.",
	HTML:        tripViewDocument(),
	Border:      true,
}

// tripViewDocument assembles the view, the words of both languages inline.
func tripViewDocument() []byte {
	all := map[string]map[string]string{}
	for _, lang := range words.Languages() {
		m := map[string]string{}
		for _, prefix := range []string{"page.", "view."} {
			for _, k := range words.Keys() {
				if name, ok := strings.CutPrefix(k, prefix); ok && name != "footer" && !strings.HasPrefix(name, "download") {
					m[name], _ = words.Template(lang, k)
				}
			}
		}
		all[lang] = m
	}
	w, _ := json.Marshal(all)
	body := `<header><h1 id="title"></h1><div id="summary" class="muted"></div><div id="trip-alerts" class="muted"></div></header>` +
		`<div id="said" role="status"></div>` +
		`<section id="drawing" hidden><svg id="map" role="img" viewBox="0 0 600 300"></svg>` +
		`<figure><svg id="profile" role="img" viewBox="0 0 600 90"></svg><figcaption id="profile-caption"></figcaption></figure></section>` +
		`<ol id="days"></ol><section id="stage" hidden></section>`
	return views.Document("en", "Trip", tripViewStyle, body, "var WORDS = "+string(w)+";\n"+tripViewScript)
}
