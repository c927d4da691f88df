package sameorigin

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

func TestOf(t *testing.T) {
	for in, want := range map[string]string{
		"http://Example.COM/mcp":       "http://example.com:80",
		"http://example.com:80/x":      "http://example.com:80",
		"HTTPS://example.com/":         "https://example.com:443",
		"https://example.com:8443/":    "https://example.com:8443",
		"http://[::1]:9/mcp":           "http://[::1]:9",
		"http://user:pw@host:1/?q=a#f": "http://host:1",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := Of(u); got != want {
			t.Errorf("Of(%s) = %s, want %s", in, got, want)
		}
	}
}

// seen is the Authorization header a server saw at each path.
type seen struct {
	mu   sync.Mutex
	auth map[string]string
}

func (s *seen) at(path string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.auth[path]
	return a, ok
}

func recordingServer(t *testing.T, redirect map[string]string) (*httptest.Server, *seen) {
	s := &seen{auth: map[string]string{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.auth[r.URL.Path] = r.Header.Get("Authorization")
		s.mu.Unlock()
		if to, ok := redirect[r.URL.Path]; ok {
			http.Redirect(w, r, to, http.StatusTemporaryRedirect)
			return
		}
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(srv.Close)
	return srv, s
}

// The client follows a redirect within its origin with the bearer, and
// refuses one to another origin (here: the same host on another port,
// where net/http alone would forward Authorization) without sending it.
func TestClientKeepsTheBearerOnItsOrigin(t *testing.T) {
	other, otherSeen := recordingServer(t, nil)
	srv, srvSeen := recordingServer(t, map[string]string{"/moved": "/mcp", "/away": other.URL + "/mcp"})
	hc, err := Client(nil, srv.URL+"/moved", http.Header{"Authorization": {"Bearer secret"}})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := hc.Post(srv.URL+"/moved", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatalf("same-origin redirect: %v", err)
	}
	resp.Body.Close()
	if a, _ := srvSeen.at("/mcp"); a != "Bearer secret" {
		t.Errorf("the same-origin target got Authorization %q", a)
	}
	_, err = hc.Post(srv.URL+"/away", "application/json", strings.NewReader("{}"))
	var refused *RedirectError
	if !errors.As(err, &refused) || refused.To != Of(mustParse(t, other.URL)) {
		t.Fatalf("cross-origin redirect: err %v, want a RedirectError to %s", err, other.URL)
	}
	if _, asked := otherSeen.at("/mcp"); asked {
		t.Errorf("the other origin was asked")
	}
	// A request to another origin made directly gets no bearer either.
	resp, err = hc.Get(other.URL + "/direct")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if a, _ := otherSeen.at("/direct"); a != "" {
		t.Errorf("a request to another origin carried Authorization %q", a)
	}
}

// An anonymous probe may follow a redirect anywhere; a credentialed one may not.
func TestCheckCredentialedRedirect(t *testing.T) {
	other, otherSeen := recordingServer(t, nil)
	srv, _ := recordingServer(t, map[string]string{"/away": other.URL + "/x"})
	hc := &http.Client{CheckRedirect: CheckCredentialedRedirect}
	resp, err := hc.Get(srv.URL + "/away")
	if err != nil {
		t.Fatalf("anonymous probe: %v", err)
	}
	resp.Body.Close()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/away", nil)
	req.Header.Set("Authorization", "Bearer secret")
	var refused *RedirectError
	if _, err := hc.Do(req); !errors.As(err, &refused) {
		t.Fatalf("credentialed probe: err %v, want a RedirectError", err)
	}
	if a, _ := otherSeen.at("/x"); a != "" {
		t.Errorf("the other origin received Authorization %q", a)
	}
}

func mustParse(t *testing.T, s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
