// Package adapter implements the PDPP MCP adapter: six read-only tools
// (schema, query_records, aggregate, search, fetch, read_record_field) over
// the PDPP resource server read API, using a grant-scoped client token.
package adapter

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/ojson"
	"example.com/pdppadapter-t/internal/rs"
)

// Version of the adapter.
const Version = "1.0.0"

// Name is the MCP implementation name.
const Name = "pdpp-mcp-adapter"

// Config configures an Adapter.
type Config struct {
	RSURL     string
	RSTimeout time.Duration
	Logger    *slog.Logger
}

// Adapter holds the RS client and token-verification cache. One Adapter
// serves every session; tokens are passed per call.
type Adapter struct {
	rs     *rs.Client
	log    *slog.Logger
	mu     sync.Mutex
	tokens map[string]tokenStatus
}

// New creates an Adapter.
func New(cfg Config) (*Adapter, error) {
	c, err := rs.New(cfg.RSURL, cfg.RSTimeout, Name+"/"+Version)
	if err != nil {
		return nil, err
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Adapter{rs: c, log: log, tokens: map[string]tokenStatus{}}, nil
}

// RS exposes the RS client (for the hosted metadata endpoint).
func (a *Adapter) RS() *rs.Client { return a.rs }

// TokenSource yields the grant-scoped token for one MCP request.
type TokenSource func(ctx context.Context, extra *mcp.RequestExtra) (string, error)

// StaticToken returns a TokenSource for stdio mode.
func StaticToken(token string) TokenSource {
	return func(context.Context, *mcp.RequestExtra) (string, error) {
		if token == "" {
			return "", newErr("missing_token", "authentication_error", "no grant-scoped client token is configured (set PDPP_CLIENT_TOKEN)")
		}
		return token, nil
	}
}

// HeaderToken returns a TokenSource reading "Authorization: Bearer" from
// the HTTP request that carried the MCP message (hosted mode).
func HeaderToken() TokenSource {
	return func(_ context.Context, extra *mcp.RequestExtra) (string, error) {
		if extra == nil || extra.Header == nil {
			return "", newErr("missing_token", "authentication_error", "no Authorization header on this MCP request")
		}
		tok, ok := BearerFromHeader(extra.Header.Get("Authorization"))
		if !ok {
			return "", newErr("missing_token", "authentication_error", "this MCP request carries no Bearer token")
		}
		return tok, nil
	}
}

// BearerFromHeader extracts a bearer token from an Authorization value.
func BearerFromHeader(h string) (string, bool) {
	f := strings.Fields(h)
	if len(f) != 2 || !strings.EqualFold(f[0], "bearer") || f[1] == "" {
		return "", false
	}
	return f[1], true
}

// ---------------------------------------------------------------------------
// Token verification: the adapter refuses owner (self-export) bearers.

type tokenStatus struct {
	kind    string
	grantID string
	err     *toolError
	at      time.Time
}

// TokenInfo is the outcome of a successful verification.
type TokenInfo struct {
	Kind    string
	GrantID string
	Hash    string
}

// VerifyError describes a rejected token.
type VerifyError struct {
	Status  int // HTTP status to use in hosted mode (401/403/502)
	Code    string
	Message string
}

func (e *VerifyError) Error() string { return e.Code + ": " + e.Message }

const tokenCacheTTL = 5 * time.Minute

func tokenHash(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

// ownerTokenFromEnv reports whether tok equals an owner-looking credential
// present in this process environment (e.g. PDPP_OWNER_TOKEN).
func ownerTokenFromEnv(tok string) bool {
	for _, kv := range os.Environ() {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			continue
		}
		uk := strings.ToUpper(k)
		if strings.Contains(uk, "OWNER") && v == tok {
			return true
		}
	}
	return false
}

// probeStream is a stream name no grant contains; scoping the probe to it
// keeps the verification response tiny.
const probeStream = "__pdpp_mcp_token_probe__"

// VerifyToken checks that tok is a grant-scoped (non-owner) PDPP token.
// Results are cached per token hash for a few minutes.
func (a *Adapter) VerifyToken(ctx context.Context, tok string) (*TokenInfo, error) {
	if tok == "" {
		return nil, &VerifyError{Status: 401, Code: "missing_token", Message: "a grant-scoped PDPP client token is required"}
	}
	h := tokenHash(tok)
	if ownerTokenFromEnv(tok) {
		return nil, &VerifyError{Status: 403, Code: "owner_token_rejected", Message: ownerRejectMsg}
	}
	a.mu.Lock()
	st, ok := a.tokens[h]
	a.mu.Unlock()
	if ok && time.Since(st.at) < tokenCacheTTL {
		if st.err != nil {
			return nil, &VerifyError{Status: 403, Code: st.err.Code, Message: st.err.Message}
		}
		return &TokenInfo{Kind: st.kind, GrantID: st.grantID, Hash: h}, nil
	}
	q := url.Values{}
	q.Set("view", "compact")
	q.Set("stream", probeStream)
	resp, err := a.rs.Get(ctx, tok, "/v1/schema", q)
	if err != nil {
		re, _ := rs.AsError(err)
		if re != nil && (re.Status == 401 || re.Status == 403) {
			return nil, &VerifyError{Status: re.Status, Code: re.Code, Message: re.Message}
		}
		if re != nil {
			return nil, &VerifyError{Status: 502, Code: re.Code, Message: "could not verify the token with the resource server: " + re.Message}
		}
		return nil, &VerifyError{Status: 502, Code: "rs_unreachable", Message: err.Error()}
	}
	o, derr := ojson.DecodeObject(resp.Body)
	if derr != nil {
		return nil, &VerifyError{Status: 502, Code: "rs_invalid_json", Message: "the resource server returned a malformed schema document"}
	}
	kind, scope, grant := "", "", ""
	if b := o.Obj("bearer"); b != nil {
		kind, scope, grant = b.Str("token_kind"), b.Str("scope"), b.Str("grant_id")
	}
	st = tokenStatus{kind: kind, grantID: grant, at: time.Now()}
	if strings.EqualFold(kind, "owner") || strings.EqualFold(scope, "owner") {
		st.err = newErr("owner_token_rejected", "permission_error", ownerRejectMsg)
	}
	a.mu.Lock()
	if len(a.tokens) > 2000 {
		a.tokens = map[string]tokenStatus{}
	}
	a.tokens[h] = st
	a.mu.Unlock()
	if st.err != nil {
		return nil, &VerifyError{Status: 403, Code: st.err.Code, Message: st.err.Message}
	}
	return &TokenInfo{Kind: kind, GrantID: grant, Hash: h}, nil
}

const ownerRejectMsg = "This MCP adapter only accepts grant-scoped PDPP client tokens. Owner (self-export) and control-plane bearers are refused; connect the app through a grant instead."

// token resolves and verifies the token for one call.
func (a *Adapter) token(ctx context.Context, src TokenSource, extra *mcp.RequestExtra) (string, *toolError) {
	tok, err := src(ctx, extra)
	if err != nil {
		if te, ok := err.(*toolError); ok {
			return "", te
		}
		return "", newErr("missing_token", "authentication_error", err.Error())
	}
	if _, err := a.VerifyToken(ctx, tok); err != nil {
		ve, _ := err.(*VerifyError)
		if ve == nil {
			return "", newErr("token_verification_failed", "api_error", err.Error())
		}
		typ := "authentication_error"
		if ve.Status == 403 {
			typ = "permission_error"
		} else if ve.Status >= 500 {
			typ = "api_error"
		}
		te := newErr(ve.Code, typ, ve.Message)
		te.Status = ve.Status
		if ve.Code == "owner_token_rejected" {
			te.Hint = "Do not retry with owner or admin credentials; the user must connect this app with a grant-scoped token."
		}
		return "", te
	}
	return tok, nil
}

// ---------------------------------------------------------------------------
// MCP server.

// Instructions are published in the initialize result. The first 512
// characters are self-contained.
const Instructions = `PDPP personal data, read-only, grant-scoped: you see only what the user granted; never ask for owner, admin or control-plane tokens. Discover first: schema() indexes connectors, connections, streams; schema(stream) gives fields, typed filters, sort, aggregations. A stream can span several connections: pass connection_id to pick one. filter is a typed object: {"field": value} or {"field": {"gte": v}}. Results are bounded pages: narrow with fields/filter/limit, follow next_cursor, prefer aggregate/search.

Tools: schema (GET /v1/schema), query_records (GET /v1/streams/{stream}/records), aggregate (GET /v1/streams/{stream}/aggregate), search (GET /v1/search, /semantic, /hybrid), fetch (one record as a document), read_record_field (bounded window of one field, GET …/records/{id}/field-window).
Handles: records are identified as pdpp://record/{connection_id}/{stream}/{record_id}; pass that id to fetch or read_record_field. Output never truncates silently: a cut value says how much was shown and gives the read_record_field arguments (offset_chars) that continue it. Binary or base64 values and blobs stay metadata-only; read_record_field with raw:true reads them in bounded chunks, and blobs are also MCP resources pdpp://blob/{blob_id}.
Paging: repeat the call with cursor=next_cursor and otherwise identical arguments. Changes: changes_since:"beginning" on one connection, keep next_changes_since for the next sync, page inside a batch with cursor only. count:"exact" adds totals. Without connection_id a multi-connection stream is read fan-in and cannot be paged: add connection_id.
Errors are typed (code, param, retry_with, hint). ambiguous_connection lists available_connections: retry with one connection_id; call schema() for the full connection index. expand is only for relations schema(stream) advertises (else invalid_expand).
content[] text is a bounded summary that carries every handle and continuation; structuredContent holds the same result as structured output (also bounded, not a hidden full dump).`

// ToolNames is the exact normal read surface.
var ToolNames = []string{"schema", "query_records", "aggregate", "search", "fetch", "read_record_field"}

// NewServer builds the MCP server. src supplies the token for each call.
func (a *Adapter) NewServer(src TokenSource) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: Name, Title: "PDPP grant-scoped reader", Version: Version}, &mcp.ServerOptions{
		Instructions: Instructions,
		Logger:       a.log,
		Capabilities: &mcp.ServerCapabilities{},
		// Resource contents are personal data: never shared caches.
		SetCacheable: func(_ context.Context, req mcp.Request, c *mcp.Cacheable) {
			if _, ok := req.(*mcp.ReadResourceRequest); ok {
				c.CacheScope = "private"
				c.TTLMs = 0
			}
		},
	})
	for _, t := range toolDefs() {
		h := a.handlerFor(t.Name, src)
		srv.AddTool(t, h)
	}
	a.addResources(srv, src)
	return srv
}

type toolFunc func(ctx context.Context, token string, args json.RawMessage) (*mcp.CallToolResult, error)

func (a *Adapter) handlerFor(name string, src TokenSource) mcp.ToolHandler {
	var fn toolFunc
	switch name {
	case "schema":
		fn = a.toolSchema
	case "query_records":
		fn = a.toolQueryRecords
	case "aggregate":
		fn = a.toolAggregate
	case "search":
		fn = a.toolSearch
	case "fetch":
		fn = a.toolFetch
	case "read_record_field":
		fn = a.toolReadRecordField
	default:
		panic("unknown tool " + name)
	}
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var extra *mcp.RequestExtra
		var args json.RawMessage
		if req != nil {
			extra = req.Extra
			if req.Params != nil {
				args = req.Params.Arguments
			}
		}
		tok, terr := a.token(ctx, src, extra)
		if terr != nil {
			return terr.result(), nil
		}
		start := time.Now()
		res, err := fn(ctx, tok, args)
		if err != nil {
			te := fromRS(err)
			a.enrichAvailable(ctx, tok, te)
			a.log.Info("tool error", "tool", name, "code", te.Code, "elapsed", time.Since(start))
			return te.result(), nil
		}
		a.log.Debug("tool ok", "tool", name, "elapsed", time.Since(start))
		return res, nil
	}
}

// textResult builds a successful result with text and structured content.
func textResult(text string, structured any) *mcp.CallToolResult {
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: structured,
	}
}

// decodeArgs unmarshals tool arguments strictly.
func decodeArgs(raw json.RawMessage, allowed []string, out any) *toolError {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return argErr("", "arguments must be a JSON object")
	}
	var unknown []string
	for k := range m {
		ok := false
		for _, a := range allowed {
			if a == k {
				ok = true
				break
			}
		}
		if !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		msg := fmt.Sprintf("unknown argument(s): %s", strings.Join(unknown, ", "))
		for _, u := range unknown {
			if u == "connector_instance_id" {
				msg += " (use connection_id)"
			}
		}
		e := argErr(unknown[0], msg)
		e.with("allowed_arguments", allowed)
		return e
	}
	if err := json.Unmarshal(raw, out); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return argErr(te.Field, fmt.Sprintf("argument %s must be of type %s (got %s)", te.Field, jsonTypeName(te.Type.Kind().String()), te.Value))
		}
		return argErr("", "invalid arguments: "+err.Error())
	}
	return nil
}

func jsonTypeName(kind string) string {
	switch kind {
	case "int", "int64", "int32":
		return "integer"
	case "slice":
		return "array"
	case "map", "struct":
		return "object"
	case "bool":
		return "boolean"
	}
	return kind
}
