package hostile

import (
	"net/http"
	"sync"
)

// Redirecting modes, HTTP only: every request is redirected to
// Server.RedirectTo, to prove a client never carries its bearer there.
const (
	Redirect307 = "redirect-307"
	Redirect308 = "redirect-308"
)

// RedirectModes lists the redirecting modes.
var RedirectModes = []string{Redirect307, Redirect308}

var redirectStatus = map[string]int{Redirect307: http.StatusTemporaryRedirect, Redirect308: http.StatusPermanentRedirect}

// A Recorder is where a hostile server redirects to: it records every
// request's Authorization header, then hands the request to Next (a 404
// when Next is nil).
type Recorder struct {
	Next http.Handler

	mu   sync.Mutex
	seen []string
}

func (rec *Recorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rec.mu.Lock()
	rec.seen = append(rec.seen, r.Header.Get("Authorization"))
	rec.mu.Unlock()
	if rec.Next == nil {
		http.NotFound(w, r)
		return
	}
	rec.Next.ServeHTTP(w, r)
}

// Authorizations returns the Authorization header of every request
// received, "" for a request without one.
func (rec *Recorder) Authorizations() []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return append([]string(nil), rec.seen...)
}
