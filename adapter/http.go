package adapter

import (
	"container/list"
	"context"
	"crypto/sha256"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	json "github.com/segmentio/encoding/json"
)

// MCPPath is where the hosted endpoint lives.
const MCPPath = "/mcp"

// Paths of the hosted discovery documents (RFC 9728 path insertion).
const (
	MetadataPath    = "/.well-known/oauth-protected-resource"
	MCPMetadataPath = MetadataPath + MCPPath
	SetupPath       = "/connect"
	LLMsPath        = "/llms.txt"
	IconPath        = "/icon.svg"
)

// AuthProbeStream is a stream name no grant holds: asking the RS for its
// compact schema returns the bearer's kind and no data. Checks tell the
// probe from data reads by it.
const AuthProbeStream = "__pdpp_mcp_auth_probe__"

// Handler serves the hosted surface: stateless Streamable HTTP at /mcp,
// whose every request carries a bearer the RS has accepted as a
// grant-scoped client token, plus the protected-resource metadata, the
// setup page, /llms.txt and the icon.
func (a *Adapter) Handler() http.Handler {
	streamable := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server { return a.serverFor(a.origin(r)) },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true, MaxRequestBodyBytes: a.maxBody()})
	mux := http.NewServeMux()
	mux.Handle(MCPPath, a.requireClientBearer(a.guardMCP(streamable)))
	mux.HandleFunc("GET "+MCPMetadataPath, a.serveMCPMetadata)
	mux.HandleFunc("GET "+MetadataPath, a.serveRootMetadata)
	mux.HandleFunc("GET "+SetupPath, a.serveSetup)
	mux.HandleFunc("GET "+LLMsPath, a.serveLLMs)
	mux.HandleFunc("GET "+IconPath, serveIcon)
	var h http.Handler = mux
	for i := len(a.opts.HostedMiddleware) - 1; i >= 0; i-- {
		h = a.opts.HostedMiddleware[i](h)
	}
	return a.discardStrayBodies(guardHost(h))
}

// serves reports whether the hosted endpoint serves bearers of a kind.
func (a *Adapter) serves(kind string) bool { return slices.Contains(a.tune.TokenKinds, kind) }

// origin is the public origin a request reached: the configured one, the
// forwarded one when the operator trusts its proxy, else the request's own.
func (a *Adapter) origin(r *http.Request) string {
	if a.opts.PublicOrigin != "" {
		return strings.TrimRight(a.opts.PublicOrigin, "/")
	}
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if a.opts.TrustForwarded {
		if p := lastForwarded(r.Header.Values("X-Forwarded-Proto")); p == "http" || p == "https" {
			scheme = p
		}
		if h := lastForwarded(r.Header.Values("X-Forwarded-Host")); validHostPort(h) {
			host = h
		}
	}
	return scheme + "://" + host
}

// serverFor is the MCP server whose serverInfo names this origin's icon.
// Servers are kept per origin, the most recently used originCacheSize of
// them, since the tools never change: made-up Host names push each other
// out, and the real origin back in at its next request.
func (a *Adapter) serverFor(origin string) *mcp.Server {
	if s := a.hosted.get(origin); s != nil {
		return s
	}
	s := a.newServer([]mcp.Icon{{Source: origin + IconPath, MIMEType: "image/svg+xml", Sizes: []string{"any"}}})
	a.hosted.put(origin, s)
	return s
}

// A bearerVerdict is what the RS said about a bearer.
type bearerVerdict struct {
	kind    string // token_kind from the schema document's bearer
	status  int    // the RS's refusal status, when it refused
	code    string
	message string
	expires time.Time
}

// verifyBearer asks the RS whether a bearer is good and what kind it is: on
// every request, or once per Options.AuthCacheTTL when the operator opts
// in. A refusal is remembered for Options.RefusalCacheTTL, so a repeated
// invented bearer costs one RS check per TTL rather than one per request;
// acceptance is unchanged by it.
func (a *Adapter) verifyBearer(ctx context.Context, token string) bearerVerdict {
	ttl := a.opts.AuthCacheTTL
	key := sha256.Sum256([]byte(token))
	if v, ok := a.refused.get(key); ok {
		return v
	}
	if ttl > 0 {
		if v, ok := a.bearers.get(key); ok {
			return v
		}
	}
	v := a.probeBearer(ctx, token)
	switch {
	case v.status == http.StatusUnauthorized || v.status == http.StatusForbidden || v.status == 0 && !a.serves(v.kind):
		a.refused.put(key, v, a.refusalTTL())
	case v.status == 0 && ttl > 0:
		a.bearers.put(key, v, ttl)
	}
	return v
}

// probeBearer is one RS check of a bearer.
func (a *Adapter) probeBearer(ctx context.Context, token string) bearerVerdict {
	resp, err := a.rs.Get(ctx, token, "/v1/schema", url.Values{"view": {"compact"}, "stream": {AuthProbeStream}})
	var re *rsclient.Error
	switch {
	case errors.As(err, &re) && re.HTTPStatus == http.StatusForbidden && re.Code == "permission_error":
		// A bearer the RS knows but that may not read (control plane): refused, not challenged.
		return bearerVerdict{status: http.StatusForbidden, code: "permission_error", message: clientTokenOnly}
	case errors.As(err, &re) && (re.HTTPStatus == http.StatusUnauthorized || re.HTTPStatus == http.StatusForbidden):
		return bearerVerdict{status: http.StatusUnauthorized, code: "invalid_token", message: "the resource server refused the bearer: " + scrubBearer(re.Message, token)}
	case err != nil:
		return bearerVerdict{status: http.StatusServiceUnavailable, code: "rs_unavailable", message: "the resource server could not verify the bearer; try again"}
	}
	var doc struct {
		Bearer struct {
			Kind string `json:"token_kind"`
		} `json:"bearer"`
	}
	_ = json.Unmarshal(resp.Body, &doc)
	return bearerVerdict{kind: doc.Bearer.Kind}
}

const clientTokenOnly = "MCP requires a grant-scoped client token. Owner and control-plane bearers are REST credentials and are never accepted here."

// requireClientBearer lets a request through to MCP only with a bearer the
// RS accepts as a grant-scoped client token (seed 001: owner and
// control-plane bearers are refused, and never processed as MCP).
func (a *Adapter) requireClientBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := a.origin(r)
		// Refusals are decided from the headers alone, and end the
		// connection without reading (or waiting for) the body.
		w.Header().Set("Connection", "close")
		tok, ok := bearer(r.Header.Get("Authorization"))
		if !ok || tok == "" {
			a.challenge(w, origin, http.StatusUnauthorized, "authentication_error", "authentication_error", "Missing Bearer token")
			hangUp(w)
			return
		}
		v := a.verifyBearer(r.Context(), tok)
		switch {
		case v.status == http.StatusUnauthorized:
			a.challenge(w, origin, http.StatusUnauthorized, "authentication_error", v.code, v.message)
		case v.status == http.StatusForbidden, v.status == 0 && !a.serves(v.kind):
			writeHTTPError(w, http.StatusForbidden, map[string]any{"type": "permission_error", "code": "permission_error", "message": clientTokenOnly})
		case v.status != 0:
			writeHTTPError(w, v.status, map[string]any{"type": "api_error", "code": v.code, "message": v.message})
		default:
			w.Header().Del("Connection")
			next.ServeHTTP(w, r)
			return
		}
		hangUp(w)
	})
}

// challenge answers 401 with the RFC 9728 pointer to the MCP endpoint's
// protected-resource metadata, in the header and in the body.
func (a *Adapter) challenge(w http.ResponseWriter, origin string, status int, typ, code, msg string) {
	meta := origin + MCPMetadataPath
	body := map[string]any{"type": typ, "code": code, "message": msg}
	attrs := `Bearer resource_metadata="` + meta + `"`
	if code == "invalid_token" {
		attrs += `, error="invalid_token"`
	}
	w.Header().Set("WWW-Authenticate", attrs)
	body["resource_metadata"] = meta
	body["next_step"] = "Fetch error.resource_metadata and connect through it to get a grant-scoped client token."
	writeHTTPError(w, status, body)
}

func writeHTTPError(w http.ResponseWriter, status int, errObj map[string]any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"error": errObj})
}

// hostedState is what the hosted surface keeps between requests.
type hostedState struct {
	hosted  originCache  // origin -> *mcp.Server, most recently used
	bearers verdictCache // bearers the RS accepted, for Options.AuthCacheTTL
	calls   callRegistry // in-flight /mcp calls, for notifications/cancelled
	refused verdictCache // bearers the RS refused, for a few seconds
}

// originCacheSize bounds the per-origin servers kept.
const originCacheSize = 64

// originCache keeps the servers of the most recently used origins.
type originCache struct {
	mu    sync.Mutex
	order list.List // *originServer, most recent first
	at    map[string]*list.Element
}

type originServer struct {
	origin string
	srv    *mcp.Server
}

func (c *originCache) get(origin string) *mcp.Server {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.at[origin]
	if e == nil {
		return nil
	}
	c.order.MoveToFront(e)
	return e.Value.(*originServer).srv
}

func (c *originCache) put(origin string, s *mcp.Server) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.at == nil {
		c.at = map[string]*list.Element{}
	}
	if e := c.at[origin]; e != nil {
		c.order.MoveToFront(e)
		return
	}
	c.at[origin] = c.order.PushFront(&originServer{origin, s})
	if c.order.Len() > originCacheSize {
		delete(c.at, c.order.Remove(c.order.Back()).(*originServer).origin)
	}
}
