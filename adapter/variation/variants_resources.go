package variation

import (
	"context"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Conforming variations that add MCP resources beside the tools: record
// URIs, resource templates and resource_link blocks (seed 002 MAY), never
// as the only path to what they name.

// recordURI is the pdpp://record/ handle of a fetch id, which fetch takes.
func recordURI(id string) string { return adapter.RecordURIPrefix + url.PathEscape(id) }

// recordTemplate is the resource template of record URIs.
var recordTemplate = &mcp.ResourceTemplate{Name: "record", Title: "PDPP record", URITemplate: adapter.RecordURIPrefix + "{id}",
	MIMEType: "application/json", Description: "One record as fetch's document; {id} is a fetch id, percent-encoded. fetch takes the same URI as its id."}

// recordResources serves pdpp://record/ URIs through resources/read (the
// same document fetch returns), advertises their template, and names each
// search hit's URI beside its id.
func recordResources() func(*Seams) {
	serve := func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			switch r := req.(type) {
			case *mcp.ListResourceTemplatesRequest:
				return &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{recordTemplate}}, nil
			case *mcp.ReadResourceRequest:
				return readRecord(ctx, next, r)
			}
			return next(ctx, method, req)
		}
	}
	return all(
		withMiddleware(advertiseResources, serve),
		onSearchResults(func(res map[string]any) { res["uri"] = recordURI(str(res["id"])) }))
}

// advertiseResources adds the resources capability to what initialize and
// server/discover (SEP-2575) advertise.
func advertiseResources(next mcp.MethodHandler) mcp.MethodHandler {
	with := func(c *mcp.ServerCapabilities) *mcp.ServerCapabilities {
		caps := mcp.ServerCapabilities{}
		if c != nil {
			caps = *c
		}
		caps.Resources = &mcp.ResourceCapabilities{}
		return &caps
	}
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		switch r := res.(type) {
		case *mcp.InitializeResult:
			c := *r
			c.Capabilities = with(r.Capabilities)
			return &c, err
		case *mcp.DiscoverResult:
			c := *r
			c.Capabilities = with(r.Capabilities)
			return &c, err
		}
		return res, err
	}
}

// readRecord answers resources/read of a record URI with the fetch tool's
// document, read with the same caller's bearer.
func readRecord(ctx context.Context, next mcp.MethodHandler, r *mcp.ReadResourceRequest) (mcp.Result, error) {
	uri := r.Params.URI
	if !recordURIRe.MatchString(uri) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	call := &mcp.CallToolRequest{Session: r.Session, Extra: r.Extra,
		Params: &mcp.CallToolParamsRaw{Name: "fetch", Arguments: mustJSON(map[string]string{"id": uri})}}
	res, err := next(ctx, "tools/call", call)
	if err != nil {
		return nil, err
	}
	doc := result{res.(*mcp.CallToolResult)}
	if doc.IsError {
		return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "resources/read " + uri + ": " + doc.text()}
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "application/json", Text: doc.text()}}}, nil
}

var recordURIRe = regexp.MustCompile(`^` + regexp.QuoteMeta(adapter.RecordURIPrefix) + `.+`)

// resourceLinks adds a resource_link block after the text wherever a
// result refers to records: search's hits, query_records' previews and
// the record a read_record_field window comes from. fetch takes each URI.
func resourceLinks() func(*Seams) {
	link := func(r *result, id, title string) {
		r.Content = append(r.Content, &mcp.ResourceLink{URI: recordURI(id), Name: id, Title: title, MIMEType: "application/json",
			Description: "the record as fetch's document; fetch takes this URI as its id"})
	}
	return withMiddleware(onResult("", func(req *mcp.CallToolRequest, r *result) {
		if r.IsError {
			return
		}
		switch req.Params.Name {
		case "search":
			list, _ := r.structured()["results"].([]any)
			for _, x := range list {
				m, _ := x.(map[string]any)
				link(r, str(m["id"]), str(m["title"]))
			}
		case "query_records":
			for _, m := range shownRecordIDRe.FindAllStringSubmatch(r.text(), -1) {
				link(r, m[1], "")
			}
		case "read_record_field":
			rec, _ := r.structured()["record"].(map[string]any)
			if id := str(rec["id"]); id != "" {
				link(r, id, "")
			}
		}
	}))
}

var shownRecordIDRe = regexp.MustCompile(`(?m)^record\[\d+\] id=(\S+) `)

// pathRecordHandles writes record handles in a path encoding of its own,
// pdpp://record/<connection_id>/<stream>/<record_id>: search hits name
// theirs beside their id, and fetch and read_record_field take that form
// (as the fetch id connection_id/stream:record_id) and refuse any other
// encoding after the prefix.
func pathRecordHandles() func(*Seams) {
	take := onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		if req.Params.Name != "fetch" && req.Params.Name != "read_record_field" {
			return next(ctx, req)
		}
		var args map[string]json.RawMessage
		_ = json.Unmarshal(req.Params.Arguments, &args)
		var id string
		if json.Unmarshal(args["id"], &id) != nil || !strings.HasPrefix(id, "pdpp://") {
			return next(ctx, req)
		}
		parts := strings.Split(strings.TrimPrefix(id, adapter.RecordURIPrefix), "/")
		if !strings.HasPrefix(id, adapter.RecordURIPrefix) || len(parts) != 3 || slices.Contains(parts, "") {
			r := result{&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{}}}}
			r.setError(map[string]any{"code": "invalid_id", "param": "id", "message": "a record handle is pdpp://record/<connection_id>/<stream>/<record_id>"})
			return r.CallToolResult, nil
		}
		args["id"] = mustJSON(parts[0] + "/" + parts[1] + ":" + parts[2])
		return next(ctx, withArgs(req, args))
	})
	return all(withMiddleware(take), onSearchResults(func(res map[string]any) {
		if c, s, r := str(res["connection_id"]), str(res["stream"]), str(res["record_key"]); c != "" && s != "" && r != "" {
			res["uri"] = adapter.RecordURIPrefix + c + "/" + s + "/" + r
		}
	}))
}
