package oauth

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"cairn.dev/cairn/outbound"
	"cairn.dev/cairn/storage"
)

// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
// the MCP authorization spec's preferred registration): a client's id is an
// https URL, and the document at that URL describes the client. Nothing is
// registered beforehand; the server fetches the document when the client
// first shows up, with the product's SSRF-safe client, and keeps it for a
// while.
const (
	// MaxMetadataDocument bounds a document's size: a client's description
	// is a few hundred bytes; a large answer is no such document.
	MaxMetadataDocument = 5 << 10
	// MetadataTimeout bounds a fetch: a person waits for the consent page.
	MetadataTimeout = 5 * time.Second
	// MetadataFreshFor is how long a document is kept when its answer says
	// nothing (Cache-Control max-age); a max-age is kept within
	// [MinMetadataFresh, MaxMetadataFresh].
	MetadataFreshFor = time.Hour
	MinMetadataFresh = time.Minute
	MaxMetadataFresh = 24 * time.Hour
	maxClientIDURL   = 255
	// MetadataFetchesPerHour bounds the documents fetched for one client
	// address (a kept one costs nothing): whoever names a URL makes this
	// server fetch it.
	MetadataFetchesPerHour = 30
)

// Fetcher gets a document over https under the SSRF rules: loopback,
// private and link-local addresses refused at connect time. *outbound.Client
// is one; NewFetcher makes it with the limits of metadata documents.
type Fetcher interface {
	Get(ctx context.Context, rawURL string) (*outbound.Response, error)
}

// FetchPolicy is what the deployment lets the metadata fetch reach beyond
// the public internet: nothing by default.
type FetchPolicy struct {
	// Allow lists address ranges reachable despite the SSRF rules (a
	// client served on a private network, or a test's local server).
	Allow []netip.Prefix
	// RootCAs verifies the documents' servers; nil means the system roots.
	RootCAs *x509.CertPool
}

// NewFetcher is the metadata documents' fetch client: https only, no
// redirect (the document must be at its own id), no retry, 5 KiB, 5 s.
func NewFetcher(p FetchPolicy) *outbound.Client {
	return outbound.New(outbound.Options{
		Allow: p.Allow, RootCAs: p.RootCAs,
		MaxRedirects: -1, Retries: -1, Timeout: MetadataTimeout, MaxBytes: MaxMetadataDocument,
		Header: http.Header{"Accept": {"application/json"}, "User-Agent": {"Cairn OAuth client metadata"}},
	})
}

// isMetadataID reports whether a client_id names a metadata document
// rather than a registration: it is an https URL.
func isMetadataID(id string) bool { return strings.HasPrefix(id, "https://") }

// ClientRefusal is why a client could not be taken: an OAuth error code
// (RFC 6749 §5.2) and what to do, for the page the person sees and the
// client's token request.
type ClientRefusal struct {
	Code, Description string
}

func (r *ClientRefusal) Error() string { return r.Code + ": " + r.Description }

func refuseMetadata(description string) *ClientRefusal {
	return &ClientRefusal{Code: "invalid_client_metadata", Description: description}
}

// checkMetadataID applies the draft's rules on the id itself (§3): https,
// a path, no dot segments, no fragment, no credentials.
func checkMetadataID(id string) error {
	u, err := url.Parse(id)
	switch {
	case err != nil || len(id) > maxClientIDURL:
		return refuseMetadata("the client_id is not a URL of at most 255 characters")
	case u.Scheme != "https" || u.Host == "" || u.Opaque != "":
		return refuseMetadata("a client_id URL is https, with a host")
	case u.User != nil || u.Fragment != "" || strings.Contains(id, "#"):
		return refuseMetadata("a client_id URL has no credentials and no fragment")
	case u.Path == "" || u.Path == "/":
		return refuseMetadata("a client_id URL has a path (the document's address)")
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if seg == "." || seg == ".." {
			return refuseMetadata("a client_id URL has no . or .. path segment")
		}
	}
	return nil
}

// metadataDocument is the part of a client metadata document the server
// reads (RFC 7591 §2 names).
type metadataDocument struct {
	ClientID                string   `json:"client_id"`
	ClientName              string   `json:"client_name"`
	ClientURI               string   `json:"client_uri"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	ClientSecret            *string  `json:"client_secret"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at"`
}

// parseMetadata judges a fetched document against its id (draft §4.1):
// the same client_id, redirect URIs present and acceptable, a public
// client without any secret.
func parseMetadata(id string, body []byte) (*metadataDocument, error) {
	var doc metadataDocument
	if err := json.Unmarshal(body, &doc); err != nil {
		return nil, refuseMetadata("the client metadata document is not a JSON object")
	}
	switch {
	case doc.ClientID != id:
		return nil, refuseMetadata("the document's client_id is not the URL it was fetched from")
	case doc.ClientSecret != nil || doc.ClientSecretExpiresAt != nil:
		return nil, refuseMetadata("a client metadata document carries no client_secret")
	case doc.TokenEndpointAuthMethod != "" && doc.TokenEndpointAuthMethod != "none":
		return nil, refuseMetadata("only public clients are accepted: token_endpoint_auth_method must be none")
	case len(doc.RedirectURIs) == 0 || len(doc.RedirectURIs) > maxRedirectURIs:
		return nil, refuseMetadata("the document must list between 1 and 8 redirect_uris")
	case len([]rune(doc.ClientName)) > maxClientNameLen:
		return nil, refuseMetadata("client_name is longer than 100 characters")
	}
	for _, u := range doc.RedirectURIs {
		if problem := redirectProblem(u); problem != "" {
			return nil, refuseMetadata(problem)
		}
	}
	if err := checkGrants(doc.GrantTypes, doc.ResponseTypes); err != "" {
		return nil, refuseMetadata(err)
	}
	return &doc, nil
}

// checkGrants accepts the grant and response types this server serves;
// it returns what is wrong, or "".
func checkGrants(grants, responses []string) string {
	for _, g := range grants {
		if g != "authorization_code" && g != "refresh_token" {
			return "unsupported grant type (authorization_code and refresh_token are served)"
		}
	}
	for _, rt := range responses {
		if rt != "code" {
			return "unsupported response type (code is served)"
		}
	}
	return ""
}

// fetchRefusal words a failed fetch for the person and the client; what
// the fetch client knows of the address is not repeated.
func fetchRefusal(err error) *ClientRefusal {
	var status *outbound.StatusError
	switch {
	case errors.Is(err, outbound.ErrForbiddenAddress):
		return refuseMetadata("the client metadata document is on a private or local address, which this server does not reach")
	case errors.Is(err, outbound.ErrTooLarge):
		return refuseMetadata("the client metadata document is larger than 5 KiB")
	case errors.Is(err, outbound.ErrRedirect):
		return refuseMetadata("the client metadata document answered with a redirect; it must be served at its client_id")
	case errors.Is(err, outbound.ErrScheme), errors.Is(err, outbound.ErrURL):
		return refuseMetadata("the client_id is not an https URL this server can fetch")
	case errors.As(err, &status):
		return refuseMetadata("the client metadata document answered HTTP " + strconv.Itoa(status.Code))
	case errors.Is(err, outbound.ErrResolve):
		return refuseMetadata("the client_id's host name does not resolve")
	}
	return refuseMetadata("the client metadata document could not be fetched; try again")
}

// metadataClient is the client a metadata document describes: the one
// kept while fresh, fetched and judged again after. A refusal is a
// *ClientRefusal; nothing is kept of a refused document.
func (s *Server) metadataClient(ctx context.Context, id, from string) (*client, error) {
	if err := checkMetadataID(id); err != nil {
		return nil, err
	}
	kept := new(client)
	err := storage.Conn(ctx, s.db).NewSelect().Model(kept).Where("id = ?", id).Scan(ctx)
	switch {
	case err == nil && kept.MetadataExpiresAt != nil && s.now().Before(*kept.MetadataExpiresAt):
		return kept, nil
	case err != nil && !storage.NoRows(err):
		return nil, err
	}
	if s.fetcher == nil {
		return nil, refuseMetadata("this server does not fetch client metadata documents; register the client (Dynamic Client Registration)")
	}
	if from != "" {
		ok, _, err := s.limiter.Allow(ctx, "oauth.metadata:"+from, MetadataFetchesPerHour, time.Hour)
		switch {
		case err != nil:
			return nil, &ClientRefusal{Code: "temporarily_unavailable", Description: "client metadata documents cannot be fetched now; try again"}
		case !ok:
			return nil, &ClientRefusal{Code: "temporarily_unavailable", Description: "too many client metadata documents were fetched for this address; try again later"}
		}
	}
	res, err := s.fetcher.Get(ctx, id)
	if err != nil {
		return nil, fetchRefusal(err)
	}
	if ct := res.Header.Get("Content-Type"); ct != "" && !strings.Contains(ct, "json") {
		return nil, refuseMetadata("the client metadata document is not served as JSON")
	}
	doc, err := parseMetadata(id, res.Body)
	if err != nil {
		return nil, err
	}
	now := s.now()
	until := now.Add(freshFor(res.Header.Get("Cache-Control")))
	name := strings.TrimSpace(doc.ClientName)
	if name == "" {
		name = "an unnamed client"
	}
	c := &client{ID: id, Name: name, RedirectURIs: strings.Join(doc.RedirectURIs, "\n"), CreatedAt: now, LastUsedAt: now, MetadataExpiresAt: &until}
	_, err = storage.Conn(ctx, s.db).NewInsert().Model(c).
		On("CONFLICT (id) DO UPDATE").Set("name = EXCLUDED.name").Set("redirect_uris = EXCLUDED.redirect_uris").
		Set("metadata_expires_at = EXCLUDED.metadata_expires_at").Exec(ctx)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// freshFor reads how long a document may be kept from its Cache-Control,
// within bounds: a client cannot make the server fetch at every request,
// nor keep a stale description for days.
func freshFor(cacheControl string) time.Duration {
	for _, d := range strings.Split(cacheControl, ",") {
		d = strings.TrimSpace(strings.ToLower(d))
		if v, ok := strings.CutPrefix(d, "max-age="); ok {
			if n, err := strconv.Atoi(v); err == nil {
				return min(max(time.Duration(n)*time.Second, MinMetadataFresh), MaxMetadataFresh)
			}
		}
		if d == "no-store" || d == "no-cache" {
			return MinMetadataFresh
		}
	}
	return MetadataFreshFor
}
