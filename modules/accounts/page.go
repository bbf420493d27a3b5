package accounts

import (
	"context"
	"html/template"
	"io"

	"cairn.dev/cairn/registry"
)

// SignInPage is what a mailed sign-in link opens in a browser. Opening it
// consumes nothing (mail scanners open links too): the person presses the
// button, and the page posts the token to /auth/verify, which keeps the
// person signed in to this server's own pages with the session cookie.
// It shows no token: it goes back where the link was asked from (an OAuth
// consent) or offers the page of connected applications and tokens. A
// link that cannot sign in offers to mail a new one.
type SignInPage struct{ token, title string }

// WritePage implements registry.Page.
func (p SignInPage) WritePage(w io.Writer) error {
	return signInPage.Execute(w, struct{ Token, Title string }{p.token, p.title})
}

// linkTokenShape tells a link token (hex, as mailed) from anything else; it
// looks nothing up, so every caller is answered alike.
func linkTokenShape(_ context.Context, _, token string) (bool, error) {
	if len(token) < 32 || len(token) > 256 {
		return false, nil
	}
	for _, r := range token {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false, nil
		}
	}
	return true, nil
}

func (a *Auth) declarePage(reg *registry.Registry) {
	registry.Add(reg, registry.Op[NoInput, SignInPage]{
		ID: "auth.verify_page", Summary: "The page a mailed sign-in link opens",
		HTTP: registry.Get("/auth/verify/{token}"), Tool: registry.NotATool(registry.MotiveBrowserAndMailbox),

		Scope:        registry.Public,
		Owner:        registry.ByURIVariable("token", linkTokenShape),
		RateLimit:    registry.NoRateLimit,
		Validate:     registry.NotValidated,
		Lock:         registry.NoLock,
		Precondition: registry.NoPrecondition,
		Confirm:      registry.NoConfirm,
		Idempotency:  registry.NotACreation,
		Hints:        registry.Hints{ReadOnly: true, Idempotent: true},

		Handle: func(_ context.Context, c *registry.Call, _ *NoInput) (SignInPage, error) {
			return SignInPage{token: c.Var("token"), title: a.words.Title}, nil
		},
	})
}

var signInPage = template.Must(template.New("signin").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign in to {{.Title}}</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem;color:#222}
button{font:inherit;padding:.5rem 1.25rem;border:0;border-radius:.3rem;background:#2d6a4f;color:#fff;cursor:pointer}
input{font:inherit;padding:.4rem}
.error{color:#a4161a}
</style></head>
<body>
<h1>Sign in to {{.Title}}</h1>
<p>This link signs you in once, within 30 minutes of being sent.</p>
<form id="signin" data-token="{{.Token}}"><button type="submit">Sign in</button></form>
<div id="result" hidden>
<p id="done">You are signed in to {{.Title}} in this browser.</p>
<p><a id="back" href="/account/apps">Your connected applications and tokens</a></p>
</div>
<div id="failed" hidden>
<p id="error" class="error"></p>
<form id="again"><p><label>Your address <input type="email" name="email" required maxlength="180" autocomplete="email"></label>
<button type="submit">Send me a new link</button></p></form>
<p id="sent" hidden></p>
</div>
<script>
document.getElementById("signin").addEventListener("submit", async function (e) {
  e.preventDefault();
  var form = e.target;
  form.hidden = true;
  try {
    var res = await fetch("/auth/verify", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({token: form.dataset.token, keepSignedIn: true})});
    var body = await res.json();
    if (!res.ok) { throw new Error(body.detail || body.error || res.statusText); }
    if (body.next && body.next.charAt(0) === "/" && body.next.charAt(1) !== "/") {
      document.getElementById("back").href = body.next;
      document.getElementById("back").textContent = "Back to where you asked for the link";
      document.getElementById("result").hidden = false;
      location.replace(body.next);
      return;
    }
    document.getElementById("result").hidden = false;
  } catch (x) {
    document.getElementById("error").textContent = "This link cannot sign you in (" + x.message + ").";
    document.getElementById("failed").hidden = false;
  }
});
document.getElementById("again").addEventListener("submit", async function (e) {
  e.preventDefault();
  var sent = document.getElementById("sent");
  try {
    var res = await fetch("/auth/request-link", {method: "POST", headers: {"Content-Type": "application/json"},
      body: JSON.stringify({email: e.target.elements.email.value})});
    var body = await res.json();
    sent.textContent = body.message || body.detail || res.statusText;
  } catch (x) {
    sent.textContent = "The request could not be sent (" + x.message + "); try again.";
  }
  e.target.hidden = true;
  sent.hidden = false;
});
</script>
</body></html>
`))
