package poi

import (
	"strings"

	"cairn.dev/cairn/modules/route/text"
)

// fromOSM reads an OpenStreetMap element's tags through get: ok when the
// element is a place the rules use (Classify), with the element's name,
// its category and the kept tags. It is where OpenStreetMap text enters, from an extract or
// from Overpass alike, so every value is cleaned and cut here by the rule
// of package text: the name to text.MaxName, the description to
// text.MaxDescription, the address to text.MaxAddress, the website to
// text.MaxURL (and kept only when it is a web link, see webLink), any other
// tag to text.MaxValue. An empty value is not kept.
func fromOSM(get func(key string) string) (name, category string, tags Tags, ok bool) {
	category, ok = Classify(get)
	if !ok {
		return "", "", nil, false
	}
	tags = Tags{}
	put := func(key string, limit int, sources ...string) {
		for _, s := range sources {
			if v := text.Clean(get(s), limit); v != "" {
				tags[key] = v
				return
			}
		}
	}
	put(TagWebsite, text.MaxURL, "website", "contact:website", "url")
	if !webLink(tags[TagWebsite]) {
		delete(tags, TagWebsite)
	}
	put(TagDescription, text.MaxDescription, "description")
	put(TagOpeningHours, text.MaxValue, "opening_hours")
	put(TagPhone, text.MaxValue, "phone", "contact:phone")
	put(TagStars, text.MaxValue, "stars")
	put(TagCapacity, text.MaxValue, "capacity")
	put(TagFee, text.MaxValue, "fee")
	put(TagCharge, text.MaxValue, "charge")
	put(TagBackpack, text.MaxValue, "backpack")
	put(TagTents, text.MaxValue, "tents")
	put(TagSeasonal, text.MaxValue, "seasonal")
	put(TagWikidata, text.MaxValue, "wikidata")
	put(TagWikipedia, text.MaxValue, "wikipedia")
	put(TagRepair, text.MaxValue, "service:bicycle:repair")
	put(TagDrinkingWater, text.MaxValue, "drinking_water")
	put(TagBicycle, text.MaxValue, "bicycle")
	if a := text.Clean(address(get), text.MaxAddress); a != "" {
		tags[TagAddress] = a
	}
	return text.Clean(get("name"), text.MaxName), category, tags, true
}

// webLink reports whether a cleaned website value may be handed on as a
// link: no space (a URL has none; a tab or line break that a browser would
// drop was made one by the cleaning) and a scheme, if any, of http or
// https. Anything else (javascript:, data:, file:, …) is no website, and a
// client showing it as a link would run it.
func webLink(v string) bool {
	if v == "" || strings.Contains(v, " ") {
		return false
	}
	scheme, _, found := strings.Cut(v, ":")
	if !found || !isScheme(scheme) {
		return true // "www.hotel.example": no scheme, a browser reads it as a path
	}
	scheme = strings.ToLower(scheme)
	return scheme == "http" || scheme == "https"
}

// isScheme reports whether s is a URI scheme by RFC 3986's grammar: a
// letter, then letters, digits, "+", "-" or ".".
func isScheme(s string) bool {
	for i, c := range []byte(s) {
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	return s != ""
}

// address composes "12 Rue Haute, 05100 Briançon" from the addr:* keys, or
// takes addr:full.
func address(get func(string) string) string {
	if full := strings.TrimSpace(get("addr:full")); full != "" {
		return full
	}
	join := func(sep string, parts ...string) string {
		var kept []string
		for _, p := range parts {
			if p = strings.TrimSpace(p); p != "" {
				kept = append(kept, p)
			}
		}
		return strings.Join(kept, sep)
	}
	street := join(" ", get("addr:housenumber"), get("addr:street"))
	if street == "" {
		street = strings.TrimSpace(get("addr:place"))
	}
	return join(", ", street, join(" ", get("addr:postcode"), get("addr:city")))
}
