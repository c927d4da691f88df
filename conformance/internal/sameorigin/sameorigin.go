// Package sameorigin keeps a credential on the origin it was lent for: an
// HTTP client that carries one refuses a redirect to any other origin,
// and a bearer is added only to requests for its own origin.
package sameorigin

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Of is u's origin, scheme://host:port, lower-cased, with the scheme's
// default port made explicit so http://h and http://h:80 are one origin.
func Of(u *url.URL) string {
	scheme, port := strings.ToLower(u.Scheme), u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	return scheme + "://" + net.JoinHostPort(strings.ToLower(u.Hostname()), port)
}

// A RedirectError is a redirect refused because it leaves the origin the
// first request went to.
type RedirectError struct{ From, To string }

func (e *RedirectError) Error() string {
	return fmt.Sprintf("redirected to another origin (%s to %s); mcpcheck sends the bearer only to the origin you named", e.From, e.To)
}

// maxRedirects is net/http's own default bound.
const maxRedirects = 10

// CheckRedirect is an [http.Client] CheckRedirect for a client whose
// transport adds a credential: it follows redirects within the first
// request's origin and refuses one to any other origin.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if from, to := Of(via[0].URL), Of(req.URL); from != to {
		return &RedirectError{From: from, To: to}
	}
	if len(via) >= maxRedirects {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// CheckCredentialedRedirect refuses a cross-origin redirect of a request
// that carries Authorization or Cookie (net/http would forward them to
// the same host on another port or scheme); an anonymous request follows it.
func CheckCredentialedRedirect(req *http.Request, via []*http.Request) error {
	if via[0].Header.Get("Authorization") != "" || via[0].Header.Get("Cookie") != "" {
		return CheckRedirect(req, via)
	}
	if len(via) >= maxRedirects {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// Transport adds Header to the requests for Origin only, so no redirect,
// followed by whatever client, carries it anywhere else.
type Transport struct {
	Base   http.RoundTripper // nil means http.DefaultTransport
	Origin string            // as returned by [Of]
	Header http.Header
}

func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	if len(t.Header) == 0 || Of(req.URL) != t.Origin {
		return base.RoundTrip(req)
	}
	req = req.Clone(req.Context())
	for k, vs := range t.Header {
		req.Header[k] = vs
	}
	return base.RoundTrip(req)
}

// Client returns a client that adds header to requests for the origin of
// endpoint only and refuses redirects to any other origin.
func Client(base http.RoundTripper, endpoint string, header http.Header) (*http.Client, error) {
	u, err := url.Parse(endpoint)
	if err != nil {
		return nil, err
	}
	return &http.Client{Transport: &Transport{Base: base, Origin: Of(u), Header: header}, CheckRedirect: CheckRedirect}, nil
}
