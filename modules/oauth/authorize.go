package oauth

import (
	"context"
	"crypto/subtle"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/uptrace/bun"

	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// authorization is a pending authorization, then its code.
type authorization struct {
	bun.BaseModel `bun:"table:oauth_authorizations"`

	ID            string    `bun:"id,pk"`
	ClientID      string    `bun:"client_id"`
	UserID        *string   `bun:"user_id"` // the person who first opened the consent
	RedirectURI   string    `bun:"redirect_uri"`
	Scope         string    `bun:"scope"`
	Resource      string    `bun:"resource"`
	CodeChallenge string    `bun:"code_challenge"`
	State         string    `bun:"state"`
	CSRF          string    `bun:"csrf"`
	CodeHash      *string   `bun:"code_hash"`
	Status        string    `bun:"status"`
	CreatedAt     time.Time `bun:"created_at"`
	ExpiresAt     time.Time `bun:"expires_at"`
}

// authorize checks an authorization request and keeps it pending, for a
// signed-in person to approve. Until the client and its redirect URI are
// known good, a refusal is shown here; after, it goes back to the client
// (RFC 6749 §4.1.2.1).
func (s *Server) authorize(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	ctx := r.Context()
	c, err := s.client(ctx, q.Get("client_id"))
	if err != nil {
		page(w, http.StatusInternalServerError, "Something went wrong", "The request could not be read; try again.")
		return
	}
	if c == nil {
		page(w, http.StatusBadRequest, "Unknown application", "The application asking for access is not registered here.")
		return
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" && len(c.redirects()) == 1 {
		redirect = c.redirects()[0]
	}
	if !c.redirectAllowed(redirect) {
		page(w, http.StatusBadRequest, "Wrong return address", "The application asked to be answered at an address it did not register.")
		return
	}
	back := func(code, description string) {
		redirectTo(w, r, redirect, url.Values{"error": {code}, "error_description": {description}, "state": {q.Get("state")}, "iss": {s.issuer()}})
	}
	if q.Get("response_type") != "code" {
		back("unsupported_response_type", "only the authorization code flow (response_type=code) is supported")
		return
	}
	if q.Get("code_challenge") == "" || q.Get("code_challenge_method") != "S256" {
		back("invalid_request", "PKCE is required, with code_challenge_method=S256")
		return
	}
	if len(q.Get("code_challenge")) < 43 || len(q.Get("code_challenge")) > 128 {
		back("invalid_request", "code_challenge is not an S256 challenge")
		return
	}
	scopes := parseScopes(q.Get("scope"))
	if len(scopes) == 0 {
		scopes = s.scopes()
	}
	for _, sc := range scopes {
		if !slices.Contains(s.scopes(), sc) {
			back("invalid_scope", "unknown scope "+string(sc))
			return
		}
	}
	resource := q.Get("resource")
	if resource == "" {
		resource = s.resources()[0]
	}
	if !slices.Contains(s.resources(), resource) {
		back("invalid_target", "tokens are issued only for this server's resources")
		return
	}
	now := s.now()
	a := &authorization{
		ID: randomToken(), ClientID: c.ID, RedirectURI: redirect, Scope: joinScopes(scopes), Resource: resource,
		CodeChallenge: q.Get("code_challenge"), State: q.Get("state"), CSRF: randomToken(),
		Status: statusPending, CreatedAt: now, ExpiresAt: now.Add(PendingTTL),
	}
	if _, err := storage.Conn(ctx, s.db).NewInsert().Model(a).Exec(ctx); err != nil {
		page(w, http.StatusInternalServerError, "Something went wrong", "The request could not be kept; try again.")
		return
	}
	http.Redirect(w, r, PendingPath+a.ID, http.StatusFound)
}

func redirectTo(w http.ResponseWriter, r *http.Request, base string, v url.Values) {
	u, _ := url.Parse(base) // checked against the registration
	q := u.Query()
	for k, vs := range v {
		if len(vs) > 0 && vs[0] != "" {
			q.Set(k, vs[0])
		}
	}
	u.RawQuery = q.Encode()
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, u.String(), http.StatusSeeOther)
}

// pending loads a pending authorization for the signed-in person of r:
// it is bound to the first person who opens it, and nobody else sees it.
func (s *Server) pending(w http.ResponseWriter, r *http.Request) (*authorization, accounts.Session, bool) {
	ctx := r.Context()
	var sess accounts.Session
	if ck, err := r.Cookie(accounts.RefreshCookie); err == nil {
		sess, err = s.auth.SessionOf(ctx, ck.Value)
		if err != nil {
			page(w, http.StatusInternalServerError, "Something went wrong", "Your session could not be read; try again.")
			return nil, sess, false
		}
	}
	if !sess.Authenticated {
		page(w, http.StatusUnauthorized, "Sign in first", "Sign in with the link we mail you, then open this page again.")
		return nil, sess, false
	}
	a := new(authorization)
	err := storage.Conn(ctx, s.db).NewSelect().Model(a).Where("id = ?", r.PathValue("id")).Scan(ctx)
	if err == nil && a.UserID == nil {
		// Bind it to this person, unless someone else was first.
		_, err = storage.Conn(ctx, s.db).NewUpdate().Model((*authorization)(nil)).Set("user_id = ?", sess.UserID).
			Where("id = ? AND user_id IS NULL", a.ID).Exec(ctx)
		if err == nil {
			err = storage.Conn(ctx, s.db).NewSelect().Model(a).Where("id = ?", a.ID).Scan(ctx)
		}
	}
	if err != nil || a.UserID == nil || *a.UserID != sess.UserID || a.Status != statusPending || !s.now().Before(a.ExpiresAt) {
		page(w, http.StatusNotFound, "No such request", "This authorization request does not exist, has expired, or was already answered. Start again from the application.")
		return nil, sess, false
	}
	return a, sess, true
}

// consentPage shows who asks for what, and asks the person.
func (s *Server) consentPage(w http.ResponseWriter, r *http.Request) {
	a, sess, ok := s.pending(w, r)
	if !ok {
		return
	}
	c, err := s.client(r.Context(), a.ClientID)
	if err != nil || c == nil {
		page(w, http.StatusNotFound, "No such request", "The application is no longer registered.")
		return
	}
	docs := map[registry.Scope]string{}
	for _, d := range s.reg.ScopeDocs() {
		docs[d.Scope] = d.Doc
	}
	var scopes []scopeLine
	for _, sc := range parseScopes(a.Scope) {
		scopes = append(scopes, scopeLine{Name: string(sc), Doc: docs[sc]})
	}
	host := ""
	if u, err := url.Parse(a.RedirectURI); err == nil {
		host = u.Host
	}
	securePage(w)
	w.WriteHeader(http.StatusOK)
	_ = consentTemplate.Execute(w, consentView{
		Client: c.Name, Host: host, Registration: "registered itself here (Dynamic Client Registration); its name is its own claim",
		Email: sess.Email, Scopes: scopes, Action: PendingPath + a.ID, CSRF: a.CSRF,
	})
}

// decide records the person's answer and sends the browser back to the
// client, with a code or with access_denied.
func (s *Server) decide(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && o != s.issuer() {
		page(w, http.StatusForbidden, "Refused", "The answer must come from this server's own page.")
		return
	}
	a, _, ok := s.pending(w, r)
	if !ok {
		return
	}
	if subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(a.CSRF)) != 1 {
		page(w, http.StatusForbidden, "Refused", "The form is out of date; open the request again from the application.")
		return
	}
	ctx := r.Context()
	iss := s.issuer()
	if r.PostFormValue("decision") != "approve" {
		if s.settle(ctx, a.ID, statusDenied, nil, time.Time{}) {
			redirectTo(w, r, a.RedirectURI, url.Values{"error": {"access_denied"}, "error_description": {"the person declined"}, "state": {a.State}, "iss": {iss}})
			return
		}
		page(w, http.StatusConflict, "Already answered", "This request was already answered.")
		return
	}
	code := randomToken()
	h := digest(code)
	if !s.settle(ctx, a.ID, statusApproved, &h, s.now().Add(CodeTTL)) {
		page(w, http.StatusConflict, "Already answered", "This request was already answered.")
		return
	}
	redirectTo(w, r, a.RedirectURI, url.Values{"code": {code}, "state": {a.State}, "iss": {iss}})
}

// settle moves a pending authorization to status, once.
func (s *Server) settle(ctx context.Context, id, status string, codeHash *string, expires time.Time) bool {
	q := storage.Conn(ctx, s.db).NewUpdate().Model((*authorization)(nil)).Set("status = ?", status).
		Where("id = ? AND status = ?", id, statusPending)
	if codeHash != nil {
		q = q.Set("code_hash = ?", *codeHash).Set("expires_at = ?", expires)
	}
	res, err := q.Exec(ctx)
	if err != nil {
		return false
	}
	n, err := res.RowsAffected()
	return err == nil && n == 1
}

type scopeLine struct{ Name, Doc string }

type consentView struct {
	Client, Host, Registration, Email string
	Scopes                            []scopeLine
	Action, CSRF                      string
}

// securePage: never cached, never framed, nothing loaded from elsewhere.
// The referrer policy is same-origin, not no-referrer: under no-referrer a
// browser posts the consent form with "Origin: null", which decide must
// refuse; the client the browser is sent back to still sees no referrer.
func securePage(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
	w.Header().Set("Referrer-Policy", "same-origin")
}

func page(w http.ResponseWriter, status int, title, text string) {
	securePage(w)
	w.WriteHeader(status)
	_ = messageTemplate.Execute(w, struct{ Title, Text string }{title, text})
}

const style = `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}li{margin:.4rem 0}.who{color:#555}button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.6rem}</style>`

var consentTemplate = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Allow {{.Client}}?</title>` + style + `</head><body>
<h1>Allow <strong>{{.Client}}</strong> to use your Cairn account?</h1>
<p class="who">It answers at <strong>{{.Host}}</strong> and {{.Registration}}. You are signed in as {{.Email}}.</p>
<p>It asks to:</p>
<ul>{{range .Scopes}}<li><code>{{.Name}}</code>: {{.Doc}}</li>{{end}}</ul>
<form method="post" action="{{.Action}}">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit" name="decision" value="approve">Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form></body></html>
`))

var messageTemplate = template.Must(template.New("message").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.Title}}</title>` + style + `</head><body><h1>{{.Title}}</h1><p>{{.Text}}</p></body></html>
`))
