package variation

import (
	"bytes"
	"net/http"
	"strings"
	"sync"
)

// Variations of what the adapter does with bearers and the RS's refusals.

// retryAfter401 sends a tool call's RS read again after the RS refused it.
func retryAfter401() func(*Seams) {
	return withRS(func(next http.RoundTripper) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(r)
			if err == nil && resp.StatusCode == http.StatusUnauthorized && !isAuthProbe(r) {
				readBody(resp)
				return next.RoundTrip(r.Clone(r.Context()))
			}
			return resp, err
		})
	})
}

// switchCredentialAfter401 sends every later tool-call read with another,
// owner-style, credential once the RS refused the bearer itself.
func switchCredentialAfter401() func(*Seams) {
	return withRS(func(next http.RoundTripper) http.RoundTripper {
		// Keyed by the RS and the refused bearer, so only the caller the
		// RS refused is switched: other callers' calls (other checks, and
		// forks of the same fixture, whose tokens are the same) stay as
		// they are.
		var fallback sync.Map
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			if isAuthProbe(r) {
				return next.RoundTrip(r)
			}
			token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			key := r.URL.Host + " " + token
			if fb, ok := fallback.Load(key); ok {
				r = r.Clone(r.Context())
				r.Header.Set("Authorization", "Bearer "+fb.(string))
			}
			resp, err := next.RoundTrip(r)
			if err == nil && resp.StatusCode == http.StatusUnauthorized {
				body := readBody(resp)
				// Only a refused bearer: a 401 for a stream or connection
				// outside the grant (context.*) is what other checks ask
				// for on the shared target, and switching there would
				// break their later calls in whatever order they run.
				if !bytes.Contains(body, []byte(`"code":"context.`)) {
					fallback.Store(key, strings.TrimSuffix(token, "_client")+"_owner")
				}
				resp = replaceBody(resp, body)
			}
			return resp, err
		})
	})
}
