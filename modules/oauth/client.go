package oauth

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

type client struct {
	bun.BaseModel `bun:"table:oauth_clients"`

	ID           string    `bun:"id,pk"`
	Name         string    `bun:"name"`
	RedirectURIs string    `bun:"redirect_uris"` // newline-separated
	CreatedAt    time.Time `bun:"created_at"`
	LastUsedAt   time.Time `bun:"last_used_at"`
	// MetadataExpiresAt is set for a client described by a metadata
	// document (its id is the document's URL): until then the document
	// kept is used, after it is fetched again. Nil for a registration.
	MetadataExpiresAt *time.Time `bun:"metadata_expires_at"`
}

// selfDescribed reports whether the client is known by its metadata
// document only, not by a registration here.
func (c *client) selfDescribed() bool { return isMetadataID(c.ID) }

func (c *client) redirects() []string { return strings.Split(c.RedirectURIs, "\n") }

// redirectAllowed matches a requested redirect URI against the registered
// ones exactly, except that a loopback redirect may use any port (RFC 8252
// §7.3: a native client listens on the port it gets).
func (c *client) redirectAllowed(uri string) bool {
	for _, r := range c.redirects() {
		if r == uri {
			return true
		}
		a, errA := url.Parse(r)
		b, errB := url.Parse(uri)
		if errA != nil || errB != nil || !isLoopback(a) || !isLoopback(b) {
			continue
		}
		if a.Scheme == b.Scheme && a.Hostname() == b.Hostname() && a.EscapedPath() == b.EscapedPath() &&
			a.RawQuery == b.RawQuery && a.Fragment == "" && b.Fragment == "" && b.User == nil {
			return true
		}
	}
	return false
}

// isLoopback: plain http to a loopback address literal, or localhost.
func isLoopback(u *url.URL) bool {
	if u.Scheme != "http" {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// registrationBudget is what a registration is counted under: its client
// address, and from a loopback address (where every desktop client of the
// machine comes from) its redirect URIs too, loopback ports aside, since
// a native client draws a port anew each time. Only someone on the
// machine can choose a loopback address.
func registrationBudget(from string, redirects []string) string {
	key := "oauth.register:" + from
	if ip := net.ParseIP(from); ip == nil || !ip.IsLoopback() {
		return key
	}
	names := make([]string, 0, len(redirects))
	for _, raw := range redirects {
		if u, err := url.Parse(raw); err == nil && isLoopback(u) {
			u.Host = u.Hostname()
			raw = u.String()
		}
		names = append(names, raw)
	}
	slices.Sort(names)
	return key + ":" + digest(strings.Join(names, "\n"))
}

// client finds the client named by id: a metadata document's (fetched
// when not kept fresh; its refusal a *ClientRefusal) or a registration's;
// (nil, nil) for an unknown registration.
//
// from is the address of the caller that made the server look (an
// endpoint's client address): fetches are limited per address. "" is the
// server's own look (a signed-in person's consent), not limited.
func (s *Server) client(ctx context.Context, id, from string) (*client, error) {
	if isMetadataID(id) {
		return s.metadataClient(ctx, id, from)
	}
	return s.storedClient(ctx, id)
}

// storedClient is the client kept under id, as kept (a metadata
// document's is not fetched again); (nil, nil) when none is.
func (s *Server) storedClient(ctx context.Context, id string) (*client, error) {
	c := new(client)
	err := storage.Conn(ctx, s.db).NewSelect().Model(c).Where("id = ?", id).Scan(ctx)
	if storage.NoRows(err) {
		return nil, nil
	}
	return c, err
}

// registration is the part of an RFC 7591 request the server reads.
type registration struct {
	RedirectURIs            []string `json:"redirect_uris"`
	ClientName              string   `json:"client_name"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
}

// register is Dynamic Client Registration for public clients: the client
// proves nothing but its redirect URIs, so those are all it is bound to.
func (s *Server) register(w http.ResponseWriter, r *http.Request) {
	var reg registration
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxRegistration))
	if err != nil || json.Unmarshal(body, &reg) != nil {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "the body is not a JSON client registration")
		return
	}
	switch {
	case len(reg.RedirectURIs) == 0 || len(reg.RedirectURIs) > maxRedirectURIs:
		writeError(w, http.StatusBadRequest, "invalid_redirect_uri", "give between 1 and 8 redirect_uris")
		return
	case reg.TokenEndpointAuthMethod != "" && reg.TokenEndpointAuthMethod != "none":
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "only public clients are registered: token_endpoint_auth_method must be none")
		return
	case len([]rune(reg.ClientName)) > maxClientNameLen:
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", "client_name is longer than 100 characters")
		return
	}
	for _, u := range reg.RedirectURIs {
		if problem := redirectProblem(u); problem != "" {
			writeError(w, http.StatusBadRequest, "invalid_redirect_uri", problem+": "+registry.Clip(u))
			return
		}
	}
	if e := checkGrants(reg.GrantTypes, reg.ResponseTypes); e != "" {
		writeError(w, http.StatusBadRequest, "invalid_client_metadata", e)
		return
	}
	// Counted once judged, so that a refused registration spends nothing.
	ok, wait, err := s.limiter.Allow(r.Context(), registrationBudget(r.Header.Get(registry.HeaderClientAddress), reg.RedirectURIs), RegistrationsPerHour, time.Hour)
	if err != nil {
		writeError(w, http.StatusServiceUnavailable, "temporarily_unavailable", "registrations cannot be counted now; try again")
		return
	}
	if !ok {
		// RFC 7591 has no code for a limit: RFC 6749's temporarily_unavailable, with 429 and Retry-After.
		w.Header().Set("Retry-After", strconv.Itoa(int(wait/time.Second)+1))
		writeError(w, http.StatusTooManyRequests, "temporarily_unavailable", "too many registrations from this client; try again later")
		return
	}
	// Forget the registrations nobody used for a long time (their grants go
	// with them); a failure here only postpones it.
	s.forgetUnused(r.Context())
	name := strings.TrimSpace(reg.ClientName)
	if name == "" {
		name = "an unnamed client"
	}
	now := s.now()
	c := &client{ID: "dcr_" + randomToken(), Name: name, RedirectURIs: strings.Join(reg.RedirectURIs, "\n"), CreatedAt: now, LastUsedAt: now}
	if _, err := storage.Conn(r.Context(), s.db).NewInsert().Model(c).Exec(r.Context()); err != nil {
		writeError(w, http.StatusInternalServerError, "server_error", "the registration could not be stored")
		return
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id": c.ID, "client_name": c.Name, "redirect_uris": reg.RedirectURIs,
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none",
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes an OAuth error response (RFC 6749 §5.2).
func writeError(w http.ResponseWriter, status int, code, description string) {
	writeJSON(w, status, map[string]string{"error": code, "error_description": description})
}

// metadata is the RFC 8414 document.
func (s *Server) metadata(w http.ResponseWriter, _ *http.Request) {
	iss := s.issuer()
	scopes := make([]string, 0)
	for _, sc := range s.scopes() {
		scopes = append(scopes, string(sc))
	}
	w.Header().Set("Access-Control-Allow-Origin", "*")
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                     iss,
		"authorization_endpoint":                     iss + AuthorizePath,
		"token_endpoint":                             iss + TokenPath,
		"registration_endpoint":                      iss + RegisterPath,
		"revocation_endpoint":                        iss + RevokePath,
		"scopes_supported":                           scopes,
		"response_types_supported":                   []string{"code"},
		"response_modes_supported":                   []string{"query"},
		"grant_types_supported":                      []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported":      []string{"none"},
		"revocation_endpoint_auth_methods_supported": []string{"none"},
		"code_challenge_methods_supported":           []string{"S256"},
		// A client may be known by an https client_id naming its
		// metadata document instead of registering (cimd.go), when the
		// server has a client to fetch it with.
		"client_id_metadata_document_supported":          s.fetcher != nil,
		"authorization_response_iss_parameter_supported": true,
	})
}

// forgetUnused forgets the clients nobody used for UnusedClientTTL, their
// grants with them (a metadata document's is fetched again if it comes
// back); a failure here only postpones it.
func (s *Server) forgetUnused(ctx context.Context) {
	_, _ = storage.Conn(ctx, s.db).NewDelete().Model((*client)(nil)).
		Where("last_used_at < ?", s.now().Add(-UnusedClientTTL)).Exec(ctx)
}
