package planner_test

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/modules/oauth"
	"cairn.dev/cairn/planner/plannertest"
)

// person is someone at a browser: it carries the session cookie and does
// not follow redirects, so that the test sees each step.
type person = doortest.Browser

func newPerson(t testing.TB, session string) *person { return doortest.NewBrowser(t, session) }

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
					back := b.Consent(a.URL, args.URL, "approve", "trips:read", "trips:write")
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
				status, _ = c.post("/oauth/revoke", url.Values{"token": {revoked}, "client_id": {clientID}})
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
	return doortest.Register(t, a.App, redirects...)
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
	back := c.b.Consent(c.a.URL, c.authorizeURL(nil), "approve", strings.Fields(c.scope)...)
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

// rows counts the rows of table that match where: what a refusal must not
// have written.
func rows(t *testing.T, a *plannertest.App, table, where string, args ...any) int {
	t.Helper()
	n, err := a.DB.NewSelect().Table(table).Where(where, args...).Count(context.Background())
	require.NoError(t, err)
	return int(n)
}

// issued counts what the server ever issued to a client: its refresh
// tokens and its access tokens (live or not).
func issued(t *testing.T, a *plannertest.App, clientID string) int {
	t.Helper()
	return rows(t, a, "oauth_refresh_tokens", "client_id = ?", clientID) +
		rows(t, a, "access_tokens", "name LIKE ?", "oauth: % ("+clientID+")")
}

// codes counts a client's authorization requests that were kept, and
// those that got a code.
func codes(t *testing.T, a *plannertest.App, clientID string) (kept, coded int) {
	t.Helper()
	return rows(t, a, "oauth_authorizations", "client_id = ?", clientID),
		rows(t, a, "oauth_authorizations", "client_id = ? AND code_hash IS NOT NULL", clientID)
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
		kept, _ := codes(t, a, c.id)
		defer func() {
			after, _ := codes(t, a, c.id)
			require.Equal(t, kept, after, "no authorization request was kept")
		}()
		for _, u := range []string{"http://127.0.0.1:5000/other", "https://evil.example/cb", "http://localhost:5000/cb"} {
			res, page := b.Do(http.MethodGet, c.authorizeURL(url.Values{"redirect_uri": {u}}), nil)
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
		kept, _ := codes(t, a, c.id)
		defer func() {
			after, _ := codes(t, a, c.id)
			require.Equal(t, kept, after, "no authorization request was kept")
		}()
		for name, q := range map[string]url.Values{
			"plain":   {"code_challenge_method": {"plain"}, "code_challenge": {c.verifier}},
			"missing": {"code_challenge": {""}, "code_challenge_method": {""}},
		} {
			res, _ := b.Do(http.MethodGet, c.authorizeURL(q), nil)
			require.Equal(t, http.StatusSeeOther, res.StatusCode, name)
			back, err := url.Parse(res.Header.Get("Location"))
			require.NoError(t, err)
			require.Equal(t, "invalid_request", back.Query().Get("error"), name)
			require.Empty(t, back.Query().Get("code"), name)
		}
	})

	t.Run("another resource is refused", func(t *testing.T) {
		kept, _ := codes(t, a, c.id)
		res, _ := b.Do(http.MethodGet, c.authorizeURL(url.Values{"resource": {"https://other.example/mcp"}}), nil)
		back, err := url.Parse(res.Header.Get("Location"))
		require.NoError(t, err)
		require.Equal(t, "invalid_target", back.Query().Get("error"))
		require.Empty(t, back.Query().Get("code"))
		after, _ := codes(t, a, c.id)
		require.Equal(t, kept, after, "no authorization request was kept")
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
		before := issued(t, a, c.id)
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
		require.NotContains(t, body, "access_token")
		require.Equal(t, before, issued(t, a, c.id), "nothing issued to the client")
		require.Zero(t, issued(t, a, thief.id), "nothing issued to the other client")
		status, body = c.exchange(code)
		require.Equal(t, http.StatusOK, status, body)
		require.Equal(t, before+2, issued(t, a, c.id), "what is issued is counted: an access and a refresh token")
		first := body["access_token"].(string)
		st, _ := mcpStatus(t, a, first, "list_trips")
		require.Equal(t, http.StatusOK, st)
		before = issued(t, a, c.id)
		status, body = c.exchange(code)
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		require.NotContains(t, body, "access_token")
		require.Equal(t, before, issued(t, a, c.id), "a code spent twice issues nothing")
		st, _ = mcpStatus(t, a, first, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st, "a code spent twice withdraws what it gave")
	})

	t.Run("a read-only grant: reads, 403 on a write, refresh rotates and cannot widen, revocation", func(t *testing.T) {
		status, body := c.exchange(c.code())
		require.Equal(t, http.StatusOK, status, body)
		require.Equal(t, "trips:read", body["scope"])
		require.Equal(t, float64(oauth.AccessTokenTTL/time.Second), body["expires_in"], "a short-lived access token")
		require.Equal(t, "Bearer", body["token_type"])
		require.Zero(t, rows(t, a, "access_tokens", "name LIKE ? AND (expires_at IS NULL OR expires_at > ?)",
			"oauth: % ("+c.id+")", time.Now().UTC().Add(oauth.AccessTokenTTL+time.Minute)), "every access token it holds expires within the hour")
		access, refreshTok := body["access_token"].(string), body["refresh_token"].(string)
		st, _ := mcpStatus(t, a, access, "list_trips")
		require.Equal(t, http.StatusOK, st)
		st, challenge := mcpStatus(t, a, access, "create_trip")
		require.Equal(t, http.StatusForbidden, st)
		require.Contains(t, challenge, `error="insufficient_scope", scope="trips:read trips:write"`, "a step-up keeps the scopes held")
		res := a.Do(t, http.MethodPost, "/trips", access, map[string]any{"sourceUrl": plannertest.StravaRoute(120)})
		require.Equal(t, http.StatusForbidden, res.Status, string(res.Body))
		require.Contains(t, res.Header.Get("WWW-Authenticate"), `error="insufficient_scope", scope="trips:read trips:write"`, "on both faces")
		require.Equal(t, "trips:write", res.JSON(t)["scope"], "the problem names the one missing")

		before := issued(t, a, c.id)
		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {c.id}, "scope": {"trips:read trips:write"}})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_scope", body["error"])
		require.NotContains(t, body, "access_token")
		require.Equal(t, before, issued(t, a, c.id), "a widening refresh issues nothing")
		require.Zero(t, rows(t, a, "oauth_refresh_tokens", "digest = ? AND used_at IS NOT NULL", digestOf(refreshTok)), "and does not spend the refresh token")
		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {c.id}})
		require.Equal(t, http.StatusOK, status, body)
		next := body["access_token"].(string)
		st, _ = mcpStatus(t, a, next, "list_trips")
		require.Equal(t, http.StatusOK, st)
		// Its grace over (moved to the past rather than waited for), the
		// spent refresh token presented again ends the grant.
		_, err := a.DB.NewUpdate().Table("oauth_refresh_tokens").Set("used_at = ?", time.Now().Add(-accounts.RefreshGrace-time.Second)).
			Where("digest = ?", digestOf(refreshTok)).Exec(context.Background())
		require.NoError(t, err)
		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {c.id}})
		require.Equal(t, http.StatusBadRequest, status, "a refresh token is spent by its rotation")
		require.Equal(t, "invalid_grant", body["error"])
		st, _ = mcpStatus(t, a, next, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st, "a spent refresh token presented again ends the grant")

		status, body = c.exchange(c.code())
		require.Equal(t, http.StatusOK, status, body)
		access, refreshTok = body["access_token"].(string), body["refresh_token"].(string)
		for _, tok := range []string{access, refreshTok} {
			status, _ = c.post("/oauth/revoke", url.Values{"token": {tok}, "client_id": {c.id}})
			require.Equal(t, http.StatusOK, status)
		}
		st, _ = mcpStatus(t, a, access, "list_trips")
		require.Equal(t, http.StatusUnauthorized, st)
		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {c.id}})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
	})

	t.Run("each local client has a budget of its own", func(t *testing.T) {
		// From loopback, every desktop client shares one address: each
		// is counted by its redirect URIs (ports aside, which a native
		// client draws anew each time).
		for i := 0; i < oauth.RegistrationsPerHour; i++ {
			res := a.Do(t, http.MethodPost, "/oauth/register", "", map[string]any{"redirect_uris": []string{fmt.Sprintf("http://127.0.0.1:%d/app-a", 6000+i)}})
			require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
		}
		res := a.Do(t, http.MethodPost, "/oauth/register", "", map[string]any{"redirect_uris": []string{"http://127.0.0.1:7999/app-a"}})
		require.Equal(t, http.StatusTooManyRequests, res.Status, "the same local client, over its budget")
		res = a.Do(t, http.MethodPost, "/oauth/register", "", map[string]any{"redirect_uris": []string{"http://127.0.0.1:7000/app-b"}})
		require.Equal(t, http.StatusCreated, res.Status, "another local client: %s", res.Body)
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
		require.Equal(t, "temporarily_unavailable", res.JSON(t)["error"], "a standard OAuth error code")
		res = a.Do(t, http.MethodPost, "/oauth/register", "", map[string]any{"redirect_uris": []string{"https://other.example/cb"}}, h...)
		require.Equal(t, http.StatusTooManyRequests, res.Status, "another redirect from the same remote address shares its budget")
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
		res, _ := b.Do(http.MethodGet, c.authorizeURL(nil), nil)
		pending := a.URL + res.Header.Get("Location")
		res, page := newPerson(t, "").Do(http.MethodGet, pending, nil)
		require.Equal(t, http.StatusOK, res.StatusCode, page)
		require.Contains(t, page, `id="signin-email"`, "without a session, the page asks for the sign-in link")
		require.NotContains(t, page, `id="approve"`, "and offers no answer")
		require.NotContains(t, page, `name="csrf"`)
		res, page = b.Do(http.MethodGet, pending, nil)
		require.Equal(t, http.StatusOK, res.StatusCode, page)
		csrf := b.CSRF(page)

		res, page = b.Do(http.MethodPost, pending+"/approve", url.Values{})
		require.Equal(t, http.StatusUnprocessableEntity, res.StatusCode, page)
		require.Contains(t, page, `"field":"csrf"`)
		res, page = b.Do(http.MethodPost, pending+"/approve", url.Values{"csrf": {"forged"}})
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
			res, err = b.HTTP.Do(req)
			require.NoError(t, err)
			res.Body.Close()
			require.Equal(t, http.StatusUnauthorized, res.StatusCode, path)
			require.Empty(t, res.Header.Get("Location"), path)
		}
		res, page = newPerson(t, "").Do(http.MethodPost, pending+"/approve", url.Values{"csrf": {csrf}})
		require.Equal(t, http.StatusUnauthorized, res.StatusCode, page)
		id := pending[strings.LastIndex(pending, "/")+1:]
		require.Equal(t, 1, rows(t, a, "oauth_authorizations", "id = ? AND status = ? AND code_hash IS NULL", id, "pending"),
			"no code was made")

		// Nothing was decided: the person still can.
		res, page = b.Do(http.MethodPost, pending+"/approve", url.Values{"csrf": {csrf}})
		require.Equal(t, http.StatusSeeOther, res.StatusCode, page)
		back, err := url.Parse(res.Header.Get("Location"))
		require.NoError(t, err)
		require.NotEmpty(t, back.Query().Get("code"))
		res, page = b.Do(http.MethodPost, pending+"/approve", url.Values{"csrf": {csrf}})
		require.Equal(t, http.StatusNotFound, res.StatusCode, "an answered request is gone: %s", page)
	})

	t.Run("an expired code", func(t *testing.T) {
		code := c.code()
		_, err := a.DB.NewUpdate().Table("oauth_authorizations").Set("expires_at = ?", time.Now().UTC().Add(-time.Second)).
			Where("client_id = ? AND status = ?", c.id, "approved").Exec(context.Background())
		require.NoError(t, err)
		before := issued(t, a, c.id)
		defer func() { require.Equal(t, before, issued(t, a, c.id), "nothing issued") }()
		status, body := c.exchange(code)
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		require.Contains(t, body["error_description"], "expired")
		require.NotContains(t, body, "access_token")
	})

	t.Run("another redirect_uri or resource at the token endpoint", func(t *testing.T) {
		code := c.code()
		before := issued(t, a, c.id)
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
		require.Equal(t, before, issued(t, a, c.id), "nothing issued")
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
		before := issued(t, a, fresh.id)
		status, body = fresh.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refreshTok}, "client_id": {fresh.id}})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		require.Contains(t, body["error_description"], "expired")
		require.Equal(t, before, issued(t, a, fresh.id), "nothing issued")
	})

	t.Run("a refresh token presented by another client", func(t *testing.T) {
		status, body := c.exchange(c.code())
		require.Equal(t, http.StatusOK, status, body)
		thief := register(t, a, redirect)
		before := issued(t, a, c.id)
		status, body = c.post("/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {body["refresh_token"].(string)}, "client_id": {thief}})
		require.Equal(t, http.StatusBadRequest, status)
		require.Equal(t, "invalid_grant", body["error"])
		require.NotContains(t, body, "access_token")
		require.Zero(t, issued(t, a, thief), "nothing issued to the other client")
		require.Equal(t, before, issued(t, a, c.id), "nor to the grant's own")
	})

	t.Run("a denial goes back as access_denied", func(t *testing.T) {
		_, coded := codes(t, a, c.id)
		back := b.Consent(a.URL, c.authorizeURL(nil), "deny", "trips:read")
		require.Equal(t, "access_denied", back.Query().Get("error"))
		require.Empty(t, back.Query().Get("code"))
		_, after := codes(t, a, c.id)
		require.Equal(t, coded, after, "a denial makes no code")
	})

	t.Run("a registration unused for long is forgotten, with what it had", func(t *testing.T) {
		old := register(t, a, redirect)
		used := register(t, a, redirect)
		res, _ := b.Do(http.MethodGet, (&oauthClient{t: t, a: a, b: b, id: old, redirect: redirect, verifier: c.verifier, scope: "trips:read"}).authorizeURL(nil), nil)
		require.Equal(t, http.StatusFound, res.StatusCode, "a pending request of the old client")
		long := time.Now().UTC().Add(-oauth.UnusedClientTTL - time.Hour)
		_, err := a.DB.NewUpdate().Table("oauth_clients").Set("last_used_at = ?", long).Where("id = ?", old).Exec(context.Background())
		require.NoError(t, err)
		_, err = a.DB.NewUpdate().Table("oauth_clients").Set("last_used_at = ?", long.Add(2*time.Hour)).Where("id = ?", used).Exec(context.Background())
		require.NoError(t, err)
		register(t, a, redirect) // the next registration forgets the unused ones

		require.Zero(t, rows(t, a, "oauth_clients", "id = ?", old))
		require.Zero(t, rows(t, a, "oauth_authorizations", "client_id = ?", old), "its requests go with it")
		require.Equal(t, 1, rows(t, a, "oauth_clients", "id = ?", used), "one used within the period stays")
		res, page := b.Do(http.MethodGet, (&oauthClient{t: t, a: a, b: b, id: old, redirect: redirect, verifier: c.verifier, scope: "trips:read"}).authorizeURL(nil), nil)
		require.Equal(t, http.StatusBadRequest, res.StatusCode)
		require.Contains(t, page, "not registered")
	})
}

// TestTheSessionCookie: the sign-in that keeps the person signed in for
// this server's own pages (consent, connected apps) sets the session
// cookie HttpOnly (no script reads it), SameSite=Lax (another site's form
// does not carry it; the client's redirect to the consent page does) and
// Secure (never sent in clear beyond loopback, which browsers treat as a
// secure context); without keepSignedIn no cookie is set.
func TestTheSessionCookie(t *testing.T) {
	a, smtp := signInApp(t, nil)
	const email = "cookie@example.com"
	a.Token(t, email)
	for i, keep := range []bool{false, true} {
		res := a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": email})
		require.Less(t, res.Status, 300, string(res.Body))
		link := smtp.Next(t, i+1).Link()
		token := link[strings.LastIndex(link, "/")+1:]
		res = a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": token, "keepSignedIn": keep})
		require.Equal(t, http.StatusOK, res.Status, string(res.Body))
		cookies := (&http.Response{Header: res.Header}).Cookies()
		if !keep {
			require.Empty(t, cookies, "no cookie unless asked")
			continue
		}
		require.Len(t, cookies, 1, res.Header.Values("Set-Cookie"))
		c := cookies[0]
		require.Equal(t, accounts.RefreshCookie, c.Name)
		require.Equal(t, res.JSON(t)["refresh_token"], c.Value, "the session is the sign-in's refresh token")
		require.True(t, c.HttpOnly, "HttpOnly")
		require.Equal(t, http.SameSiteLaxMode, c.SameSite)
		require.True(t, c.Secure, "Secure")
		require.Equal(t, "/", c.Path)
		require.Positive(t, c.MaxAge)
		// That cookie is the session the consent knows the person by.
		sess := newPerson(t, c.Value)
		res2, page := sess.Do(http.MethodGet, a.URL+"/account/apps", nil)
		require.Equal(t, http.StatusOK, res2.StatusCode, page)
		require.Contains(t, page, email)
	}
}

// TestDocsConnectWithOAuth: docs/oauth.md writes out what each scope a
// client may ask for allows, in the words the consent page shows, and
// gives a desktop client configuration with the address alone.
func TestDocsConnectWithOAuth(t *testing.T) {
	readme := readDoc(t, "../docs/oauth.md")
	a := plannertest.New(t)
	m := a.Do(t, http.MethodGet, "/.well-known/oauth-authorization-server", "", nil).JSON(t)
	offered := m["scopes_supported"].([]any)
	require.ElementsMatch(t, []any{"trips:read", "trips:write"}, offered)
	for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
		r := a.Do(t, http.MethodGet, path, "", nil).JSON(t)
		require.ElementsMatch(t, offered, r["scopes_supported"], "%s offers only what the authorization server grants", path)
	}
	docs := map[string]string{}
	for _, d := range a.Server.Registry.ScopeDocs() {
		docs[string(d.Scope)] = d.Doc
	}
	for _, sc := range offered {
		doc := strings.TrimSuffix(docs[sc.(string)], ".")
		require.NotEmpty(t, doc, "scope %s says what it allows", sc)
		require.Contains(t, readme, "| `"+sc.(string)+"` | "+strings.ToLower(doc[:1])+doc[1:]+" |", "docs/oauth.md's scope table")
	}
	_, section, ok := strings.Cut(readme, "## Connecting an MCP client with OAuth")
	require.True(t, ok)
	require.Contains(t, section, `"cairn": { "type": "http", "url": "http://127.0.0.1:8080/mcp" }`, "a desktop client gets the address")
	require.Contains(t, section, "npx @modelcontextprotocol/inspector", "the MCP Inspector")
	config, _, _ := strings.Cut(section, "**MCP Inspector**")
	require.NotContains(t, config, "Authorization", "no token in the desktop configuration")
}
