package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestMetadataID: a client_id is a metadata document's address only as
// the draft allows it (§3).
func TestMetadataID(t *testing.T) {
	tests := []struct {
		id string
		ok bool
	}{
		{"https://app.example.com/oauth/client.json", true},
		{"https://app.example.com:8443/c", true},
		{"https://app.example.com", false},
		{"https://app.example.com/", false},
		{"https://user@app.example.com/c.json", false},
		{"https://app.example.com/c.json#x", false},
		{"https://app.example.com/a/../c.json", false},
		{"https://app.example.com/./c.json", false},
		{"https://app.example.com/" + strings.Repeat("a", 250), false},
	}
	for _, tt := range tests {
		err := checkMetadataID(tt.id)
		require.Equal(t, tt.ok, err == nil, "%s: %v", tt.id, err)
		if err != nil {
			var r *ClientRefusal
			require.ErrorAs(t, err, &r)
			require.Equal(t, "invalid_client_metadata", r.Code)
		}
	}
}

// TestParseMetadata: a document is judged against the URL it came from,
// and each refusal says what is wrong.
func TestParseMetadata(t *testing.T) {
	const id = "https://app.example.com/client.json"
	tests := []struct {
		name, body, refusal string
	}{
		{"valid", `{"client_id":"` + id + `","client_name":"App","redirect_uris":["http://127.0.0.1/cb"]}`, ""},
		{"valid, explicit public client", `{"client_id":"` + id + `","redirect_uris":["https://app.example.com/cb"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"],"response_types":["code"]}`, ""},
		{"not JSON", `<html>`, "not a JSON object"},
		{"another client_id", `{"client_id":"https://evil.example/client.json","redirect_uris":["http://127.0.0.1/cb"]}`, "not the URL it was fetched from"},
		{"no client_id", `{"redirect_uris":["http://127.0.0.1/cb"]}`, "not the URL it was fetched from"},
		{"no redirect_uris", `{"client_id":"` + id + `"}`, "between 1 and 8 redirect_uris"},
		{"a plain http redirect", `{"client_id":"` + id + `","redirect_uris":["http://app.example.com/cb"]}`, "plain http is for a loopback address only"},
		{"a secret", `{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/cb"],"client_secret":"s"}`, "no client_secret"},
		{"a confidential client", `{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, "public clients"},
		{"the implicit grant", `{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/cb"],"grant_types":["implicit"]}`, "unsupported grant type"},
		{"a long name", `{"client_id":"` + id + `","redirect_uris":["http://127.0.0.1/cb"],"client_name":"` + strings.Repeat("n", 101) + `"}`, "longer than 100"},
	}
	for _, tt := range tests {
		doc, err := parseMetadata(id, []byte(tt.body))
		if tt.refusal == "" {
			require.NoError(t, err, tt.name)
			require.Equal(t, id, doc.ClientID)
			continue
		}
		require.Nil(t, doc, tt.name)
		require.ErrorContains(t, err, tt.refusal, tt.name)
	}
}

// TestFreshFor: a document is kept as long as its answer says, within
// bounds.
func TestFreshFor(t *testing.T) {
	tests := map[string]time.Duration{
		"":                    MetadataFreshFor,
		"max-age=600":         10 * time.Minute,
		"public, max-age=5":   MinMetadataFresh,
		"max-age=999999999":   MaxMetadataFresh,
		"no-store":            MinMetadataFresh,
		"max-age=nonsense":    MetadataFreshFor,
		"Public, MAX-AGE=120": 2 * time.Minute,
	}
	for cc, want := range tests {
		require.Equal(t, want, freshFor(cc), cc)
	}
}

// TestFetcherLimits: the metadata fetch client refuses a loopback server
// unless the deployment allows its range, refuses a document over 5 KiB
// and a redirect, and each refusal is worded for the person.
func TestFetcherLimits(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/big.json":
			_, _ = w.Write([]byte(`{"client_name":"` + strings.Repeat("x", MaxMetadataDocument) + `"}`))
		case "/moved.json":
			http.Redirect(w, r, "/client.json", http.StatusFound)
		default:
			_, _ = w.Write([]byte(`{}`))
		}
	}))
	t.Cleanup(srv.Close)
	roots := srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	ctx := context.Background()

	_, err := NewFetcher(FetchPolicy{RootCAs: roots}).Get(ctx, srv.URL+"/client.json")
	require.ErrorContains(t, fetchRefusal(err), "private or local address", "loopback is refused by default")

	allowed := NewFetcher(FetchPolicy{RootCAs: roots, Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	res, err := allowed.Get(ctx, srv.URL+"/client.json")
	require.NoError(t, err)
	require.Equal(t, "{}", string(res.Body))

	_, err = allowed.Get(ctx, srv.URL+"/big.json")
	require.ErrorContains(t, fetchRefusal(err), "larger than 5 KiB")
	_, err = allowed.Get(ctx, srv.URL+"/moved.json")
	require.ErrorContains(t, fetchRefusal(err), "redirect")
	_, err = allowed.Get(ctx, strings.Replace(srv.URL, "https", "http", 1)+"/client.json")
	require.ErrorContains(t, fetchRefusal(err), "https")
	require.ErrorContains(t, fetchRefusal(errors.New("boom")), "could not be fetched")
}
