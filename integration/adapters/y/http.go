package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"
)

type httpFront struct {
	srv *Server

	mu      sync.Mutex
	asCache []any
}

func serveHTTP(srv *Server, port int) error {
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", port))
	if err != nil {
		return err
	}
	h := &httpFront{srv: srv}
	mux := http.NewServeMux()
	mux.HandleFunc("/mcp", h.mcp)
	mux.HandleFunc("/.well-known/oauth-protected-resource/mcp", h.metadata)
	mux.HandleFunc("/.well-known/oauth-protected-resource", h.metadata)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(os.Stdout, "mcp_url=http://%s/mcp\n", ln.Addr().String())
	os.Stdout.Sync()
	srv.logger.Printf("serving MCP Streamable HTTP on http://%s/mcp (RS %s)", ln.Addr().String(), srv.rs.URL("", nil))
	return hs.Serve(ln)
}

func origin(r *http.Request) string { return "http://" + r.Host }

func (h *httpFront) metadataURL(r *http.Request) string {
	return origin(r) + "/.well-known/oauth-protected-resource/mcp"
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (h *httpFront) challenge(w http.ResponseWriter, r *http.Request, status int, code, msg string) {
	md := h.metadataURL(r)
	if status == 401 {
		w.Header().Set("WWW-Authenticate", fmt.Sprintf(`Bearer resource_metadata="%s"`, md))
	}
	typ := map[int]string{401: "authentication_error", 403: "permission_error"}[status]
	e := map[string]any{"type": firstNonEmpty(typ, "api_error"), "code": code, "message": msg}
	if status == 401 {
		e["resource_metadata"] = md
		e["next_step"] = "Fetch error.resource_metadata, then obtain a grant-scoped PDPP client token from the listed authorization server; owner tokens are not accepted."
	}
	writeJSON(w, status, map[string]any{"error": e})
}

func loopbackOrigin(o string) bool {
	u, err := url.Parse(o)
	if err != nil {
		return false
	}
	h := u.Hostname()
	return h == "127.0.0.1" || h == "localhost" || h == "::1"
}

func (h *httpFront) mcp(w http.ResponseWriter, r *http.Request) {
	if o := r.Header.Get("Origin"); o != "" && !loopbackOrigin(o) {
		writeJSON(w, 403, map[string]any{"error": map[string]any{"type": "permission_error", "code": "origin_not_allowed", "message": "Cross-origin MCP requests are not accepted."}})
		return
	}
	switch r.Method {
	case http.MethodPost:
	case http.MethodDelete:
		w.WriteHeader(http.StatusNoContent) // stateless sessions: nothing to tear down
		return
	default:
		w.Header().Set("Allow", "POST, DELETE")
		writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"error": map[string]any{"type": "invalid_request_error", "code": "method_not_allowed", "message": "This server does not stream; POST JSON-RPC messages to /mcp."}})
		return
	}
	authz := r.Header.Get("Authorization")
	token := ""
	if strings.HasPrefix(authz, "Bearer ") {
		token = strings.TrimSpace(strings.TrimPrefix(authz, "Bearer "))
	}
	if token == "" {
		h.challenge(w, r, 401, "authentication_error", "Missing Bearer token")
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 60*time.Second)
	defer cancel()
	kind, rerr := h.srv.rs.TokenKind(ctx, token)
	switch {
	case rerr != nil && rerr.Status == 401:
		h.challenge(w, r, 401, firstNonEmpty(rerr.Code(), "authentication_error"), firstNonEmpty(rerr.Message(), "Invalid or expired token"))
		return
	case rerr != nil && rerr.Status == 403:
		h.challenge(w, r, 403, firstNonEmpty(rerr.Code(), "permission_error"), rerr.Message())
		return
	case rerr == nil && kind != "client" && kind != "unknown":
		h.challenge(w, r, 403, "permission_error", "MCP requires a grant-scoped PDPP client token; owner and control-plane bearers are rejected.")
		return
	}
	// rerr of another kind (RS unreachable): continue; tools/call fails closed.
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		writeJSON(w, 400, map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32700, "message": "could not read body"}})
		return
	}
	isInit := strings.Contains(string(body), `"initialize"`)
	resp := h.srv.Handle(ctx, body, token)
	if resp == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if isInit {
		w.Header().Set("Mcp-Session-Id", newSessionID())
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(200)
	w.Write(resp)
}

func newSessionID() string {
	b := make([]byte, 16)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// metadata serves RFC 9728 protected-resource metadata for the hosted /mcp resource.
func (h *httpFront) metadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET")
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	h.mu.Lock()
	as := h.asCache
	h.mu.Unlock()
	if as == nil {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		defer cancel()
		for _, p := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
			if doc := h.srv.rs.WellKnown(ctx, p); doc != nil {
				if l := listOf(doc["authorization_servers"]); len(l) > 0 {
					as = l
					h.mu.Lock()
					h.asCache = l
					h.mu.Unlock()
					break
				}
			}
		}
	}
	if as == nil {
		as = []any{}
	}
	base := origin(r)
	writeJSON(w, 200, map[string]any{
		"resource":                   base + "/mcp",
		"resource_name":              "PDPP grant-scoped MCP (read-only)",
		"authorization_servers":      as,
		"bearer_methods_supported":   []string{"header"},
		"pdpp_token_kinds_supported": []string{"client"},
		"pdpp_core_query_base":       h.srv.rs.URL("/v1", nil),
		"pdpp_mcp": map[string]any{"endpoint": base + "/mcp", "transport": "streamable_http", "no_owner_token": true,
			"setup_intent": "grant_scoped_read"},
	})
}
