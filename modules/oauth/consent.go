package oauth

import (
	"bytes"
	"context"
	"crypto/subtle"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"cairn.dev/cairn/modules/accounts"
	"cairn.dev/cairn/registry"
	"cairn.dev/cairn/storage"
)

// The consent is a pending authorization, declared in the registry as
// operations a person's browser calls: the page that shows it, and the
// approval and the denial its form posts. None is an MCP tool (the motive
// "needs a browser and a mailbox"), so that an agent cannot authorize
// itself. They are public by declaration: what stands for the person is
// the session cookie of the mailed sign-in (HttpOnly, SameSite=Lax), never
// a bearer token, and each answer needs the CSRF token of the page, which
// only that person's browser was shown.
const pendingRoute = "/oauth/pending-authorizations/{id}"

// Declare adds the consent operations and those of the page of connected
// applications (apps.go).
func (s *Server) Declare(reg *registry.Registry) {
	browser := registry.NotATool(registry.MotiveBrowserAndMailbox)
	pending := registry.ByURIVariable("id", s.pendingExists)
	registry.Add(reg, registry.Op[accounts.NoInput, ConsentPage]{
		ID: "oauth.pending_authorization", Summary: "The consent page of a pending authorization: which client asks for which scopes",
		HTTP: registry.Get(pendingRoute).WithPages(refusalPage), Tool: browser,
		Scope: registry.Public, Owner: pending, RateLimit: registry.NoRateLimit,
		Validate: registry.NotValidated, Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm: registry.NoConfirm, Idempotency: registry.NotACreation,
		Hints:  registry.Hints{ReadOnly: true, Idempotent: true},
		Handle: s.consent,
	})
	for _, d := range []struct {
		id, summary, path string
		approve           bool
	}{
		{"oauth.approve_authorization", "Approve a pending authorization: the browser goes back to the client with a code", "/approve", true},
		{"oauth.deny_authorization", "Deny a pending authorization: the browser goes back to the client with access_denied", "/deny", false},
	} {
		registry.Add(reg, recorded(registry.Op[DecisionInput, SentBack]{
			ID: d.id, Summary: d.summary,
			HTTP: registry.Post(pendingRoute+d.path, http.StatusSeeOther).WithForm().WithPages(refusalPage), Tool: browser,
			Scope: registry.Public, Owner: pending, RateLimit: registry.NoRateLimit,
			Lock: registry.NoLock, Precondition: registry.NoPrecondition,
			Confirm: decisionConfirm, Idempotency: registry.NotACreation,
			Hints: registry.Hints{Destructive: !d.approve},
			Handle: func(ctx context.Context, c *registry.Call, in *DecisionInput) (SentBack, error) {
				return s.decide(ctx, c, in, d.approve)
			},
		}, checkDecision))
	}
	registry.Add(reg, recorded(registry.Op[SignInInput, LinkSent]{
		ID: "oauth.pending_sign_in", Summary: "Ask, from the consent page, for a sign-in link that brings the browser back to it",
		HTTP: registry.Post(pendingRoute+"/sign-in", http.StatusOK).WithForm().WithPages(refusalPage), Tool: browser,
		Scope: registry.Public, Owner: pending, RateLimit: accounts.RequestLinkLimit,
		Lock: registry.NoLock, Precondition: registry.NoPrecondition,
		Confirm:     registry.NoConfirmBecause("asking for a sign-in link changes nothing but the request's wait"),
		Idempotency: registry.NotACreation, Hints: registry.Hints{OpenWorld: true},
		Handle: s.askLink,
	}, checkSignIn))
	s.declareApps(reg)
}

// SignInInput is what the consent page's sign-in form posts.
type SignInInput struct {
	Email string `json:"email" maxLength:"254" doc:"The person's address: a sign-in link goes to it if it belongs to an account."`
}

// RecordVersion implements registry.Record.
func (*SignInInput) RecordVersion() int64 { return 0 }

func checkSignIn(in *SignInInput) []registry.Violation { return required("email", in.Email) }

// PendingWait is how long a pending authorization waits, at most, for a
// person who asked for a sign-in link from its consent page: the link's
// own life, within an hour of the request.
const PendingWait = accounts.MagicLinkTTL

// askLink mails a sign-in link leading back to this consent, and lets the
// pending authorization wait for it: the same neutral answer whoever asks.
func (s *Server) askLink(ctx context.Context, c *registry.Call, in *SignInInput) (LinkSent, error) {
	sent := LinkSent{product: s.auth.Words().Title}
	email, verr := accounts.NormalizeEmail("email", in.Email)
	if verr != nil {
		return LinkSent{}, verr // judged before anything is written
	}
	if c.Limited {
		return sent, nil // silent, as POST /auth/request-link
	}
	id := c.Var("id")
	a := new(authorization)
	if err := storage.Conn(ctx, s.db).NewSelect().Model(a).Where("id = ?", id).Scan(ctx); err != nil {
		return LinkSent{}, registry.Fail(registry.KindNotFound, registry.NotFoundDetail)
	}
	until := s.now().Add(PendingWait)
	if limit := a.CreatedAt.Add(time.Hour); until.After(limit) {
		until = limit
	}
	if _, err := storage.Conn(ctx, s.db).NewUpdate().Model((*authorization)(nil)).Set("expires_at = ?", until).
		Where("id = ? AND status = ? AND expires_at < ?", id, statusPending, until).Exec(ctx); err != nil {
		return LinkSent{}, registry.Internal(err)
	}
	if verr := s.auth.RequestLinkBack(ctx, email, PendingPath+id); verr != nil {
		return LinkSent{}, verr
	}
	return sent, nil
}

// LinkSent is the consent's answer to a sign-in request: the neutral text
// and what to do next.
type LinkSent struct{ product string }

// WritePage implements registry.Page.
func (p LinkSent) WritePage(w io.Writer) error {
	return linkSentTemplate.Execute(w, struct{ Product string }{p.product})
}

// AsPage implements registry.Negotiated.
func (p LinkSent) AsPage() registry.Page { return p }

// ContentSecurityPolicy implements registry.PagePolicy.
func (LinkSent) ContentSecurityPolicy() string { return strictPolicy }

var linkSentTemplate = template.Must(template.New("sent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Check your mail</title>` + style + `</head><body><h1>Check your mail</h1>
<p id="link-sent">If this address belongs to a {{.Product}} account, a sign-in link is on its way. Open it in this browser:
once you press its button, it brings you back to this request, which waits for you for 30 minutes.</p></body></html>
`))

// decisionConfirm is the consent decisions' confirmation: the consent page
// is where the person decides, so it asks nothing more, and a denied
// client can ask again.
var decisionConfirm = registry.NoConfirmBecause("the person decides on the consent page itself; a denied client can ask again")

// pendingIDLength is the length of a pending authorization's id
// (randomToken: 32 bytes, base64url).
const pendingIDLength = 43

// pendingExists is the owner rule of the consent operations: the id names
// a pending authorization that is still open. Whose it is comes from the
// session cookie, in the handler.
func (s *Server) pendingExists(ctx context.Context, _ string, id string) (bool, error) {
	if len(id) != pendingIDLength {
		return false, nil
	}
	n, err := storage.Conn(ctx, s.db).NewSelect().Model((*authorization)(nil)).
		Where("id = ? AND status = ? AND expires_at > ?", id, statusPending, s.now()).Count(ctx)
	return n == 1, err
}

// errSignIn is the refusal of a consent without a session.
var errSignIn = registry.Fail(registry.KindUnauthenticated,
	"sign in first: open the sign-in link mailed to you (POST /auth/request-link asks for one), then this page again; "+
		"a consent is given in the browser, never with a bearer token")

// pending loads the pending authorization a call names, for the person
// whose session cookie it carries: it is bound to the first person who
// opens it, and anyone else is told it does not exist.
func (s *Server) pending(ctx context.Context, c *registry.Call) (*authorization, accounts.Session, error) {
	sess, err := s.session(ctx, c)
	if err != nil {
		return nil, sess, err
	}
	id := c.Var("id")
	_, err = storage.Conn(ctx, s.db).NewUpdate().Model((*authorization)(nil)).Set("user_id = ?", sess.UserID).
		Where("id = ? AND user_id IS NULL", id).Exec(ctx)
	if err != nil {
		return nil, sess, registry.Internal(err)
	}
	a := new(authorization)
	err = storage.Conn(ctx, s.db).NewSelect().Model(a).Where("id = ?", id).Scan(ctx)
	if storage.NoRows(err) || (err == nil && (a.UserID == nil || *a.UserID != sess.UserID || a.Status != statusPending || !s.now().Before(a.ExpiresAt))) {
		return nil, sess, registry.Fail(registry.KindNotFound, registry.NotFoundDetail)
	}
	if err != nil {
		return nil, sess, registry.Internal(err)
	}
	return a, sess, nil
}

// consent shows who asks for what; to a person not signed in, who asks
// and a form to ask for the sign-in link that brings them back.
func (s *Server) consent(ctx context.Context, c *registry.Call, _ *accounts.NoInput) (ConsentPage, error) {
	a, sess, err := s.pending(ctx, c)
	if err == errSignIn {
		return s.signInFirst(ctx, c)
	}
	if err != nil {
		return ConsentPage{}, err
	}
	cl, err := s.client(ctx, a.ClientID, "")
	if err != nil || cl == nil {
		return ConsentPage{}, registry.Fail(registry.KindNotFound, "the application is no longer known here; start again from the application")
	}
	docs := map[registry.Scope]string{}
	for _, d := range s.reg.ScopeDocs() {
		docs[d.Scope] = d.Doc
	}
	v := consentView{Client: cl.Name, Product: s.auth.Words().Title, Email: sess.Email, Action: PendingPath + a.ID, CSRF: a.CSRF}
	for _, sc := range parseScopes(a.Scope) {
		v.Scopes = append(v.Scopes, scopeLine{Name: string(sc), Doc: docs[sc]})
	}
	back, err := url.Parse(a.RedirectURI) // checked against the client's
	if err != nil || redirectProblem(a.RedirectURI) != "" {
		// Kept before the grammar was this strict: it reaches no header.
		return ConsentPage{}, registry.Fail(registry.KindNotFound, "the application's return address is no longer accepted here; start again from the application")
	}
	v.ReturnHost = back.Host
	if cl.selfDescribed() {
		u, _ := url.Parse(cl.ID) // checked before it was fetched
		v.Host, v.Kind = u.Host, "Self-described"
		v.Registration = "It is not registered here: it describes itself in a metadata document at " + cl.ID +
			" (Client ID Metadata Document), fetched from that host. Its name is that document's claim."
	} else {
		v.Host, v.Kind = back.Host, "Registered"
		v.Registration = "It registered itself here (Dynamic Client Registration). Its name is its own claim, checked by nobody."
	}
	return ConsentPage{view: v, formTarget: formSource(back)}, nil
}

// signInFirst is the consent page of a person not signed in: the
// application's name and the form asking for a link.
func (s *Server) signInFirst(ctx context.Context, c *registry.Call) (ConsentPage, error) {
	a := new(authorization)
	if err := storage.Conn(ctx, s.db).NewSelect().Model(a).Where("id = ?", c.Var("id")).Scan(ctx); err != nil {
		return ConsentPage{}, registry.Fail(registry.KindNotFound, registry.NotFoundDetail)
	}
	name := "An application"
	if cl, err := s.storedClient(ctx, a.ClientID); err == nil && cl != nil {
		name = cl.Name
	}
	return ConsentPage{signIn: true, view: consentView{Client: name, Product: s.auth.Words().Title, Action: PendingPath + a.ID}}, nil
}

// DecisionInput is what the consent form posts.
type DecisionInput struct {
	CSRF string `json:"csrf" maxLength:"64" doc:"The CSRF token of the consent page's form."`
}

// RecordVersion implements registry.Record: the form's fields are what a
// decision records, judged before any handler runs.
func (*DecisionInput) RecordVersion() int64 { return 0 }

func checkDecision(in *DecisionInput) []registry.Violation { return required("csrf", in.CSRF) }

// recorded declares a write of a form whose record is its input, trimmed
// and judged by check.
func recorded[I any, O any, PI interface {
	*I
	registry.Record
}](o registry.Op[I, O], check func(*I) []registry.Violation) registry.Op[I, O] {
	o.Merge = func(_ context.Context, _ *registry.Call, in *I) (registry.Record, error) {
		cp := *in
		return PI(&cp), nil
	}
	o.Validate = registry.ValidateWith(func(r registry.Record) []registry.Violation { return check(any(r).(*I)) })
	o.Record = PI(nil)
	return o
}

func required(field, v string) []registry.Violation {
	if strings.TrimSpace(v) == "" {
		return []registry.Violation{{Field: field, Reason: "is required"}}
	}
	return nil
}

// decide records the person's answer and sends the browser back to the
// client, with a code or with access_denied (and the RFC 9207 iss).
func (s *Server) decide(ctx context.Context, c *registry.Call, in *DecisionInput, approve bool) (SentBack, error) {
	a, _, err := s.pending(ctx, c)
	if err != nil {
		return SentBack{}, err
	}
	if subtle.ConstantTimeCompare([]byte(in.CSRF), []byte(a.CSRF)) != 1 {
		return SentBack{}, registry.Invalid("the form is out of date; open the request again from the application",
			registry.Violation{Field: "csrf", Reason: "is not this page's token; open the page again"})
	}
	answered := registry.Fail(registry.KindConflict, "this request was already answered; start again from the application")
	if !approve {
		if !s.settle(ctx, a.ID, statusDenied, nil, time.Time{}) {
			return SentBack{}, answered
		}
		return sentBack(a.RedirectURI, url.Values{"error": {"access_denied"}, "error_description": {"the person declined"}, "state": {a.State}, "iss": {s.issuer()}}), nil
	}
	code := randomToken()
	h := digest(code)
	if !s.settle(ctx, a.ID, statusApproved, &h, s.now().Add(CodeTTL)) {
		return SentBack{}, answered
	}
	return sentBack(a.RedirectURI, url.Values{"code": {code}, "state": {a.State}, "iss": {s.issuer()}}), nil
}

// SentBack is where a decision sends the browser (303 See Other): the
// client's redirect URI with the answer in its query.
type SentBack struct{ location string }

// ResourceLocation implements registry.Located.
func (b SentBack) ResourceLocation() string { return b.location }

// AsPage implements registry.Negotiated: a decision is a redirect,
// whoever asks; only its refusals are pages.
func (SentBack) AsPage() registry.Page { return nil }

func sentBack(base string, v url.Values) SentBack {
	u, _ := url.Parse(base) // checked against the client's
	q := u.Query()
	for k, vs := range v {
		if len(vs) > 0 && vs[0] != "" {
			q.Set(k, vs[0])
		}
	}
	u.RawQuery = q.Encode()
	return SentBack{location: u.String()}
}

// ConsentPage is the consent, as the person's browser shows it.
type ConsentPage struct {
	view       consentView
	formTarget string // the client's origin, where the answer sends the browser
	signIn     bool   // the person is not signed in: the form asks for a link
}

// WritePage implements registry.Page.
func (p ConsentPage) WritePage(w io.Writer) error {
	if p.signIn {
		return signInFirstTemplate.Execute(w, p.view)
	}
	return consentTemplate.Execute(w, p.view)
}

// AsPage implements registry.Negotiated: the consent is a page, whoever
// asks.
func (p ConsentPage) AsPage() registry.Page { return p }

// ContentSecurityPolicy implements registry.PagePolicy: no script at all,
// and forms may post here only. Browsers apply form-action to the
// redirects that follow a submission too, so the client's own origin is
// named: the 303 to its redirect URI is that redirect.
func (p ConsentPage) ContentSecurityPolicy() string {
	if p.signIn {
		return "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
	}
	return "default-src 'none'; style-src 'unsafe-inline'; form-action 'self' " + p.formTarget +
		"; base-uri 'none'; frame-ancestors 'none'"
}

// refusalPage shows a refusal to the person, for a browser that asked for
// a page.
func refusalPage(e *registry.Error) registry.Page {
	title := "Refused"
	switch e.Kind {
	case registry.KindUnauthenticated:
		title = "Sign in first"
	case registry.KindNotFound:
		title = "No such request"
	case registry.KindConflict:
		title = "Already answered"
	case registry.KindInvalid:
		title = "Out of date"
	case registry.KindInternal, registry.KindUnavailable:
		title = "Something went wrong"
	}
	var b bytes.Buffer
	_ = messageTemplate.Execute(&b, struct{ Title, Text string }{title, e.Detail})
	return registry.StaticPage{HTML: b.Bytes(), Policy: strictPolicy}
}

// strictPolicy: nothing loaded, nothing run, nothing posted, never framed.
const strictPolicy = "default-src 'none'; style-src 'unsafe-inline'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'"

type scopeLine struct{ Name, Doc string }

type consentView struct {
	Client, Product, Host, Kind, Registration, ReturnHost, Email string
	Scopes                                                       []scopeLine
	Action, CSRF                                                 string
}

const style = `<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}
h1{font-size:1.4rem}li{margin:.4rem 0}.who{color:#555}.kind{display:inline-block;padding:0 .4rem;border-radius:.3rem;background:#eee;font-size:.85rem}
button{font-size:1rem;padding:.5rem 1.2rem;margin-right:.6rem}table{border-collapse:collapse}td,th{padding:.3rem .6rem;text-align:left;border-bottom:1px solid #ddd}.date{white-space:nowrap}</style>`

var consentTemplate = template.Must(template.New("consent").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Allow {{.Client}}?</title>` + style + `</head><body>
<h1>Allow <strong id="client">{{.Client}}</strong> to use your {{.Product}} account?</h1>
<p class="who"><span class="kind" id="kind">{{.Kind}}</span> from <strong id="host">{{.Host}}</strong>. <span id="registration">{{.Registration}}</span>
After your answer, you go back to <strong>{{.ReturnHost}}</strong>. You are signed in as {{.Email}}.</p>
<p>It asks to:</p>
<ul id="scopes">{{range .Scopes}}<li><code>{{.Name}}</code>: {{.Doc}}</li>{{end}}</ul>
<form method="post" action="{{.Action}}/approve">
<input type="hidden" name="csrf" value="{{.CSRF}}">
<button type="submit" id="approve">Allow</button>
<button type="submit" id="deny" formaction="{{.Action}}/deny">Deny</button>
</form></body></html>
`))

var signInFirstTemplate = template.Must(template.New("signin-first").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Sign in to answer {{.Client}}</title>` + style + `</head><body>
<h1><strong id="client">{{.Client}}</strong> asks to use your {{.Product}} account</h1>
<p>Sign in first: give your address, and open the link mailed to you in this browser. It brings you back here to allow or deny.</p>
<form method="post" action="{{.Action}}/sign-in">
<p><label>Your address <input type="email" id="signin-email" name="email" required maxlength="180" autocomplete="email"></label></p>
<button type="submit" id="signin-send">Mail me a sign-in link</button>
</form></body></html>
`))

var messageTemplate = template.Must(template.New("message").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>{{.Title}}</title>` + style + `</head><body><h1>{{.Title}}</h1><p id="message">{{.Text}}</p></body></html>
`))

// page answers a request of the authorization endpoint that cannot go
// back to the client, as a page.
func page(w http.ResponseWriter, status int, title, text string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", strictPolicy)
	w.Header().Set("X-Frame-Options", "DENY") // for browsers that predate frame-ancestors
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.WriteHeader(status)
	_ = messageTemplate.Execute(w, struct{ Title, Text string }{title, text})
}
