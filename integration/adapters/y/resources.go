package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strings"
)

// Blob bytes are reachable (host-controlled) through MCP resources/read on
// pdpp://blob/{blob_id}?connection_id=...; visible output also names the
// grant-scoped REST route GET /v1/blobs/{blob_id}. No blob tool exists.

const maxBlobBytes = 8 << 20

func blobResourceURI(blobID, conn string) string {
	u := "pdpp://blob/" + url.PathEscape(blobID)
	if conn != "" {
		u += "?connection_id=" + url.QueryEscape(conn)
	}
	return u
}

func blobTemplates() []any {
	return []any{map[string]any{
		"uriTemplate": "pdpp://blob/{blob_id}{?connection_id}",
		"name":        "pdpp-blob",
		"title":       "Granted blob content",
		"description": "Raw bytes of a blob referenced by a granted record field (GET /v1/blobs/{blob_id}).",
	}}
}

func (s *Server) readResource(ctx context.Context, token string, params json.RawMessage) (any, *rpcError) {
	var p struct {
		URI string `json:"uri"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil || p.URI == "" {
		return nil, &rpcError{Code: -32602, Message: "Invalid params: uri is required"}
	}
	if te := s.authorize(ctx, token); te != nil {
		return nil, &rpcError{Code: -32603, Message: te.Message, Data: map[string]any{"code": te.Code}}
	}
	u, err := url.Parse(p.URI)
	if err != nil || u.Scheme != "pdpp" || u.Host != "blob" || strings.Trim(u.Path, "/") == "" {
		return nil, &rpcError{Code: -32002, Message: "Resource not found: only pdpp://blob/{blob_id} URIs are readable"}
	}
	blobID := strings.Trim(u.Path, "/")
	q := url.Values{}
	if c := u.Query().Get("connection_id"); c != "" {
		q.Set("connection_id", c)
	}
	body, status, ctype, rerr := s.rs.raw(ctx, token, "/v1/blobs/"+url.PathEscape(blobID), q)
	if rerr != nil {
		return nil, &rpcError{Code: -32603, Message: "resource server unreachable: " + rerr.Error()}
	}
	if status != 200 {
		var obj map[string]any
		json.Unmarshal(body, &obj)
		e := normaliseRSError(status, obj, body)
		code := -32603
		if status == 404 {
			code = -32002
		}
		return nil, &rpcError{Code: code, Message: e.Message(), Data: map[string]any{"code": e.Code(), "http_status": status}}
	}
	if len(body) > maxBlobBytes {
		return nil, &rpcError{Code: -32603, Message: "blob is larger than this adapter's resource read limit"}
	}
	mt := strings.TrimSpace(strings.Split(ctype, ";")[0])
	item := map[string]any{"uri": p.URI, "mimeType": firstNonEmpty(mt, "application/octet-stream")}
	if strings.HasPrefix(mt, "text/") || mt == "application/json" {
		item["text"] = string(body)
	} else {
		item["blob"] = base64.StdEncoding.EncodeToString(body)
	}
	return map[string]any{"contents": []any{item}}, nil
}
