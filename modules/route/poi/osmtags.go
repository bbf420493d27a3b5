package poi

import "strings"

// fromOSM reads an OpenStreetMap element's tags through get: ok when
// tourism is an accommodation type, with the element's name, that type and
// the kept tags.
func fromOSM(get func(key string) string) (name, category string, tags Tags, ok bool) {
	category = strings.TrimSpace(get("tourism"))
	if !IsAccommodationType(category) {
		return "", "", nil, false
	}
	tags = Tags{}
	put := func(key string, sources ...string) {
		for _, s := range sources {
			if v := strings.TrimSpace(get(s)); v != "" {
				tags[key] = v
				return
			}
		}
	}
	put(TagWebsite, "website", "contact:website", "url")
	put(TagDescription, "description")
	put(TagOpeningHours, "opening_hours")
	put(TagPhone, "phone", "contact:phone")
	put(TagStars, "stars")
	put(TagCapacity, "capacity")
	put(TagFee, "fee")
	put(TagCharge, "charge")
	put(TagBackpack, "backpack")
	put(TagTents, "tents")
	put(TagSeasonal, "seasonal")
	put(TagWikidata, "wikidata")
	if a := address(get); a != "" {
		tags[TagAddress] = a
	}
	return strings.TrimSpace(get("name")), category, tags, true
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
