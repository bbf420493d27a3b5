package planner_test

import (
	"context"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/app/config"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/oauth"
)

// metadataHost is a client's web site serving its Client ID Metadata
// Documents over https on loopback. The planner reaches it only through
// the option it gives: its address range and its certificate, the one
// widening of the SSRF rules, for this server alone.
type metadataHost struct {
	srv   *httptest.Server
	mu    sync.Mutex
	docs  map[string]string // path → body
	calls map[string]int    // path → fetches
	// credentials counts the requests that carried any credential: the
	// server passes no token on to a third party.
	credentials int
}

func newMetadataHost(t *testing.T) *metadataHost {
	h := &metadataHost{docs: map[string]string{}, calls: map[string]int{}}
	h.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		body, ok := h.docs[r.URL.Path]
		h.calls[r.URL.Path]++
		if r.Header.Get("Authorization") != "" || r.Header.Get("Cookie") != "" {
			h.credentials++
		}
		h.mu.Unlock()
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(body))
	}))
	t.Cleanup(h.srv.Close)
	return h
}

// serve publishes a document at path and returns its URL, the client_id.
func (h *metadataHost) serve(path string, doc any) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	switch d := doc.(type) {
	case string:
		h.docs[path] = d
	default:
		b, _ := json.Marshal(d)
		h.docs[path] = string(b)
	}
	return h.srv.URL + path
}

func (h *metadataHost) fetches(path string) int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.calls[path]
}

// client publishes a valid document for a client answering at redirect.
func (h *metadataHost) client(path, name, redirect string) string {
	id := h.srv.URL + path
	return h.serve(path, map[string]any{"client_id": id, "client_name": name, "redirect_uris": []string{redirect},
		"grant_types": []string{"authorization_code", "refresh_token"}, "response_types": []string{"code"},
		"token_endpoint_auth_method": "none"})
}

// allowed lets the planner fetch from this host: its loopback range and
// its certificate, by configuration.
func (h *metadataHost) allowed(t *testing.T) apptest.Option {
	roots := filepath.Join(t.TempDir(), "roots.pem")
	require.NoError(t, os.WriteFile(roots, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: h.srv.Certificate().Raw}), 0o600))
	return func(_ testing.TB, c *config.Config) {
		*c = c.With("oauth_metadata_allow", "127.0.0.1/32").With("oauth_metadata_roots", roots)
	}
}

// TestClientMetadataDocuments: a client known by its metadata document
// is fetched once while fresh, and shown as self-described; a document on
// a private address, one too large and an invalid one are each refused by
// name, and nothing is kept or issued.
func TestClientMetadataDocuments(t *testing.T) {
	onEngines(t, clientMetadataDocuments)
}

func clientMetadataDocuments(t *testing.T, engine apptest.Option) {
	h := newMetadataHost(t)
	allowed := h.allowed(t)
	a, b := signedIn(t, func(t testing.TB, c *config.Config) {
		allowed(t, c)
		if engine != nil {
			engine(t, c)
		}
	})
	const redirect = "http://127.0.0.1:5001/cb"
	id := h.client("/clients/agent.json", "Test agent", redirect)
	c := &oauthClient{t: t, a: a, b: b, id: id, redirect: redirect, verifier: strings.Repeat("m", 50), scope: "trips:read", resource: a.URL + "/mcp"}

	t.Run("the metadata says so", func(t *testing.T) {
		m := a.Do(t, http.MethodGet, "/.well-known/oauth-authorization-server", "", nil).JSON(t)
		require.Equal(t, true, m["client_id_metadata_document_supported"])
	})

	t.Run("a valid document: consent, code, token, kept while fresh", func(t *testing.T) {
		res, _ := b.Do(http.MethodGet, c.authorizeURL(nil), nil)
		require.Equal(t, http.StatusFound, res.StatusCode)
		_, page := b.Do(http.MethodGet, a.URL+res.Header.Get("Location"), nil)
		require.Contains(t, page, `id="kind">Self-described<`)
		require.Contains(t, page, "127.0.0.1:"+strings.Split(h.srv.URL, ":")[2], "the document's host")
		require.Contains(t, page, "Client ID Metadata Document")
		status, body := c.exchange(c.code())
		require.Equal(t, http.StatusOK, status, body)
		st, _ := mcpStatus(t, a, body["access_token"].(string), "list_trips")
		require.Equal(t, http.StatusOK, st)
		require.Equal(t, 1, h.fetches("/clients/agent.json"), "fetched once, then kept")
		h.mu.Lock()
		defer h.mu.Unlock()
		require.Zero(t, h.credentials, "no token or cookie is passed on to the client's host")
	})

	t.Run("a stale document is fetched again", func(t *testing.T) {
		h.client("/clients/agent.json", "Test agent, renamed", redirect)
		_, err := a.DB.NewUpdate().Table("oauth_clients").Set("metadata_expires_at = ?", time.Now().UTC().Add(-time.Second)).
			Where("id = ?", id).Exec(context.Background())
		require.NoError(t, err)
		res, _ := b.Do(http.MethodGet, c.authorizeURL(nil), nil)
		require.Equal(t, http.StatusFound, res.StatusCode)
		_, page := b.Do(http.MethodGet, a.URL+res.Header.Get("Location"), nil)
		require.Contains(t, page, "Test agent, renamed")
		require.Equal(t, 2, h.fetches("/clients/agent.json"))
		h.client("/clients/agent.json", "Test agent", redirect)
	})

	refusals := []struct {
		name, path string
		doc        any
		want       string
	}{
		{"too large", "/clients/large.json", `{"client_name":"` + strings.Repeat("x", oauth.MaxMetadataDocument) + `"}`, "larger than 5 KiB"},
		{"not JSON", "/clients/html.json", `<html>hello</html>`, "not a JSON object"},
		{"another client_id", "/clients/other.json", map[string]any{"client_id": "https://evil.example/c.json", "redirect_uris": []string{redirect}}, "not the URL it was fetched from"},
		{"no redirect_uris", "/clients/noredirect.json", nil, "redirect_uris"},
		{"a client secret", "/clients/secret.json", nil, "no client_secret"},
		{"missing", "/clients/missing.json", "", "answered HTTP 404"},
	}
	for _, tt := range refusals {
		t.Run("refused: "+tt.name, func(t *testing.T) {
			cid := h.srv.URL + tt.path
			switch tt.name {
			case "no redirect_uris":
				h.serve(tt.path, map[string]any{"client_id": cid})
			case "a client secret":
				h.serve(tt.path, map[string]any{"client_id": cid, "redirect_uris": []string{redirect}, "client_secret": "s3cret"})
			case "missing":
			default:
				h.serve(tt.path, tt.doc)
			}
			bad := *c
			bad.id = cid
			for range 2 {
				res, page := b.Do(http.MethodGet, bad.authorizeURL(nil), nil)
				require.Equal(t, http.StatusBadRequest, res.StatusCode, page)
				require.Empty(t, res.Header.Get("Location"), "nothing goes back to an unverified redirect")
				require.Contains(t, page, "invalid_client_metadata")
				require.Contains(t, page, tt.want)
			}
			require.Equal(t, 2, h.fetches(tt.path), "a refused document is not kept")
			require.Zero(t, rows(t, a, "oauth_clients", "id = ?", cid), "nothing is kept of it")
			require.Zero(t, rows(t, a, "oauth_authorizations", "client_id = ?", cid), "no authorization request is kept")
			status, body := bad.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"x"}, "client_id": {cid}})
			require.Equal(t, http.StatusBadRequest, status)
			require.Equal(t, "invalid_grant", body["error"], "nothing was issued to it")
		})
	}

	t.Run("refused: a private address", func(t *testing.T) {
		bad := *c
		bad.id = "https://10.0.0.7/client.json"
		res, page := b.Do(http.MethodGet, bad.authorizeURL(nil), nil)
		require.Equal(t, http.StatusBadRequest, res.StatusCode, page)
		require.Contains(t, page, "private or local address")
		require.Zero(t, rows(t, a, "oauth_clients", "id = ?", bad.id), "nothing is kept of it")
	})

	t.Run("fetches are limited per client address", func(t *testing.T) {
		path := "/clients/limited.json"
		cid := h.serve(path, `{"client_id":"elsewhere"}`) // refused, so never kept
		bad := *c
		bad.id = cid
		ask := func() (int, string) {
			req, err := http.NewRequest(http.MethodGet, bad.authorizeURL(nil), nil)
			require.NoError(t, err)
			req.Header.Set("X-Forwarded-For", "203.0.113.77") // apptest trusts loopback as a proxy
			req.AddCookie(&http.Cookie{Name: accounts.RefreshCookie, Value: b.Session})
			res, err := b.HTTP.Do(req)
			require.NoError(t, err)
			defer res.Body.Close()
			raw, err := io.ReadAll(res.Body)
			require.NoError(t, err)
			return res.StatusCode, string(raw)
		}
		for range oauth.MetadataFetchesPerHour {
			status, page := ask()
			require.Equal(t, http.StatusBadRequest, status)
			require.Contains(t, page, "not the URL it was fetched from")
		}
		status, page := ask()
		require.Equal(t, http.StatusBadRequest, status)
		require.Contains(t, page, "too many client metadata documents")
		require.Equal(t, oauth.MetadataFetchesPerHour, h.fetches(path), "the last one was not fetched")
	})

	t.Run("refused: loopback, without the allowance", func(t *testing.T) {
		plain, person := signedIn(t, engine)
		bad := *c
		bad.a, bad.b = plain, person
		before := h.fetches("/clients/agent.json")
		res, page := person.Do(http.MethodGet, bad.authorizeURL(nil), nil)
		require.Equal(t, http.StatusBadRequest, res.StatusCode, page)
		require.Contains(t, page, "private or local address")
		require.Equal(t, before, h.fetches("/clients/agent.json"), "refused before any connection")
	})
}
