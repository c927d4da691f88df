package adapter

import (
	"fmt"
	"net/http"
	"time"
)

// Defaults of the hosted adapter's limits; docs/SECURITY.md says why each.
const (
	DefaultReadTimeout  = 10 * time.Second
	DefaultWriteTimeout = 90 * time.Second
	DefaultIdleTimeout  = 30 * time.Second
	DefaultMaxConns     = 1024
	// The largest tools/call in the conformance suite is 334 bytes, and
	// every call becomes an RS GET whose URL carries its arguments (RS URL
	// limits are 8-16 KiB), so 64 KiB is generous yet keeps a stalled or
	// oversized body from holding more than that.
	DefaultMaxBodyBytes = 64 << 10
	// Headers arrive before any credential is checked: net/http's 1 MiB
	// let 1,000 connections push RSS to 564 MB. A bearer and the usual
	// headers take a few KiB.
	DefaultMaxHeaderBytes = 32 << 10
)

func orDefault[T int | int64 | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

// HTTPServer is an http.Server for Handler with the hosted limits: every
// request's headers and body must arrive within ReadTimeout, its headers
// fit in MaxHeaderBytes, its answer be written within WriteTimeout, an
// idle keep-alive connection lasts IdleTimeout, and at most MaxConns
// connections are open, MaxConnsPerClient of them from one address.
func (a *Adapter) HTTPServer() *http.Server {
	read := orDefault(a.opts.ReadTimeout, DefaultReadTimeout)
	maxConns := orDefault(a.opts.MaxConns, DefaultMaxConns)
	limit := newConnCap(maxConns, orDefault(a.opts.MaxConnsPerClient, max(1, maxConns/2)))
	return &http.Server{
		Handler:           a.Handler(),
		ReadHeaderTimeout: read,
		ReadTimeout:       read,
		WriteTimeout:      orDefault(a.opts.WriteTimeout, DefaultWriteTimeout),
		IdleTimeout:       orDefault(a.opts.IdleTimeout, DefaultIdleTimeout),
		MaxHeaderBytes:    orDefault(a.opts.MaxHeaderBytes, DefaultMaxHeaderBytes),
		ConnState:         limit.track,
		ConnContext:       limit.connContext,
	}
}

// discardStrayBodies hangs up on a request whose body nothing reads (every
// path but POST /mcp, which reads its own within limits): its answer says
// Connection: close, and the body is neither read nor waited for. net/http
// would otherwise drain up to 256 KB of it first, keeping the connection
// busy for as long as a client takes to send it. An answer that is not
// /mcp's (a page, a document, a refusal) must be written within the read
// timeout: they are small, and a client pipelining requests without
// reading the answers holds its connection no longer than that.
func (a *Adapter) discardStrayBodies(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != MCPPath {
			_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(orDefault(a.opts.ReadTimeout, DefaultReadTimeout)))
		}
		if r.ContentLength == 0 || r.URL.Path == MCPPath && r.Method == http.MethodPost {
			next.ServeHTTP(w, r)
			return
		}
		w.Header().Set("Connection", "close")
		next.ServeHTTP(w, r)
		hangUp(w)
	})
}

// fdReserve is the descriptors serve needs besides one per client
// connection and one per RS request in flight: the listener, the runtime's
// poller, stdio, and the RS client's idle pool (rsclient.MaxIdleConnsPerHost).
const fdReserve = 64 + 32

// fitConnsToFileLimit checks --max-conns against the open-file limit
// nofile (0: unknown). Each client connection takes a descriptor, and a
// call it carries one more to the RS. Past the limit, accept fails before
// the cap can evict anything, and everyone is locked out; so an explicit
// --max-conns that does not fit is a usage error (it asks for what the
// process cannot do), and the default is lowered to fit, with a warning
// (a default that refused to start under `ulimit -n 1024` would be worse).
func fitConnsToFileLimit(maxConns int, explicit bool, nofile uint64) (int, string, error) {
	if nofile == 0 || uint64(2*maxConns+fdReserve) <= nofile {
		return maxConns, "", nil
	}
	fits := 0
	if nofile > fdReserve {
		fits = int((nofile - fdReserve) / 2)
	}
	switch {
	case fits < 1:
		return 0, "", fmt.Errorf("the open-file limit (ulimit -n) is %d, too low to serve: it needs %d descriptors and 2 per connection", nofile, fdReserve)
	case explicit:
		return 0, "", fmt.Errorf("--max-conns %d: the open-file limit (ulimit -n) is %d, which fits at most %d connections (each may hold a second descriptor to the RS, and %d are reserved); raise the limit or lower --max-conns", maxConns, nofile, fits, fdReserve)
	}
	return fits, fmt.Sprintf("--max-conns lowered from %d to %d to fit the open-file limit (ulimit -n) of %d; raise the limit to allow more", maxConns, fits, nofile), nil
}
