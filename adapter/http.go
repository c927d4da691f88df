package adapter

import (
	"encoding/json"
	"net/http"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MCPPath is where the hosted endpoint lives.
const MCPPath = "/mcp"

// Handler serves stateless Streamable HTTP at [MCPPath]. Every request must
// carry a bearer; the adapter forwards it to the RS and never substitutes one
// of its own (seed 001: no grant broadening).
func (a *Adapter) Handler() http.Handler {
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return a.srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	mux := http.NewServeMux()
	mux.Handle(MCPPath, requireBearer(streamable))
	return mux
}

func requireBearer(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, ok := bearer(r.Header.Get("Authorization")); !ok {
			meta := origin(r) + "/.well-known/oauth-protected-resource" + MCPPath
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+meta+`"`)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{
				"type": "authentication_error", "code": "authentication_error", "message": "Missing Bearer token",
				"resource_metadata": meta,
			}})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func origin(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}
