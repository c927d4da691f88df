// Package hosted serves the adapter over MCP Streamable HTTP. Each MCP
// request carries the grant-scoped client token as "Authorization: Bearer".
package hosted

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/adapter"
	"example.com/pdppadapter-t/internal/ojson"
)

// Options configures the hosted handler.
type Options struct {
	Path      string // MCP endpoint path, default /mcp
	PublicURL string // externally visible origin, e.g. https://mcp.example; default from the request Host
	Adapter   *adapter.Adapter
	Logger    *slog.Logger
}

type server struct {
	opts   Options
	log    *slog.Logger
	mu     sync.Mutex
	asList []string
	asAt   time.Time
}

// Handler returns the HTTP handler: the MCP endpoint plus RFC 9728
// protected-resource metadata.
func Handler(opts Options) http.Handler {
	if opts.Path == "" {
		opts.Path = "/mcp"
	}
	if !strings.HasPrefix(opts.Path, "/") {
		opts.Path = "/" + opts.Path
	}
	opts.PublicURL = strings.TrimRight(opts.PublicURL, "/")
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &server{opts: opts, log: log}
	mcpServer := opts.Adapter.NewServer(adapter.HeaderToken())
	streamable := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return mcpServer }, &mcp.StreamableHTTPOptions{
		Logger:         log,
		SessionTimeout: 30 * time.Minute,
	})
	// The SDK binds each session to TokenInfo.UserID (a hash of the token),
	// so a session cannot be continued with a different bearer.
	bound := auth.RequireBearerToken(s.verifier, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(streamable)
	mux := http.NewServeMux()
	mux.Handle(opts.Path, s.authGate(bound))
	mux.HandleFunc("/.well-known/oauth-protected-resource"+opts.Path, s.metadata)
	mux.HandleFunc("/.well-known/oauth-protected-resource", s.metadata)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Write([]byte("ok\n"))
	})
	return mux
}

func (s *server) base(r *http.Request) string {
	if s.opts.PublicURL != "" {
		return s.opts.PublicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

func (s *server) metadataURL(r *http.Request) string {
	return s.base(r) + "/.well-known/oauth-protected-resource" + s.opts.Path
}

func writeJSONError(w http.ResponseWriter, status int, typ, code, msg string, extra map[string]any) {
	e := ojson.NewObject()
	e.Set("type", typ)
	e.Set("code", code)
	e.Set("message", msg)
	for k, v := range extra {
		e.Set(k, v)
	}
	body := ojson.NewObject()
	body.Set("error", e)
	b, _ := ojson.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
	w.Write([]byte("\n"))
}

// authGate rejects requests before MCP processing: missing/invalid bearer
// (401 with a resource_metadata challenge) and owner bearers (403).
func (s *server) authGate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tok, ok := adapter.BearerFromHeader(r.Header.Get("Authorization"))
		if !ok {
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+s.metadataURL(r)+`"`)
			writeJSONError(w, http.StatusUnauthorized, "authentication_error", "missing_token",
				"Missing Bearer token. Send the grant-scoped PDPP client token as Authorization: Bearer <token>.",
				map[string]any{"resource_metadata": s.metadataURL(r)})
			return
		}
		ctx, cancel := context.WithTimeout(r.Context(), 15*time.Second)
		_, err := s.opts.Adapter.VerifyToken(ctx, tok)
		cancel()
		if err != nil {
			ve, _ := err.(*adapter.VerifyError)
			if ve == nil {
				writeJSONError(w, http.StatusBadGateway, "api_error", "token_verification_failed", err.Error(), nil)
				return
			}
			switch {
			case ve.Status == http.StatusForbidden:
				s.log.Info("rejected bearer", "code", ve.Code)
				writeJSONError(w, http.StatusForbidden, "permission_error", ve.Code, ve.Message, nil)
			case ve.Status == http.StatusUnauthorized:
				w.Header().Set("WWW-Authenticate", `Bearer error="invalid_token", resource_metadata="`+s.metadataURL(r)+`"`)
				writeJSONError(w, http.StatusUnauthorized, "authentication_error", ve.Code, ve.Message,
					map[string]any{"resource_metadata": s.metadataURL(r)})
			default:
				writeJSONError(w, http.StatusBadGateway, "api_error", ve.Code, ve.Message, nil)
			}
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *server) verifier(ctx context.Context, tok string, _ *http.Request) (*auth.TokenInfo, error) {
	info, err := s.opts.Adapter.VerifyToken(ctx, tok)
	if err != nil {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: info.Hash, Extra: map[string]any{"grant_id": info.GrantID, "token_kind": info.Kind}}, nil
}

// authorizationServers mirrors the RS's advertised authorization servers.
func (s *server) authorizationServers(ctx context.Context) []string {
	s.mu.Lock()
	if time.Since(s.asAt) < 10*time.Minute && s.asList != nil {
		l := s.asList
		s.mu.Unlock()
		return l
	}
	s.mu.Unlock()
	var list []string
	resp, err := s.opts.Adapter.RS().Get(ctx, "", "/.well-known/oauth-protected-resource", nil)
	if err == nil {
		var doc struct {
			AuthorizationServers []string `json:"authorization_servers"`
		}
		if json.Unmarshal(resp.Body, &doc) == nil {
			list = doc.AuthorizationServers
		}
	}
	if list == nil {
		list = []string{}
	}
	s.mu.Lock()
	s.asList, s.asAt = list, time.Now()
	s.mu.Unlock()
	return list
}

func (s *server) metadata(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	doc := ojson.NewObject()
	doc.Set("resource", s.base(r)+s.opts.Path)
	doc.Set("resource_name", "PDPP MCP adapter (grant-scoped read)")
	doc.Set("authorization_servers", s.authorizationServers(ctx))
	doc.Set("bearer_methods_supported", []string{"header"})
	doc.Set("pdpp_token_kinds_supported", []string{"client"})
	doc.Set("pdpp_owner_bearer_accepted", false)
	doc.Set("pdpp_core_query_base", s.opts.Adapter.RS().BaseURL()+"/v1")
	doc.Set("mcp_endpoint", s.base(r)+s.opts.Path)
	b, _ := ojson.Marshal(doc)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(b)
	w.Write([]byte("\n"))
}
