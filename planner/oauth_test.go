package planner_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/oauth"
	"cairn.dev/cairn/planner/plannertest"
)

// person is someone at a browser: it carries the session cookie and does
// not follow redirects, so that the test sees each step.
type person struct {
	t       testing.TB
	session string
	http    *http.Client
}

func newPerson(t testing.TB, session string) *person {
	return &person{t: t, session: session, http: &http.Client{
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}}
}

func (b *person) do(method, u string, form url.Values) (*http.Response, string) {
	b.t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, u, body)
	require.NoError(b.t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if b.session != "" {
		req.AddCookie(&http.Cookie{Name: accounts.RefreshCookie, Value: b.session})
	}
	res, err := b.http.Do(req)
	require.NoError(b.t, err)
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	require.NoError(b.t, err)
	return res, string(raw)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// consent follows an authorization URL to the consent page, checks that it
// names the client and the scopes, and answers it; it returns where the
// server sends the browser back.
func (b *person) consent(base, authorizeURL, decision string, wantScopes ...string) *url.URL {
	b.t.Helper()
	res, _ := b.do(http.MethodGet, authorizeURL, nil)
	require.Equal(b.t, http.StatusFound, res.StatusCode)
	pending, err := url.Parse(base)
	require.NoError(b.t, err)
	pending, err = pending.Parse(res.Header.Get("Location"))
	require.NoError(b.t, err)
	require.True(b.t, strings.HasPrefix(pending.Path, "/oauth/pending-authorizations/"), pending.Path)
	res, page := b.do(http.MethodGet, pending.String(), nil)
	require.Equal(b.t, http.StatusOK, res.StatusCode, page)
	require.Contains(b.t, page, "Test agent")
	for _, sc := range wantScopes {
		require.Contains(b.t, page, "<code>"+sc+"</code>")
	}
	m := csrfField.FindStringSubmatch(page)
	require.Len(b.t, m, 2, page)
	res, page = b.do(http.MethodPost, pending.String()+"/"+decision, url.Values{"csrf": {m[1]}})
	require.Equal(b.t, http.StatusSeeOther, res.StatusCode, page)
	back, err := url.Parse(res.Header.Get("Location"))
	require.NoError(b.t, err)
	return back
}

// signedIn starts the planner and signs a person in by the mailed link;
// the refresh token is the browser's session cookie.
func signedIn(t *testing.T, engine apptest.Option) (*plannertest.App, *person) {
	a, smtp := signInApp(t, engine)
	const email = "oauth@example.com"
	a.Token(t, email) // the person exists
	_, session := signIn(t, a, smtp, email, 1)
	return a, newPerson(t, session)
}

// TestOAuthWithTheSDKClient: the go-sdk's own OAuth client connects to
// /mcp from nothing, once known by a Client ID Metadata Document the test
// serves and once by Dynamic Client Registration (RFC 7591): a 401 names
// the resource metadata, which names this server as the authorization
// server; the client registers or names its document, sends the person to
// consent with PKCE, exchanges the code and lists trips. Its refresh
// token rotates, and once revoked the access token is refused with 401.
func TestOAuthWithTheSDKClient(t *testing.T) {
	const redirect = "http://127.0.0.1:49152/callback"
	h := newMetadataHost(t)
	document := h.client("/agent/client.json", "Test agent", redirect)
	for _, tt := range []struct {
		name   string
		config func(*auth.AuthorizationCodeHandlerConfig)
	}{
		{"client ID metadata document", func(c *auth.AuthorizationCodeHandlerConfig) {
			c.ClientIDMetadataDocumentConfig = &auth.ClientIDMetadataDocumentConfig{URL: document}
		}},
		{"dynamic client registration", func(c *auth.AuthorizationCodeHandlerConfig) {
			c.DynamicClientRegistrationConfig = &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
				ClientName: "Test agent", RedirectURIs: []string{redirect}, GrantTypes: []string{"authorization_code", "refresh_token"},
			}}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a, b := signedIn(t, h.allowed(t))
			var clientID string
			cfg := &auth.AuthorizationCodeHandlerConfig{
				RedirectURL: redirect,
				AuthorizationCodeFetcher: func(_ context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
					u, err := url.Parse(args.URL)
					if err != nil {
						return nil, err
					}
					clientID = u.Query().Get("client_id")
					if u.Query().Get("code_challenge_method") != "S256" || u.Query().Get("code_challenge") == "" {
						return nil, errors.New("no PKCE S256 challenge: " + args.URL)
					}
					back := b.consent(a.URL, args.URL, "approve", "trips:read", "trips:write")
					if !strings.HasPrefix(back.String(), redirect+"?") {
						return nil, errors.New("sent back elsewhere: " + back.String())
					}
					q := back.Query()
					return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
				},
			}
			tt.config(cfg)
			handler, err := auth.NewAuthorizationCodeHandler(cfg)
			require.NoError(t, err)
			client := mcp.NewClient(&mcp.Implementation{Name: "oauth-test", Version: "1"}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.URL + "/mcp", OAuthHandler: handler}, nil)
			require.NoError(t, err)
			defer s.Close()
			res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "list_trips", Arguments: map[string]any{}})
			require.NoError(t, err)
			require.False(t, res.IsError, "%+v", res.Content)
			if tt.name == "client ID metadata document" {
				require.Equal(t, document, clientID, "the client is known by its document's URL")
			} else {
				require.True(t, strings.HasPrefix(clientID, "dcr_"), clientID)
			}

			// The token the client holds is bound to /mcp; its refresh
			// token rotates.
			ts, err := handler.TokenSource(ctx)
			require.NoError(t, err)
			tok, err := ts.Token()
			require.NoError(t, err)
			st, _ := mcpStatus(t, a, tok.AccessToken, "list_trips")
			require.Equal(t, http.StatusOK, st)
			c := &oauthClient{t: t, a: a, id: clientID}
			status, body := c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {clientID}})
			require.Equal(t, http.StatusOK, status, body)
			access, refreshed := body["access_token"].(string), body["refresh_token"].(string)
			require.NotEqual(t, tok.RefreshToken, refreshed, "the refresh token rotates")
			st, _ = mcpStatus(t, a, access, "list_trips")
			require.Equal(t, http.StatusOK, st)

			// Revoked, the access token is refused with a challenge that
			// starts the client over.
			for _, revoked := range []string{access, refreshed} {
				status, _ = c.post("/oauth/revoke", url.Values{"token": {revoked}})
				require.Equal(t, http.StatusOK, status)
			}
			st, challenge := mcpStatus(t, a, access, "list_trips")
			require.Equal(t, http.StatusUnauthorized, st)
			require.Contains(t, challenge, `resource_metadata="`+a.URL+`/.well-known/oauth-protected-resource/mcp"`)
			require.Contains(t, challenge, `error="invalid_token"`)
			status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshed}, "client_id": {clientID}})
			require.Equal(t, http.StatusBadRequest, status)
			require.Equal(t, "invalid_grant", body["error"])
		})
	}
}

// oauthClient is a scripted client, for the refusals the SDK client never
// provokes.
type oauthClient struct {
	t               *testing.T
	a               *plannertest.App
	b               *person
	id, redirect    string
	verifier, scope string
	resource        string
}

func register(t *testing.T, a *plannertest.App, redirects ...string) string {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/oauth/register", "", map[string]any{"client_name": "Test agent", "redirect_uris": redirects})
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	return res.JSON(t)["client_id"].(string)
}

func (c *oauthClient) authorizeURL(extra url.Values) string {
	sum := sha256.Sum256([]byte(c.verifier))
	q := url.Values{
		"response_type": {"code"}, "client_id": {c.id}, "redirect_uri": {c.redirect}, "state": {"st"},
		"code_challenge": {base64.RawURLEncoding.EncodeToString(sum[:])}, "code_challenge_method": {"S256"},
		"scope": {c.scope}, "resource": {c.resource},
	}
	for k, v := range extra {
		q[k] = v
	}
	return c.a.URL + "/oauth/authorize?" + q.Encode()
}

func (c *oauthClient) post(path string, form url.Values) (int, map[string]any) {
	c.t.Helper()
	res, err := http.PostForm(c.a.URL+path, form)
	require.NoError(c.t, err)
	defer res.Body.Close()
	var body map[string]any
	_ = json.NewDecoder(res.Body).Decode(&body)
	return res.StatusCode, body
}

// code runs the consent and returns the code.
func (c *oauthClient) code() string {
	c.t.Helper()
	back := c.b.consent(c.a.URL, c.authorizeURL(nil), "approve", strings.Fields(c.scope)...)
	require.Equal(c.t, c.a.URL, back.Query().Get("iss"), "RFC 9207 iss")
	require.Equal(c.t, "st", back.Query().Get("state"))
	require.NotEmpty(c.t, back.Query().Get("code"), back.String())
	return back.Query().Get("code")
}

func (c *oauthClient) exchange(code string) (int, map[string]any) {
	return c.post("/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {c.id},
		"redirect_uri": {c.redirect}, "code_verifier": {c.verifier}, "resource": {c.resource}})
}

func mcpStatus(t *testing.T, a *plannertest.App, token, tool string) (int, string) {
	t.Helper()
	call := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": map[string]any{"name": tool, "arguments": map[string]any{}}}
	res := a.Do(t, http.MethodPost, "/mcp", token, call, "Accept", "application/json, text/event-stream")
	return res.Status, res.Header.Get("WWW-Authenticate")
}

// TestOAuthRefusals: each refusal is an OAuth error, and nothing is
// issued; the grants that are issued are bound to their scopes and
// resource, rotate, and can be revoked.
func TestOAuthRefusals(t *testing.T) {
	onEngines(t, oauthRefusals)
}

func oauthRefusals(t *testing.T, engine apptest.Option) {
	a, b := signedIn(t, engine)
	redirect := "http://127.0.0.1:5000/cb"
	c := &oauthClient{t: t, a: a, b: b, id: register(t, a, redirect), redirect: redirect,
		verifier: strings.Repeat("v", 50), scope: "trips:read", resource: a.URL + "/mcp"}

	t.Run("the metadata", func(t *testing.T) {
		res := a.Do(t, http.MethodGet, "/.well-known/oauth-authorization-server", "", nil)
		require.Equal(t, http.StatusOK, res.Status)
		m := res.JSON(t)
		require.Equal(t, a.URL, m["issuer"])
		require.Equal(t, []any{"S256"}, m["code_challenge_methods_supported"])
		require.Equal(t, true, m["authorization_response_iss_parameter_supported"])
		require.Contains(t, m, "client_id_metadata_document_supported")
		res = a.Do(t, http.MethodGet, "/.well-known/oauth-protected-resource/mcp", "", nil)
		require.Equal(t, []any{a.URL}, res.JSON(t)["authorization_servers"])
	})

	t.Run("wrong redirects are shown, never followed", func(t *testing.T) {
		for _, u := range []string{"http://127.0.0.1:5000/other", "https://evil.example/cb", "http://localhost:5000/cb"} {
			res, page := b.do(http.MethodGet, c.authorizeURL(url.Values{"redirect_uri": {u}}), nil)
			require.Equal(t, http.StatusBadRequest, res.StatusCode, u)
			require.Empty(t, res.Header.Get("Location"), u)
			require.Contains(t, page, "did not register")
		}
	})

	t.Run("a loopback redirect on another port is the same redirect", func(t *testing.T) {
		other := *c
		other.redirect = "http://127.0.0.1:61234/cb"
		status, body := other.exchange(other.code())
		require.Equal(t, http.StatusOK, status, body)
	})

	t.Run("PKCE is required, S256 only", func(t *testing.T) {
		for name, q := range map[string]url.Values{
			"plain":   {"code_challenge_method": {"plain"}, "code_challenge": {c.verifier}},
			"missing": {"code_challenge": {""}, "code_challenge_method": {""}},
		} {
			res, _ := b.do(http.MethodGet, c.authorizeURL(q), nil)
			require.Equal(t, http.StatusSeeOther, res.StatusCode, name)
			back, err := url.Parse(res.Header.Get("Location"))
			require.NoError(t, err)
			require.Equal(t, "invalid_request", back.Query().Get("error"), name)
			require.Empty(t, back.Query().Get("code"), name)
		}
	})

	t.Run("another resource is refused", func(t *testing.T) {
		res, _ := b.do(http.MethodGet, c.authorizeURL(url.Values{"resource": {"https://other.example/mcp"}}), nil)
		back, err := url.Parse(res.Header.Get("Location"))
		require.NoError(t, err)
		require.Equal(t, "invalid_target", back.Query().Get("error"))
	})

	t.Run("a token for the HTTP API is refused at /mcp", func(t *testing.T) {
		api := *c
		api.resource = a.URL
		status, body := api.exchange(api.code())
		require.Equal(t, http.StatusOK, status, body)
		tok := body["access_token"].(string)
		st, challenge := mcpStatus(t, a, tok, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st)
		require.Contains(t, challenge, `error="invalid_token"`)
		res := a.Do(t, http.MethodGet, "/trips", tok, nil)
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	})

	t.Run("a verifier that does not match, a code spent twice, another client", func(t *testing.T) {
		code := c.code()
		wrong := *c
		wrong.verifier = strings.Repeat("w", 50)
		status, body := wrong.exchange(code)
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		thief := *c
		thief.id = register(t, a, redirect)
		status, body = thief.exchange(code)
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		status, body = c.exchange(code)
		require.Equal(t, http.StatusOK, status, body)
		first := body["access_token"].(string)
		st, _ := mcpStatus(t, a, first, "list_trips")
		require.Equal(t, http.StatusOK, st)
		status, body = c.exchange(code)
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		st, _ = mcpStatus(t, a, first, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st, "a code spent twice withdraws what it gave")
	})

	t.Run("a read-only grant: reads, 403 on a write, refresh rotates and cannot widen, revocation", func(t *testing.T) {
		status, body := c.exchange(c.code())
		require.Equal(t, http.StatusOK, status, body)
		require.Equal(t, "trips:read", body["scope"])
		access, refreshTok := body["access_token"].(string), body["refresh_token"].(string)
		st, _ := mcpStatus(t, a, access, "list_trips")
		require.Equal(t, http.StatusOK, st)
		st, challenge := mcpStatus(t, a, access, "create_trip")
		require.Equal(t, http.StatusForbidden, st)
		require.Contains(t, challenge, `error="insufficient_scope", scope="trips:write"`)

		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {c.id}, "scope": {"trips:read trips:write"}})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_scope", body["error"])
		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {c.id}})
		require.Equal(t, http.StatusOK, status, body)
		next := body["access_token"].(string)
		st, _ = mcpStatus(t, a, next, "list_trips")
		require.Equal(t, http.StatusOK, st)
		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {c.id}})
		require.Equal(t, http.StatusBadRequest, status, "a refresh token is spent by its rotation")
		require.Equal(t, "invalid_grant", body["error"])
		st, _ = mcpStatus(t, a, next, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st, "a spent refresh token presented again ends the grant")

		status, body = c.exchange(c.code())
		require.Equal(t, http.StatusOK, status, body)
		access, refreshTok = body["access_token"].(string), body["refresh_token"].(string)
		for _, tok := range []string{access, refreshTok} {
			status, _ = c.post("/oauth/revoke", url.Values{"token": {tok}})
			require.Equal(t, http.StatusOK, status)
		}
		st, _ = mcpStatus(t, a, access, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st)
		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {c.id}})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
	})

	t.Run("registrations are limited per address", func(t *testing.T) {
		h := []string{"X-Forwarded-For", "203.0.113.9"} // apptest trusts loopback as a proxy
		for i := 0; i < oauth.RegistrationsPerHour; i++ {
			res := a.Do(t, http.MethodPost, "/oauth/register", "", map[string]any{"redirect_uris": []string{redirect}}, h...)
			require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
		}
		res := a.Do(t, http.MethodPost, "/oauth/register", "", map[string]any{"redirect_uris": []string{redirect}}, h...)
		require.Equal(t, http.StatusTooManyRequests, res.Status)
		require.NotEmpty(t, res.Header.Get("Retry-After"))
		for _, bad := range []map[string]any{
			{"redirect_uris": []string{"http://evil.example/cb"}},
			{"redirect_uris": []string{}},
			{"redirect_uris": []string{redirect}, "token_endpoint_auth_method": "client_secret_basic"},
		} {
			res := a.Do(t, http.MethodPost, "/oauth/register", "", bad)
			require.Equal(t, http.StatusBadRequest, res.Status, "%v", bad)
		}
	})

	t.Run("a consent without a session or without its CSRF token, or with a bearer token", func(t *testing.T) {
		res, _ := b.do(http.MethodGet, c.authorizeURL(nil), nil)
		pending := a.URL + res.Header.Get("Location")
		res, page := newPerson(t, "").do(http.MethodGet, pending, nil)
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, page)
		require.Contains(t, page, "sign in first")
		res, page = b.do(http.MethodGet, pending, nil)
		require.Equal(t, http.StatusOK, res.StatusCode, page)
		csrf := csrfField.FindStringSubmatch(page)[1]

		res, page = b.do(http.MethodPost, pending+"/approve", url.Values{})
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, page)
		require.Contains(t, page, `"field":"csrf"`)
		res, page = b.do(http.MethodPost, pending+"/approve", url.Values{"csrf": {"forged"}})
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, page)
		require.Contains(t, page, `"field":"csrf"`)
		require.Empty(t, res.Header.Get("Location"))

		// An agent holding a token with every scope, and even the page's
		// CSRF token, is not the person's browser.
		agent := a.Token(t, "oauth@example.com", a.Server.Registry.Scopes()...)
		for _, path := range []string{"/approve", "/deny"} {
			req, err := http.NewRequest(http.MethodPost, pending+path, strings.NewReader(url.Values{"csrf": {csrf}}.Encode()))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Authorization", "Bearer "+agent)
			res, err = b.http.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
			require.Empty(t, res.Header.Get("Location"), path)
		}
		res, page = newPerson(t, "").do(http.MethodPost, pending+"/approve", url.Values{"csrf": {csrf}})
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, page)

		// Nothing was decided: the person still can.
		res, page = b.do(http.MethodPost, pending+"/approve", url.Values{"csrf": {csrf}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode, page)
		back, err := url.Parse(res.Header.Get("Location"))
		require.NoError(t, err)
		require.NotEmpty(t, back.Query().Get("code"))
		res, page = b.do(http.MethodPost, pending+"/approve", url.Values{"csrf": {csrf}})
		require.Equal(t, http.StatusNotFound, res.StatusCode, "an answered request is gone: %s", page)
	})

	t.Run("an expired code", func(t *testing.T) {
		code := c.code()
		_, err := a.DB.NewUpdate().Table("oauth_authorizations").Set("expires_at = ?", time.Now().UTC().Add(-time.Second)).
			Where("client_id = ? AND status = ?", c.id, "approved").Exec(context.Background())
		require.NoError(t, err)
		status, body := c.exchange(code)
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		require.Contains(t, body["error_description"], "expired")
		require.NotContains(t, body, "access_token")
	})

	t.Run("another redirect_uri or resource at the token endpoint", func(t *testing.T) {
		code := c.code()
		other := *c
		other.redirect = "http://127.0.0.1:5000/other"
		status, body := other.exchange(code)
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		other = *c
		other.resource = "https://other.example/mcp"
		status, body = other.exchange(code)
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_target", body["error"])
		require.NotContains(t, body, "access_token")
		status, body = c.exchange(code)
		require.Equal(t, http.StatusOK, status, "the client's own request still buys the code: %v", body)
	})

	t.Run("an expired access token, an expired refresh token", func(t *testing.T) {
		fresh := *c
		fresh.id = register(t, a, redirect)
		status, body := fresh.exchange(fresh.code())
		require.Equal(t, http.StatusOK, status, body)
		access, refreshTok := body["access_token"].(string), body["refresh_token"].(string)
		past := time.Now().UTC().Add(-time.Second)
		_, err := a.DB.NewUpdate().Table("access_tokens").Set("expires_at = ?", past).
			Where("name LIKE ?", "oauth: % ("+fresh.id+")").Exec(context.Background())
		require.NoError(t, err)
		st, challenge := mcpStatus(t, a, access, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st)
		require.Contains(t, challenge, `error="invalid_token"`)
		_, err = a.DB.NewUpdate().Table("oauth_refresh_tokens").Set("expires_at = ?", past).
			Where("client_id = ?", fresh.id).Exec(context.Background())
		require.NoError(t, err)
		status, body = fresh.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {fresh.id}})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		require.Contains(t, body["error_description"], "expired")
	})

	t.Run("a refresh token presented by another client", func(t *testing.T) {
		status, body := c.exchange(c.code())
		require.Equal(t, http.StatusOK, status, body)
		thief := register(t, a, redirect)
		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {body["refresh_token"].(string)}, "client_id": {thief}})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		require.NotContains(t, body, "access_token")
	})

	t.Run("a denial goes back as access_denied", func(t *testing.T) {
		back := b.consent(a.URL, c.authorizeURL(nil), "deny", "trips:read")
		require.Equal(t, "access_denied", back.Query().Get("error"))
		require.Empty(t, back.Query().Get("code"))
	})
}
