package variation

import (
	"net/http"
	"strconv"

	"github.com/pdpp-connect/mcpcheck/adapter"
)

// The hosted seam: a wrapper around the adapter's hosted handler (inside
// its Host check), which sees every HTTP request and answer.

// withHosted is an Apply that wraps the hosted handler.
func withHosted(wrap func(opts *adapter.Options, next http.Handler) http.Handler) func(*Seams) {
	return func(s *Seams) {
		s.Options(func(o *adapter.Options) {
			opts := *o
			o.HostedMiddleware = append(o.HostedMiddleware, func(next http.Handler) http.Handler { return wrap(&opts, next) })
		})
	}
}

// An answer is a held HTTP answer a variation may rewrite before it goes out.
type answer struct {
	status int
	header http.Header
	body   []byte
}

// onAnswer holds the answers to the requests match selects whose status
// when accepts, and lets f rewrite them; other answers pass unchanged.
func onAnswer(match func(*http.Request) bool, when func(status int) bool, f func(r *http.Request, a *answer)) func(*Seams) {
	return withHosted(func(_ *adapter.Options, next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if !match(r) {
				next.ServeHTTP(w, r)
				return
			}
			hw := &holdingWriter{ResponseWriter: w, when: when}
			next.ServeHTTP(hw, r)
			if hw.held == nil {
				return
			}
			hw.held.header = w.Header()
			f(r, hw.held)
			w.Header().Set("Content-Length", strconv.Itoa(len(hw.held.body)))
			w.WriteHeader(hw.held.status)
			_, _ = w.Write(hw.held.body)
		})
	})
}

// A holdingWriter holds an answer whose status when accepts.
type holdingWriter struct {
	http.ResponseWriter
	when  func(int) bool
	held  *answer
	wrote bool
}

func (w *holdingWriter) WriteHeader(status int) {
	if w.wrote {
		return
	}
	w.wrote = true
	if w.when(status) {
		w.held = &answer{status: status}
		return
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *holdingWriter) Write(b []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	if w.held != nil {
		w.held.body = append(w.held.body, b...)
		return len(b), nil
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection (deadlines).
func (w *holdingWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// path and status matchers
func hostedPath(p string) func(*http.Request) bool {
	return func(r *http.Request) bool { return r.URL.Path == p }
}

func statusIs(codes ...int) func(int) bool {
	return func(s int) bool {
		for _, c := range codes {
			if s == c {
				return true
			}
		}
		return false
	}
}
