package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log"
	"runtime/debug"
	"strings"
)

const serverName = "pdpp-mcp-y"
const serverVersion = "0.1.0"

var supportedVersions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

const latestVersion = "2025-06-18"

// Server is the transport-independent MCP core.
type Server struct {
	rs     *RSClient
	logger *log.Logger
}

type rpcRequest struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method"`
	Params  json.RawMessage `json:"params,omitempty"`
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

type rpcResponse struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// Handle processes one transport message (single request, notification or batch).
// It returns the encoded response, or nil when nothing must be sent back.
func (s *Server) Handle(ctx context.Context, raw []byte, token string) []byte {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return nil
	}
	if raw[0] == '[' {
		var items []json.RawMessage
		if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
			return mustJSON(rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{Code: -32600, Message: "Invalid Request: bad batch"}})
		}
		var out []json.RawMessage
		for _, it := range items {
			if r := s.handleOne(ctx, it, token); r != nil {
				out = append(out, r)
			}
		}
		if len(out) == 0 {
			return nil
		}
		return mustJSON(out)
	}
	return s.handleOne(ctx, raw, token)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		b, _ = json.Marshal(rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{Code: -32603, Message: "internal encoding error"}})
	}
	return b
}

func (s *Server) handleOne(ctx context.Context, raw json.RawMessage, token string) (out []byte) {
	var req rpcRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return mustJSON(rpcResponse{JSONRPC: "2.0", ID: json.RawMessage("null"), Error: &rpcError{Code: -32700, Message: "Parse error: " + err.Error()}})
	}
	isNotification := len(req.ID) == 0 || string(req.ID) == "null"
	id := req.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	defer func() {
		if r := recover(); r != nil {
			s.logger.Printf("panic in %s: %v\n%s", req.Method, r, debug.Stack())
			if isNotification {
				out = nil
				return
			}
			out = mustJSON(rpcResponse{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: -32603, Message: "internal error"}})
		}
	}()
	if req.Method == "" {
		if isNotification {
			return nil // a stray response from the client; ignore
		}
		return mustJSON(rpcResponse{JSONRPC: "2.0", ID: id, Error: &rpcError{Code: -32600, Message: "Invalid Request: missing method"}})
	}
	if isNotification {
		return nil // notifications/initialized, notifications/cancelled, ...: nothing to answer
	}
	result, rerr := s.dispatch(ctx, req, token)
	resp := rpcResponse{JSONRPC: "2.0", ID: id}
	if rerr != nil {
		resp.Error = rerr
	} else {
		resp.Result = result
	}
	return mustJSON(resp)
}

func (s *Server) dispatch(ctx context.Context, req rpcRequest, token string) (any, *rpcError) {
	switch req.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if len(req.Params) > 0 {
			if err := json.Unmarshal(req.Params, &p); err != nil {
				return nil, &rpcError{Code: -32602, Message: "Invalid params: " + err.Error()}
			}
		}
		v := latestVersion
		for _, sv := range supportedVersions {
			if sv == p.ProtocolVersion {
				v = sv
			}
		}
		return map[string]any{
			"protocolVersion": v,
			"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}, "resources": map[string]any{}},
			"serverInfo":      map[string]any{"name": serverName, "title": "PDPP grant-scoped data (read-only)", "version": serverVersion},
			"instructions":    serverInstructions,
		}, nil
	case "ping":
		return map[string]any{}, nil
	case "tools/list":
		return map[string]any{"tools": toolDefinitions()}, nil
	case "resources/list":
		return map[string]any{"resources": []any{}}, nil
	case "resources/templates/list":
		return map[string]any{"resourceTemplates": blobTemplates()}, nil
	case "resources/read":
		return s.readResource(ctx, token, req.Params)
	case "prompts/list":
		return map[string]any{"prompts": []any{}}, nil
	case "tools/call":
		var p struct {
			Name      string         `json:"name"`
			Arguments map[string]any `json:"arguments"`
		}
		if len(req.Params) == 0 {
			return nil, &rpcError{Code: -32602, Message: "Invalid params: missing name"}
		}
		if err := json.Unmarshal(req.Params, &p); err != nil {
			return nil, &rpcError{Code: -32602, Message: "Invalid params: arguments must be an object"}
		}
		if !isTool(p.Name) {
			return nil, &rpcError{Code: -32602, Message: fmt.Sprintf("Unknown tool %q. Tools: %s", p.Name, strings.Join(toolNames(), ", "))}
		}
		if p.Arguments == nil {
			p.Arguments = map[string]any{}
		}
		return s.callTool(ctx, token, p.Name, args(p.Arguments)), nil
	}
	return nil, &rpcError{Code: -32601, Message: "Method not found: " + req.Method}
}

// toolOut is what a tool implementation produces.
type toolOut struct {
	Text       string
	Structured map[string]any
}

func (s *Server) callTool(ctx context.Context, token, name string, a args) (res map[string]any) {
	defer func() {
		if r := recover(); r != nil {
			s.logger.Printf("panic in tool %s: %v\n%s", name, r, debug.Stack())
			res = errorResult(newErr("internal_error", "The adapter hit an internal error while running this tool; the request was not completed."))
		}
	}()
	if terr := s.authorize(ctx, token); terr != nil {
		return errorResult(terr)
	}
	t := &toolCtx{s: s, ctx: ctx, token: token}
	var out *toolOut
	var terr *ToolError
	switch name {
	case "schema":
		out, terr = t.schema(a)
	case "query_records":
		out, terr = t.queryRecords(a)
	case "aggregate":
		out, terr = t.aggregate(a)
	case "search":
		out, terr = t.search(a)
	case "fetch":
		out, terr = t.fetch(a)
	case "read_record_field":
		out, terr = t.readRecordField(a)
	}
	if terr != nil {
		return errorResult(terr)
	}
	return map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": out.Text}},
		"structuredContent": out.Structured,
		"isError":           false,
	}
}

// authorize enforces the grant-scoped posture: a bearer must be present and
// must not be an owner / control-plane credential. Fails closed.
func (s *Server) authorize(ctx context.Context, token string) *ToolError {
	if token == "" {
		return newErr("authentication_error", "No PDPP client token is configured. Provide a grant-scoped client token (stdio: PDPP_CLIENT_TOKEN; hosted: Authorization: Bearer).")
	}
	kind, rerr := s.rs.TokenKind(ctx, token)
	if rerr != nil {
		te := fromRS(rerr)
		if rerr.Status != 401 && rerr.Status != 403 {
			te.Message = "Could not verify that the bearer is a grant-scoped client token, so the request was not run: " + te.Message
		}
		return te
	}
	if kind == "owner" || (kind != "client" && kind != "unknown") {
		return newErr("owner_token_rejected", "This MCP server only runs with grant-scoped PDPP client tokens; owner or control-plane bearers are refused. Obtain a scoped client grant instead.", "token_kind", kind)
	}
	return nil
}

func errorResult(e *ToolError) map[string]any {
	obj := map[string]any{"code": e.Code, "message": e.Message}
	for k, v := range e.Fields {
		obj[k] = v
	}
	return map[string]any{
		"content":           []any{map[string]any{"type": "text", "text": renderError(e)}},
		"structuredContent": map[string]any{"error": obj},
		"isError":           true,
	}
}

func renderError(e *ToolError) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**Error `%s`**: %s\n", e.Code, e.Message)
	for _, k := range []string{"param", "retry_with", "available_connection_count", "available_connections_truncated", "available_connections_omitted", "discovery_hint", "next_step", "resource_metadata", "http_status", "request_id"} {
		if v, ok := e.Fields[k]; ok && v != nil && v != "" {
			fmt.Fprintf(&b, "- %s: %v\n", k, str(v)+ifNotStr(v))
		}
	}
	if ac, ok := e.Fields["available_connections"].([]any); ok && len(ac) > 0 {
		b.WriteString("- available connections (retry with one `connection_id`):\n")
		for _, c := range ac {
			m, _ := c.(map[string]any)
			var parts []string
			for _, k := range []string{"connection_id", "connector_key", "grant_id", "display_name", "stream"} {
				if v := str(m[k]); v != "" {
					parts = append(parts, k+"="+v)
				}
			}
			b.WriteString("  - " + strings.Join(parts, ", ") + "\n")
		}
	}
	return b.String()
}

func ifNotStr(v any) string {
	switch v.(type) {
	case string, float64, bool, nil, json.Number:
		return ""
	}
	return toJSON(v)
}
