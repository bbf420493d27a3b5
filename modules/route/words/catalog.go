package words

// catalog is every text, by key, then language. Placeholders: words.go.
var catalog = map[string]map[string]string{
	// Alerts (pipeline.md §8), one key per code and variant.
	"alert.continuity_gap": {
		English: "Gap of {metres:0} m between the end of day {from} and the start of day {to}.",
		French:  "Écart de {metres:0} m entre la fin du jour {from} et le début du jour {to}.",
	},
	"alert.elevation_gain": {
		English: "Big climb: {ascent:0} m of ascent.",
		French:  "Grosse montée : {ascent:0} m de dénivelé positif.",
	},
	"alert.steep_gradient": {
		English: "Steep climb: {km:1} km at {grade:1} % on average.",
		French:  "Montée raide : {km:1} km à {grade:1} % de moyenne.",
	},
	"alert.ebike_range_exceeded": {
		English: "{km:0} km with {ascent:0} m of climbing: an e-bike battery lasts about {range:0} km.",
		French:  "{km:0} km avec {ascent:0} m de montée : une batterie de vélo électrique tient environ {range:0} km.",
	},
	"alert.sunset_arrival_after_twilight": {
		English: "Arrival about {arrival}, after dusk at {dusk} (local time).",
		French:  "Arrivée vers {arrival}, après la tombée de la nuit à {dusk} (heure locale).",
	},
	"alert.rest_day_suggested": {
		English: "{days} days of riding in a row: consider a rest day after day {day}.",
		French:  "{days} jours de vélo d'affilée : pensez à un jour de repos après le jour {day}.",
	},
	"alert.surface_rough": {
		English: "{km:1} km on rough surfaces ({surfaces}).",
		French:  "{km:1} km sur des revêtements difficiles ({surfaces}).",
	},
	"alert.traffic_main_road": {
		English: "{count} stretch(es) of main road without cycle lane, {km:1} km in all.",
		French:  "{count} tronçon(s) de route principale sans aménagement cyclable, {km:1} km en tout.",
	},
	"alert.traffic_secondary_road_fast": {
		English: "{count} stretch(es) of secondary road faster than 50 km/h without cycle lane, {km:1} km in all.",
		French:  "{count} tronçon(s) de route secondaire à plus de 50 km/h sans aménagement cyclable, {km:1} km en tout.",
	},
	"alert.traffic_secondary_road_slow": {
		English: "{count} stretch(es) of secondary road (50 km/h or less, or unsigned) without cycle lane, {km:1} km in all.",
		French:  "{count} tronçon(s) de route secondaire (50 km/h ou moins, ou non signalée) sans aménagement cyclable, {km:1} km en tout.",
	},
	"alert.calendar_public_holiday": {
		English: "{date} is a public holiday ({country}: {name}): shops and services may be closed.",
		French:  "Le {date} est férié ({country} : {name}) : commerces et services peuvent être fermés.",
	},
	"alert.calendar_sunday": {
		English: "{date} is a Sunday: many shops are closed.",
		French:  "Le {date} est un dimanche : beaucoup de commerces sont fermés.",
	},
	"alert.wind_headwind": {
		English: "Headwind of 25 km/h or more forecast on {count} of the {total} days with a forecast.",
		French:  "Vent de face de 25 km/h ou plus prévu {count} jours sur les {total} jours avec prévision.",
	},
	"alert.comfort_poor_conditions": {
		English: "Poor riding conditions forecast on {count} day(s); the worst is day {day} (comfort {comfort} out of 100).",
		French:  "Mauvaises conditions prévues sur {count} jour(s) ; le pire est le jour {day} (confort {comfort} sur 100).",
	},
	"alert.bike_shop_none_nearby": {
		English: "No bike repair shop within 2 km of mid-day.",
		French:  "Aucun réparateur de vélos à moins de 2 km de la mi-étape.",
	},
	"alert.resupply_none_on_stage": {
		English: "Nowhere to buy food within 2 km of the route over {km:0} km; carry enough.",
		French:  "Aucun endroit où acheter à manger à moins de 2 km de l'itinéraire sur {km:0} km ; prévoyez de quoi tenir.",
	},
	"alert.resupply_closed_at_passage": {
		English: "Every one of the {count} places to buy food on the way is closed when you pass.",
		French:  "Les {count} endroits où acheter à manger sur le parcours sont tous fermés à votre passage.",
	},
	"alert.accommodation_seasonal_closure": {
		English: "Every place to sleep found may be closed for the season on {date}.",
		French:  "Tous les hébergements trouvés risquent d'être fermés pour la saison le {date}.",
	},
	"alert.water_point_gap": {
		English: "{km:0} km without drinking water, from km {from:0} to km {to:0}.",
		French:  "{km:0} km sans eau potable, du km {from:0} au km {to:0}.",
	},
	"alert.cultural_poi_suggestion": {
		English: "{name} ({kind}), {metres:0} m from the route.",
		French:  "{name} ({kind}), à {metres:0} m de l'itinéraire.",
	},
	"alert.railway_station_none_nearby": {
		English: "No railway station within 10 km of the start or the end, should you need to leave the route.",
		French:  "Aucune gare à moins de 10 km du départ ou de l'arrivée, s'il fallait quitter l'itinéraire.",
	},
	"alert.health_service_none_nearby": {
		English: "No pharmacy, hospital or clinic within 15 km of mid-day.",
		French:  "Aucune pharmacie, aucun hôpital ni clinique à moins de 15 km de la mi-étape.",
	},
	"alert.border_crossing": {
		English: "Border crossing ({from} → {to}); carry your papers.",
		French:  "Passage de frontière ({from} → {to}) ; prenez vos papiers.",
	},
	"alert.ferry_crossing": {
		English: "The route takes a ferry ({name}); check its timetable.",
		French:  "L'itinéraire prend un bac ({name}) ; vérifiez ses horaires.",
	},
	"alert.ferry_crossing.unnamed": {
		English: "The route takes a ferry; check its timetable.",
		French:  "L'itinéraire prend un bac ; vérifiez ses horaires.",
	},
	"alert.ford_crossing_wet": {
		English: "{count} ford(s) on the route, with a {rain:0} % chance of rain: the water may be high.",
		French:  "{count} gué(s) sur l'itinéraire, avec {rain:0} % de risque de pluie : l'eau peut être haute.",
	},
	"alert.ford_crossing_dry": {
		English: "{count} ford(s) on the route; with {rain:0} % chance of rain the water should be low.",
		French:  "{count} gué(s) sur l'itinéraire ; avec {rain:0} % de risque de pluie, l'eau devrait être basse.",
	},
	"alert.ford_crossing_dry.unknown": {
		English: "{count} ford(s) on the route; no forecast to judge the water level.",
		French:  "{count} gué(s) sur l'itinéraire ; pas de prévision pour juger du niveau de l'eau.",
	},

	// Wall-clock times that fall on another day than the stage's.
	"clock.next_day":    {English: "{time} the next day", French: "{time} le lendemain"},
	"clock.day_before":  {English: "{time} the day before", French: "{time} la veille"},
	"clock.days_later":  {English: "{time}, {days} days later", French: "{time}, {days} jours plus tard"},
	"clock.days_before": {English: "{time}, {days} days before", French: "{time}, {days} jours avant"},

	// Action labels.
	"action.show_gap":         {English: "Show the gap", French: "Voir l'écart"},
	"action.split_day":        {English: "Split this day at half distance", French: "Couper ce jour à mi-distance"},
	"action.show_climb":       {English: "Show the climb", French: "Voir la montée"},
	"action.nearest_charger":  {English: "Go to the nearest charger", French: "Aller à la borne de recharge la plus proche"},
	"action.shorten_day":      {English: "Shorten this day to {km:0} km", French: "Raccourcir ce jour à {km:0} km"},
	"action.leave_at":         {English: "Leave at {time}", French: "Partir à {time}"},
	"action.add_rest_day":     {English: "Add a rest day after day {day}", French: "Ajouter un jour de repos après le jour {day}"},
	"action.show_stretches":   {English: "Show the stretches", French: "Voir les tronçons"},
	"action.nearest_shop":     {English: "Go to the nearest bike shop", French: "Aller au vélociste le plus proche"},
	"action.nearest_water":    {English: "Go to the nearest water point", French: "Aller au point d'eau le plus proche"},
	"action.nearest_station":  {English: "Go to the nearest station", French: "Aller à la gare la plus proche"},
	"action.nearest_health":   {English: "Go to the nearest pharmacy or hospital", French: "Aller à la pharmacie ou à l'hôpital le plus proche"},
	"action.dismiss":          {English: "Dismiss", French: "Ignorer"},
	"action.show_border":      {English: "Show the border", French: "Voir la frontière"},
	"action.show_ferry":       {English: "Show the ferry", French: "Voir le bac"},
	"action.show_ford":        {English: "Show the ford", French: "Voir le gué"},
	"action.go_there":         {English: "Go there", French: "Y aller"},
	"action.show_food":        {English: "Show the nearest food", French: "Voir le ravitaillement le plus proche"},
	"action.show_the_day_end": {English: "Show the end of the day", French: "Voir la fin de l'étape"},

	// Weather.
	"weather.clear":         {English: "Clear sky", French: "Ciel dégagé"},
	"weather.partly_cloudy": {English: "Partly cloudy", French: "Partiellement nuageux"},
	"weather.cloudy":        {English: "Cloudy", French: "Nuageux"},
	"weather.fog":           {English: "Fog", French: "Brouillard"},
	"weather.drizzle":       {English: "Drizzle", French: "Bruine"},
	"weather.rain":          {English: "Rain", French: "Pluie"},
	"weather.snow":          {English: "Snow", French: "Neige"},
	"weather.showers":       {English: "Showers", French: "Averses"},
	"weather.thunderstorm":  {English: "Thunderstorm", French: "Orage"},

	// Why a computation could not look (coverage), and the legend.
	"coverage.out_of_zone":     {English: "no map data there: the route leaves the area this server holds", French: "pas de données cartographiques : l'itinéraire sort de la zone dont dispose ce serveur"},
	"coverage.no_map_data":     {English: "no map data on this server: its operator imports an OpenStreetMap extract (cairn pois import)", French: "aucune donnée cartographique sur ce serveur : son exploitant importe un extrait OpenStreetMap (cairn pois import)"},
	"coverage.not_configured":  {English: "no provider is configured on this server", French: "aucun fournisseur n'est configuré sur ce serveur"},
	"coverage.no_date":         {English: "needs a start date: nothing is claimed without one", French: "nécessite une date de départ : rien n'est affirmé sans elle"},
	"coverage.beyond_forecast": {English: "no forecast yet for these dates (forecasts reach about two weeks ahead)", French: "pas encore de prévision pour ces dates (les prévisions portent sur deux semaines environ)"},
	"coverage.provider_failed": {English: "the provider failed through every retry; analyse again later", French: "le fournisseur a échoué malgré les nouvelles tentatives ; relancez l'analyse plus tard"},
	"coverage.unknown_holidays": {English: "public holidays unknown for {countries}; Sundays are still said",
		French: "jours fériés inconnus pour {countries} ; les dimanches sont tout de même signalés"},
	"coverage.legend": {
		English: "coverage names each computation that could not look everywhere, and why; a computation done and not named there looked, and an empty list means it found nothing",
		French:  "coverage nomme chaque calcul qui n'a pas pu regarder partout, et pourquoi ; un calcul terminé qui n'y figure pas a regardé, et une liste vide veut dire qu'il n'a rien trouvé",
	},

	// Kinds of place.
	"place.museum":     {English: "museum", French: "musée"},
	"place.monument":   {English: "monument", French: "monument"},
	"place.castle":     {English: "castle", French: "château"},
	"place.church":     {English: "church", French: "église"},
	"place.viewpoint":  {English: "viewpoint", French: "point de vue"},
	"place.attraction": {English: "attraction", French: "site touristique"},
	"place.memorial":   {English: "memorial", French: "mémorial"},
	"place.ruins":      {English: "ruins", French: "ruines"},
	"place.artwork":    {English: "artwork", French: "œuvre d'art"},

	// Countries a bikepacking trip in Europe crosses.
	"country.AD": {English: "Andorra", French: "Andorre"},
	"country.AT": {English: "Austria", French: "Autriche"},
	"country.BE": {English: "Belgium", French: "Belgique"},
	"country.CH": {English: "Switzerland", French: "Suisse"},
	"country.CZ": {English: "Czechia", French: "Tchéquie"},
	"country.DE": {English: "Germany", French: "Allemagne"},
	"country.DK": {English: "Denmark", French: "Danemark"},
	"country.ES": {English: "Spain", French: "Espagne"},
	"country.FR": {English: "France", French: "France"},
	"country.GB": {English: "United Kingdom", French: "Royaume-Uni"},
	"country.HR": {English: "Croatia", French: "Croatie"},
	"country.IE": {English: "Ireland", French: "Irlande"},
	"country.IT": {English: "Italy", French: "Italie"},
	"country.LI": {English: "Liechtenstein", French: "Liechtenstein"},
	"country.LU": {English: "Luxembourg", French: "Luxembourg"},
	"country.MC": {English: "Monaco", French: "Monaco"},
	"country.NL": {English: "Netherlands", French: "Pays-Bas"},
	"country.NO": {English: "Norway", French: "Norvège"},
	"country.PL": {English: "Poland", French: "Pologne"},
	"country.PT": {English: "Portugal", French: "Portugal"},
	"country.SE": {English: "Sweden", French: "Suède"},
	"country.SI": {English: "Slovenia", French: "Slovénie"},
	"country.SK": {English: "Slovakia", French: "Slovaquie"},

	// Files and pages.
	"file.stage":           {English: "Stage {day}", French: "Étape {day}"},
	"file.stage_from_to":   {English: "Stage {day}: {from} → {to}", French: "Étape {day} : {from} → {to}"},
	"page.day_n":           {English: "Day {day}", French: "Jour {day}"},
	"view.untitled":        {English: "Your bike trip", French: "Votre voyage à vélo"},
	"view.distance_climb":  {English: "{km} km, {climb} m of climbing", French: "{km} km, {climb} m de montée"},
	"view.profile_caption": {English: "Height gained since the start, day by day, along {km} km.", French: "Dénivelé cumulé depuis le départ, jour après jour, sur {km} km."},
	"view.alerts_critical": {English: "{n} critical", French: "{n} critique(s)"},
	"view.alerts_warning":  {English: "{n} warning(s)", French: "{n} avertissement(s)"},
	"view.alerts_nudge":    {English: "{n} hint(s)", French: "{n} conseil(s)"},
	"view.make_rest":       {English: "Rest day after", French: "Repos après"},
	"view.confirm":         {English: "Confirm", French: "Confirmer"},
	"view.refused":         {English: "Refused.", French: "Refusé."},
	"view.done":            {English: "Done: the days are being recomputed.", French: "C'est fait : les jours sont recalculés."},
	"view.shared_at":       {English: "Shared at {url}", French: "Partagé à l'adresse {url}"},
	"view.places":          {English: "Places to sleep", French: "Où dormir"},
	"view.sleep_here":      {English: "Sleep here", French: "Dormir ici"},
	"page.rest_day":        {English: "Day {day}: rest day", French: "Jour {day} : repos"},
	"page.col_day":         {English: "Day", French: "Jour"},
	"page.col_distance":    {English: "Distance", French: "Distance"},
	"page.col_climb":       {English: "Climb", French: "Montée"},
	"page.col_descent":     {English: "Descent", French: "Descente"},
	"page.col_sleep":       {English: "Sleeping at", French: "Nuit à"},
	"page.col_alerts":      {English: "Watch out for", French: "Points d'attention"},
	"page.not_chosen":      {English: "not chosen yet", French: "pas encore choisi"},
	"page.not_analysed":    {English: "not analysed yet", French: "pas encore analysé"},
	"page.nothing":         {English: "nothing to report", French: "rien à signaler"},
	"page.no_days":         {English: "The days of this trip are not computed yet. Come back in a moment.", French: "Les jours de ce voyage ne sont pas encore calculés. Revenez dans un instant."},
	"page.footer":          {English: "Shared with Cairn, the bike trip planner.", French: "Partagé avec Cairn, le planificateur de voyages à vélo."},
	"page.untitled":        {English: "A shared bike trip", French: "Un voyage à vélo partagé"},
	"page.no_dates":        {English: "No dates set", French: "Pas de dates"},
	"page.summary":         {English: "{days} days, {km} km, {climb} m of climbing", French: "{days} jours, {km} km, {climb} m de montée"},
	"page.downloads":       {English: "Downloads", French: "Téléchargements"},
	"page.download_gpx":    {English: "Download GPX", French: "Télécharger le GPX"},
	"page.download_fit":    {English: "Download FIT", French: "Télécharger le FIT"},
	"page.map":             {English: "Map of the route, one colour per day", French: "Carte de l'itinéraire, une couleur par jour"},
	"page.map_caption":     {English: "The route, drawn from its points; a circle marks where each day ends.", French: "L'itinéraire, tracé d'après ses points ; un cercle marque la fin de chaque jour."},
	"page.profile":         {English: "Elevation profile", French: "Profil d'altitude"},
	"page.profile_caption": {English: "Elevation along the route ({km} km).", French: "Altitude le long de l'itinéraire ({km} km)."},
	"page.ends":            {English: "{from} → {to}", French: "{from} → {to}"},
	"page.weather_values":  {English: "{description}, {min:0} to {max:0} °C, wind {wind:0} km/h", French: "{description}, {min:0} à {max:0} °C, vent {wind:0} km/h"},
}
