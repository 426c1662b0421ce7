package signin

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/como-technologies/riff/riffcore/wire"
)

// discoveryOf serves a discovery document that names issuer ("" names
// the server itself).
func discoveryOf(t *testing.T, issuer string) *httptest.Server {
	t.Helper()
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/.well-known/openid-configuration" {
			http.NotFound(w, r)
			return
		}
		iss := issuer
		if iss == "" {
			iss = srv.URL
		}
		json.NewEncoder(w).Encode(map[string]string{
			"issuer":                 iss,
			"authorization_endpoint": srv.URL + "/auth",
			"token_endpoint":         srv.URL + "/token",
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// TestGivenADiscoveryDocumentOfAnotherIssuerWhenRiffDiscoversThenItIsRefused:
// "The issuer value returned MUST be identical to the Issuer URL that
// was used as the prefix to /.well-known/openid-configuration" (OpenID
// Connect Discovery 1.0, §4.3), as go-oidc checks on the server.
func TestGivenADiscoveryDocumentOfAnotherIssuerWhenRiffDiscoversThenItIsRefused(t *testing.T) {
	ctx := context.Background()
	own := discoveryOf(t, "")
	ends, err := Discover(ctx, http.DefaultClient, own.URL)
	if err != nil || ends.AuthURL != own.URL+"/auth" {
		t.Fatalf("Discover of a document of its own issuer = %+v, %v; want its endpoints", ends, err)
	}
	other := discoveryOf(t, "https://accounts.example.com")
	_, err = Discover(ctx, http.DefaultClient, other.URL)
	want := "the discovery document of " + other.URL + ` names the issuer "https://accounts.example.com": riff signs in only with the issuer that the riff names (OpenID Connect Discovery 1.0, §4.3)`
	if err == nil || err.Error() != want {
		t.Errorf("Discover of a document of another issuer = %v; want %q", err, want)
	}
	// Identical means identical: a trailing slash is another issuer.
	if _, err := Discover(ctx, http.DefaultClient, own.URL+"/"); err == nil || !strings.Contains(err.Error(), "names the issuer") {
		t.Errorf("Discover of %s/ = %v; want a refusal: the document names %s", own.URL, err, own.URL)
	}
}

// TestGivenARiffWhoseProviderNamesAnotherIssuerWhenLoginRunsThenItIsRefusedAndChangesNothing:
// a login stops at the discovery with a fault of the provider, before
// any flow; no key and no sign-in are stored.
func TestGivenARiffWhoseProviderNamesAnotherIssuerWhenLoginRunsThenItIsRefusedAndChangesNothing(t *testing.T) {
	f := newFakeRiff(t)
	other := discoveryOf(t, "https://accounts.example.com")
	f.mu.Lock()
	f.issuer = other.URL
	f.mu.Unlock()
	dir := t.TempDir()
	m := machineOf(t, f, dir, nil)
	opened := false
	// A short wait: a login that took the document would wait for the
	// person in the browser flow, and end with the wait, not the refusal.
	_, err := m.Login(context.Background(), LoginOptions{Wait: time.Second, Open: func(string) error { opened = true; return nil }})
	var pe *ProviderError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), `names the issuer "https://accounts.example.com"`) {
		t.Fatalf("Login = %v; want the refusal of the discovery as a fault of the provider", err)
	}
	if opened {
		t.Error("Login opened a browser for a provider that it refused")
	}
	if _, err := os.Stat(filepath.Join(dir, signinDir)); !os.IsNotExist(err) {
		t.Errorf("the folder of the sign-in: %v; want none", err)
	}
	if n := f.count("/v1/signin"); n != 0 {
		t.Errorf("%d sign-ins sent; want none", n)
	}
}

func TestGivenARiffWithNoSignInWhenLoginRunsThenItSaysSo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(wire.HeaderBuild, testBuild)
		json.NewEncoder(w).Encode(map[string]any{})
	}))
	t.Cleanup(srv.Close)
	u := mustURL(t, srv.URL)
	m, err := Open(Options{Dir: t.TempDir(), Server: u, Client: testClient(t, u)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Login(context.Background(), LoginOptions{}); !errors.Is(err, ErrNoSignIn) {
		t.Errorf("Login at a riff with no sign-in = %v; want ErrNoSignIn", err)
	}
}

func TestGivenOptionsWithNoServerWhenOpenThenItSaysWhatIsMissing(t *testing.T) {
	if _, err := Open(Options{Dir: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "no server") {
		t.Errorf("Open with no server = %v; want the missing server named", err)
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
