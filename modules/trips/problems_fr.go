package trips

import (
	"net/http"

	"cairn.dev/cairn/registry"
)

// problemsFR are the fixed texts of refusals in French: the statuses'
// titles, the framework's own refusals and the trips'. A text composed
// around a caller's value stays in English.
var problemsFR = map[string]string{
	http.StatusText(http.StatusBadRequest):            "Requête mal formée",
	http.StatusText(http.StatusUnauthorized):          "Non authentifié",
	http.StatusText(http.StatusForbidden):             "Interdit",
	http.StatusText(http.StatusNotFound):              "Introuvable",
	http.StatusText(http.StatusConflict):              "Conflit",
	http.StatusText(http.StatusPreconditionFailed):    "Version périmée",
	http.StatusText(http.StatusRequestEntityTooLarge): "Requête trop volumineuse",
	http.StatusText(http.StatusUnprocessableEntity):   "Données refusées",
	http.StatusText(http.StatusLocked):                "Verrouillé",
	http.StatusText(http.StatusPreconditionRequired):  "Version requise",
	http.StatusText(http.StatusTooManyRequests):       "Trop de requêtes",
	http.StatusText(http.StatusBadGateway):            "Fournisseur en échec",
	http.StatusText(http.StatusServiceUnavailable):    "Service indisponible",
	http.StatusText(http.StatusInternalServerError):   "Erreur interne",

	registry.NotFoundDetail:                                                                       "introuvable parmi vos ressources ; listez les vôtres pour trouver le bon identifiant",
	registry.PublicNotFoundDetail:                                                                 "rien n'est publié à cette adresse ; elle a peut-être été retirée",
	"a bearer token is required":                                                                  "un jeton d'accès (bearer) est requis",
	"the bearer token is not valid (unknown, revoked or expired)":                                 "le jeton d'accès n'est pas valide (inconnu, révoqué ou expiré)",
	"a required argument is missing":                                                              "un argument requis manque",
	"the arguments do not match the published schema":                                             "les arguments ne correspondent pas au schéma publié",
	"the arguments could not be read":                                                             "les arguments n'ont pas pu être lus",
	"too many calls of this operation; wait before trying again":                                  "trop d'appels de cette opération ; attendez avant de réessayer",
	"an internal error occurred; try again later":                                                 "une erreur interne est survenue ; réessayez plus tard",
	"send the version you last read (If-Match on HTTP, the version argument on MCP)":              "envoyez la version lue en dernier (If-Match en HTTP, l'argument version en MCP)",
	"this idempotency key was used with other arguments; use a new key for a new intent":          "cette clé d'idempotence a servi avec d'autres arguments ; prenez une nouvelle clé pour une nouvelle intention",
	"an idempotency key is required: 16 to 255 characters, the same on every retry of one intent": "une clé d'idempotence est requise : 16 à 255 caractères, la même à chaque nouvel essai d'une même intention",
	"the idempotency key must be 16 to 255 characters long":                                       "la clé d'idempotence doit compter de 16 à 255 caractères",
	"the person declined; nothing was written":                                                    "la personne a refusé ; rien n'a été écrit",
	"a weak tag (W/) never matches If-Match; send the ETag as read, without W/":                   "une étiquette faible (W/) ne correspond jamais à If-Match ; renvoyez l'ETag tel que lu, sans W/",

	LockReason:                                            "le voyage a commencé (sa date de départ est aujourd'hui ou passée, UTC) et ne peut plus être modifié",
	StageNotFound:                                         "jour introuvable dans ce voyage",
	ErrStale.Detail:                                       "le voyage a changé entre-temps ; relisez-le et réessayez avec sa version actuelle",
	"must not be blank":                                   "ne doit pas être vide",
	"must be an https URL":                                "doit être une adresse https",
	"must be at most 2048 characters":                     "doit compter au plus 2048 caractères",
	"must be at most 255 characters":                      "doit compter au plus 255 caractères",
	"must be a calendar day (YYYY-MM-DD)":                 "doit être une date (AAAA-MM-JJ)",
	"must be after startDate":                             "doit être postérieure à startDate",
	"must be between 0.5 and 1.0":                         "doit être entre 0,5 et 1,0",
	"must be greater than 0 and at most 1000":             "doit être supérieur à 0 et au plus 1000",
	"must be between 30 and 300 km":                       "doit être entre 30 et 300 km",
	"must be between 5 and 50 km/h":                       "doit être entre 5 et 50 km/h",
	"must be an hour from 0 to 23":                        "doit être une heure de 0 à 23",
	"must list at least one type":                         "doit lister au moins un type",
	"must be en or fr":                                    "doit être en ou fr",
	"no router is configured":                             "aucun calculateur d'itinéraire n'est configuré",
	"the routing engine failed; try again later":          "le calculateur d'itinéraire a échoué ; réessayez plus tard",
	"this trip has no days to export yet":                 "ce voyage n'a pas encore de jours à exporter",
	"this trip has no such day; days are numbered from 0": "ce voyage n'a pas ce jour ; les jours sont numérotés à partir de 0",
	"this trip is not shared":                             "ce voyage n'est pas partagé",
	"no trip is shared at this address":                   "aucun voyage n'est partagé à cette adresse",
}
