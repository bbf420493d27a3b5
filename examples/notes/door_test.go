package notes_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/stretchr/testify/require"

	"cairn.dev/cairn/app/apptest"
	"cairn.dev/cairn/door/doortest"
	"cairn.dev/cairn/examples/notes"
	"cairn.dev/cairn/modules/mail/mailtest"
)

// signInBySMTP asks for a sign-in link for email, a known person's, reads
// it from the SMTP server as the n-th mail, and opens it as the sign-in
// page does: the browser then holds the session cookie.
func signInBySMTP(t *testing.T, a *apptest.App, smtp *mailtest.Server, email string, n int) *doortest.Browser {
	t.Helper()
	res := a.Do(t, http.MethodPost, "/auth/request-link", "", map[string]any{"email": email})
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	m := smtp.Next(t, n)
	require.Equal(t, []string{email}, m.To)
	require.Equal(t, "Your Notes sign-in link", m.Subject, "the mail names the product")
	link := m.Link()
	i := strings.Index(link, "/auth/verify/")
	require.Positive(t, i, "the mail carries a sign-in link: %s", m.Body)
	b := doortest.NewBrowser(t, "")
	page, body := b.Do(http.MethodGet, link, nil)
	require.Equal(t, http.StatusOK, page.StatusCode, body)
	require.Contains(t, body, "<h1>Sign in to Notes</h1>")
	res = a.Do(t, http.MethodPost, "/auth/verify", "", map[string]any{"token": link[i+len("/auth/verify/"):], "keepSignedIn": true})
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	b.Session = res.JSON(t)["refresh_token"].(string)
	return b
}

// TestOAuthWithTheSDKClient: the go-sdk's own OAuth client connects to
// notes' /mcp with no token at all. The 401 names the resource metadata,
// which names notes itself as the authorization server; the client
// registers (Dynamic Client Registration), sends the person, signed in by
// a link mailed through SMTP, to consent with PKCE, exchanges the code and
// writes and reads a note with the token it got.
func TestOAuthWithTheSDKClient(t *testing.T) {
	t.Parallel()
	const (
		email    = "ada@example.com"
		redirect = "http://127.0.0.1:49152/callback"
	)
	smtp := mailtest.Start(t)
	a := apptest.New(t, notes.Product(), doortest.WithSMTP(smtp))
	own := a.Token(t, email) // the person has an account (invited earlier, say), and a token of their own
	b := signInBySMTP(t, a, smtp, email, 1)

	var consented atomic.Int32
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		RedirectURL: redirect,
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: doortest.ClientName, RedirectURIs: []string{redirect}, GrantTypes: []string{"authorization_code", "refresh_token"},
		}},
		AuthorizationCodeFetcher: func(_ context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			u, err := url.Parse(args.URL)
			if err != nil {
				return nil, err
			}
			if u.Query().Get("code_challenge_method") != "S256" || u.Query().Get("code_challenge") == "" {
				return nil, errors.New("no PKCE S256 challenge: " + args.URL)
			}
			if !strings.HasPrefix(u.Query().Get("client_id"), "dcr_") {
				return nil, errors.New("the client did not register: " + args.URL)
			}
			consented.Add(1)
			back := b.Consent(a.URL, args.URL, "approve", "notes:read", "notes:write")
			if !strings.HasPrefix(back.String(), redirect+"?") {
				return nil, errors.New("sent back elsewhere: " + back.String())
			}
			q := back.Query()
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	})
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	client := mcp.NewClient(&mcp.Implementation{Name: "oauth-test", Version: "1"}, nil)
	s, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: a.URL + "/mcp", OAuthHandler: handler}, nil)
	require.NoError(t, err)
	defer s.Close()
	require.EqualValues(t, 1, consented.Load(), "the person consented once")

	created, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "create_note", Arguments: map[string]any{"title": "Connected by OAuth"}})
	require.NoError(t, err)
	require.False(t, created.IsError, "%+v", created.Content)
	raw, err := json.Marshal(created.StructuredContent)
	require.NoError(t, err)
	var note struct{ ID, Title string }
	require.NoError(t, json.Unmarshal(raw, &note))
	require.Equal(t, "Connected by OAuth", note.Title)
	read, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "get_note", Arguments: map[string]any{"id": note.ID}})
	require.NoError(t, err)
	require.False(t, read.IsError, "%+v", read.Content)

	// The note is the signed-in person's: their own token reads it on the
	// HTTP face, and so does the client's.
	ts, err := handler.TokenSource(ctx)
	require.NoError(t, err)
	tok, err := ts.Token()
	require.NoError(t, err)
	res := a.Do(t, http.MethodGet, "/notes/"+note.ID, own, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	res = a.Do(t, http.MethodGet, "/notes/"+note.ID, tok.AccessToken, nil)
	require.Equal(t, http.StatusOK, res.Status, "a token bound to /mcp works on the HTTP API too: %s", res.Body)
}

// TestConsentInNotesWords: the consent page asks, in notes' words, for the
// scopes of notes' tools, each with the doc notes declared; a client that
// names no scope is offered both, never the account's own scope.
func TestConsentInNotesWords(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, notes.Product())
	const email, redirect = "grace@example.com", "http://127.0.0.1:5003/cb"
	a.Token(t, email)
	_, session := doortest.SignIn(t, a, email)
	b := doortest.NewBrowser(t, session)
	client := doortest.Register(t, a, redirect)
	for _, scope := range []string{"notes:read notes:write", ""} {
		t.Run("scope "+scope, func(t *testing.T) {
			_, page := b.Pending(a.URL, doortest.AuthorizeURL(a.URL, client, redirect, strings.Repeat("v", 50), scope))
			require.Contains(t, page, "to use your Notes account?")
			require.Contains(t, page, "<li><code>notes:read</code>: Read your notes.</li>")
			require.Contains(t, page, "<li><code>notes:write</code>: Create, change, archive and delete your notes.</li>")
			require.NotContains(t, page, "<code>account</code>", "the account is for the person, in the browser")
			require.Contains(t, page, "You are signed in as "+email)
			for _, word := range []string{"cairn", "trip"} {
				require.NotContains(t, strings.ToLower(page), word, "nothing of another product")
			}
		})
	}
}

// TestTheAccountHoldsTheNotes: the account's export carries the person's
// notes under its product's name, and deleting the account deletes them.
func TestTheAccountHoldsTheNotes(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, notes.Product())
	tok := a.Token(t, "lin@example.com")
	other := a.Token(t, "other@example.com")
	res := a.Do(t, http.MethodPost, "/notes", tok, map[string]any{"title": "Mine"}, "Idempotency-Key", key())
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))
	id := res.JSON(t)["id"].(string)
	res = a.Do(t, http.MethodPost, "/notes", other, map[string]any{"title": "Theirs"}, "Idempotency-Key", key())
	require.Equal(t, http.StatusCreated, res.Status, string(res.Body))

	res = a.Do(t, http.MethodGet, "/users/me/export", tok, nil)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Regexp(t, `attachment; filename=notes-export-\d{4}-\d{2}-\d{2}\.json`, res.Header.Get("Content-Disposition"))
	var doc struct {
		Notes []struct{ ID, Title string } `json:"notes"`
	}
	require.NoError(t, json.Unmarshal(res.Body, &doc))
	require.Len(t, doc.Notes, 1, "the person's notes, no one else's")
	require.Equal(t, id, doc.Notes[0].ID)

	res = doortest.DeleteAccount(t, a, tok)
	require.Equal(t, http.StatusNoContent, res.Status, string(res.Body))
	n, err := a.DB.NewSelect().Table("notes").Where("id = ?", id).Count(context.Background())
	require.NoError(t, err)
	require.Zero(t, n, "the account's notes went with it")
	n, err = a.DB.NewSelect().Table("notes").Count(context.Background())
	require.NoError(t, err)
	require.EqualValues(t, 1, n, "another person's stayed")
}

// TestRawHandshakeWithAnOAuthToken walks, in plain HTTP, the steps
// docs/oauth.md writes out ("The raw handshake"): the 401 and its
// challenge, the two metadata documents, a registration, the consent with
// PKCE, the token request, then the MCP handshake with that token and a
// tool call.
func TestRawHandshakeWithAnOAuthToken(t *testing.T) {
	t.Parallel()
	a := apptest.New(t, notes.Product())
	const email, redirect, verifier = "raw@example.com", "http://127.0.0.1:9999/cb", "a-verifier-of-forty-three-characters-or-more"
	a.Token(t, email)
	_, session := doortest.SignIn(t, a, email)
	b := doortest.NewBrowser(t, session)

	rpc := func(token, sessionID string, body map[string]any) *apptest.Response {
		h := []string{"Accept", "application/json, text/event-stream"}
		if sessionID != "" {
			h = append(h, "Mcp-Session-Id", sessionID, "MCP-Protocol-Version", "2025-11-25")
		}
		return a.Do(t, http.MethodPost, "/mcp", token, body, h...)
	}
	initialize := map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]any{"name": "raw", "version": "1"}}}

	// 1. No token: 401, and where to learn more.
	res := rpc("", "", initialize)
	require.Equal(t, http.StatusUnauthorized, res.Status)
	challenge := res.Header.Get("WWW-Authenticate")
	require.Contains(t, challenge, `resource_metadata="`+a.URL+`/.well-known/oauth-protected-resource/mcp"`)
	require.Contains(t, challenge, `scope="notes:read notes:write"`)
	// 2. The resource names its authorization server, 3. which describes itself.
	res = a.Do(t, http.MethodGet, "/.well-known/oauth-protected-resource/mcp", "", nil)
	require.Equal(t, []any{a.URL}, res.JSON(t)["authorization_servers"])
	require.Equal(t, []any{"notes:read", "notes:write"}, res.JSON(t)["scopes_supported"])
	res = a.Do(t, http.MethodGet, "/.well-known/oauth-authorization-server", "", nil)
	as := res.JSON(t)
	require.Equal(t, a.URL+"/oauth/register", as["registration_endpoint"])
	// 4. Registration, 5. the person's consent.
	client := doortest.Register(t, a, redirect)
	authorize := doortest.AuthorizeURL(a.URL, client, redirect, verifier, "notes:read notes:write") + "&resource=" + url.QueryEscape(a.URL+"/mcp")
	require.True(t, strings.HasPrefix(authorize, as["authorization_endpoint"].(string)+"?"))
	back := b.Consent(a.URL, authorize, "approve", "notes:read", "notes:write")
	require.Equal(t, a.URL, back.Query().Get("iss"))
	// 6. The code and the verifier buy the tokens.
	form := url.Values{"grant_type": {"authorization_code"}, "code": {back.Query().Get("code")}, "client_id": {client},
		"redirect_uri": {redirect}, "code_verifier": {verifier}, "resource": {a.URL + "/mcp"}}
	tr, err := http.PostForm(as["token_endpoint"].(string), form)
	require.NoError(t, err)
	defer tr.Body.Close()
	require.Equal(t, http.StatusOK, tr.StatusCode)
	var tokens struct {
		AccessToken string `json:"access_token"`
		Scope       string `json:"scope"`
		TokenType   string `json:"token_type"`
	}
	require.NoError(t, json.NewDecoder(tr.Body).Decode(&tokens))
	require.Equal(t, "Bearer", tokens.TokenType)
	require.Equal(t, "notes:read notes:write", tokens.Scope)

	// The MCP calls with that token. At 2026-07-28 there is no session:
	// server/discover says what the server is, and every request stands
	// on its own, its revision and the client's capabilities in _meta and
	// in its headers.
	meta := map[string]any{"io.modelcontextprotocol/protocolVersion": "2026-07-28",
		"io.modelcontextprotocol/clientCapabilities": map[string]any{},
		"io.modelcontextprotocol/clientInfo":         map[string]any{"name": "raw", "version": "1"}}
	current := func(method, name string, params map[string]any) *apptest.Response {
		params["_meta"] = meta
		h := []string{"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2026-07-28", "Mcp-Method", method}
		if name != "" {
			h = append(h, "Mcp-Name", name)
		}
		return a.Do(t, http.MethodPost, "/mcp", tokens.AccessToken, map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, h...)
	}
	res = current("server/discover", "", map[string]any{})
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Contains(t, string(res.Body), `"io.modelcontextprotocol/serverInfo":{"name":"notes","title":"Notes"`)
	require.Contains(t, string(res.Body), `"supportedVersions":["2026-07-28","2025-11-25"`)
	require.Empty(t, res.Header.Get("Mcp-Session-Id"), "no session to keep")
	res = current("tools/call", "create_note", map[string]any{"name": "create_note", "arguments": map[string]any{"title": "By hand"}})
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Contains(t, string(res.Body), `"structuredContent":{"id":"`)
	require.Contains(t, string(res.Body), `"title":"By hand"`)

	// At 2025-11-25, initialize is answered without a session id too, and
	// a call carries the revision in its header alone.
	res = rpc(tokens.AccessToken, "", initialize)
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Empty(t, res.Header.Get("Mcp-Session-Id"), "served statelessly: any replica answers the next request")
	res = a.Do(t, http.MethodPost, "/mcp", tokens.AccessToken, map[string]any{"jsonrpc": "2.0", "id": 2, "method": "tools/call",
		"params": map[string]any{"name": "create_note", "arguments": map[string]any{"title": "By hand, older"}}},
		"Accept", "application/json, text/event-stream", "MCP-Protocol-Version", "2025-11-25")
	require.Equal(t, http.StatusOK, res.Status, string(res.Body))
	require.Contains(t, string(res.Body), `"title":"By hand, older"`)
}
