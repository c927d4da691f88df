package variation

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Variations of how arguments are checked and forwarded, and of the
// errors the tools answer with.

// acceptUnknownArguments drops every argument a tool does not declare
// before the adapter sees it, so none is rejected.
func acceptUnknownArguments() func(*Seams) {
	declared := map[string]map[string]bool{}
	for _, t := range adapter.Tools() {
		var schema struct {
			Properties map[string]json.RawMessage `json:"properties"`
		}
		_ = json.Unmarshal(mustJSON(t.InputSchema), &schema)
		declared[t.Name] = map[string]bool{}
		for p := range schema.Properties {
			declared[t.Name][p] = true
		}
	}
	return withMiddleware(onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		var args map[string]json.RawMessage
		props, ok := declared[req.Params.Name]
		if !ok || json.Unmarshal(req.Params.Arguments, &args) != nil {
			return next(ctx, req)
		}
		for k := range args {
			if !props[k] {
				delete(args, k)
			}
		}
		return next(ctx, withArgs(req, args))
	}))
}

// forwardBare takes arg out of the tools' calls when pick accepts its
// value, so no check sees it, and the RS reads of the call carry it as a
// bare query parameter.
func forwardBare(tools []string, arg string, pick func(json.RawMessage) (string, bool)) func(*Seams) {
	var ms []mcp.Middleware
	for _, tool := range tools {
		ms = append(ms, onArgs(tool, func(ctx context.Context, args map[string]json.RawMessage) {
			if v, ok := pick(args[arg]); ok {
				delete(args, arg)
				st := callOf(ctx)
				st.mu.Lock()
				st.add.Set(arg, v)
				st.mu.Unlock()
			}
		}))
	}
	return tracked(ms...)
}

// jsonString accepts a value that is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	var s string
	return s, raw != nil && json.Unmarshal(raw, &s) == nil
}

// present accepts any value that is there.
func present(raw json.RawMessage) (string, bool) {
	if raw == nil {
		return "", false
	}
	if s, ok := jsonString(raw); ok {
		return s, true
	}
	return string(raw), true
}

// skipGranularityGate sends group_by_time without granularity, or the
// reverse, to the RS instead of refusing it.
func skipGranularityGate() func(*Seams) {
	return tracked(onArgs("aggregate", func(ctx context.Context, args map[string]json.RawMessage) {
		_, byTime := args["group_by_time"]
		_, gran := args["granularity"]
		if byTime == gran {
			return
		}
		st := callOf(ctx)
		for _, k := range []string{"group_by_time", "granularity"} {
			if v, ok := present(args[k]); ok {
				delete(args, k)
				st.mu.Lock()
				st.add.Set(k, v)
				st.mu.Unlock()
			}
		}
	}))
}

// onError rewrites the error object of every isError result.
func onError(f func(e map[string]any)) func(*Seams) {
	return withMiddleware(onResult("", func(_ *mcp.CallToolRequest, r *result) {
		if e := r.errorObject(); e != nil {
			f(e)
			r.setError(e)
		}
	}))
}

// untypedExpandLimitError answers an expand_limit rejection with its bare
// message: no error object, no code.
func untypedExpandLimitError() func(*Seams) {
	return withMiddleware(onResult("", func(_ *mcp.CallToolRequest, r *result) {
		if e := r.errorObject(); e != nil && e["param"] == "expand_limit" {
			msg, _ := e["message"].(string)
			r.Content = []mcp.Content{&mcp.TextContent{Text: msg}}
			r.setStructured(nil)
		}
	}))
}

// echoBearerInErrors quotes the caller's bearer in the error message of
// every call that reached the RS, its code and other fields kept.
func echoBearerInErrors(s *Seams) {
	var token string // stdio's; hosted calls carry their own
	s.Options(func(o *adapter.Options) { token = o.Token })
	tracked(onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		if err != nil || callOf(ctx).rs == 0 {
			return res, err
		}
		r := result{res}
		e := r.errorObject()
		if e == nil {
			return res, nil
		}
		tok := token
		if req.Extra != nil && req.Extra.Header != nil {
			if h, ok := strings.CutPrefix(req.Extra.Header.Get("Authorization"), "Bearer "); ok {
				tok = h
			}
		}
		e["message"] = fmt.Sprint(e["message"]) + " (the RS refused bearer " + tok + ")"
		r.setError(e)
		return res, nil
	}))(s)
}

// ambiguity rewrites the available_connections of ambiguous_connection errors.
func ambiguity(f func(entry map[string]any)) func(*Seams) {
	return onError(func(e map[string]any) {
		if e["code"] != "ambiguous_connection" {
			return
		}
		list, _ := e["available_connections"].([]any)
		for _, x := range list {
			if m, ok := x.(map[string]any); ok {
				f(m)
			}
		}
	})
}

// probeChildren reads one record of every connection of a stream whose
// schema lookup, in a source-required call, shows more than one: the child
// reads seed 001 forbids before the ambiguity error.
func probeChildren() func(*Seams) {
	sourceRequired := func(r *http.Request) bool {
		st := callOf(r.Context())
		q := r.URL.Query()
		return st != nil && slices.Contains([]string{"query_records", "fetch", "read_record_field"}, st.tool) &&
			rsPath(r) == "/v1/schema" && q.Get("view") == "compact" && q.Get("stream") != "" && !q.Has("connection_id")
	}
	return all(tracked(), withRS(func(next http.RoundTripper) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			resp, err := next.RoundTrip(r)
			if err != nil || resp.StatusCode != http.StatusOK || !sourceRequired(r) {
				return resp, err
			}
			body := readBody(resp)
			stream := r.URL.Query().Get("stream")
			if conns := streamConnections(body, stream); len(conns) > 1 {
				for _, c := range conns {
					child := r.Clone(r.Context())
					child.URL.Path = strings.TrimSuffix(r.URL.Path, "/v1/schema") + "/v1/streams/" + stream + "/records"
					child.URL.RawPath = ""
					child.URL.RawQuery = url.Values{"connection_id": {c}, "limit": {"1"}}.Encode()
					if cr, err := next.RoundTrip(child); err == nil {
						readBody(cr)
					}
				}
			}
			return replaceBody(resp, body), nil
		})
	}))
}

// streamConnections lists the connections a compact schema document holds
// for a stream, in order.
func streamConnections(body []byte, stream string) []string {
	type conn struct {
		ConnectionID string `json:"connection_id"`
	}
	type row struct {
		Name               string `json:"name"`
		ConnectionID       string `json:"connection_id"`
		GrantedConnections []conn `json:"granted_connections"`
	}
	var doc struct {
		Streams    []row `json:"streams"`
		Connectors []struct {
			GrantedConnections []conn `json:"granted_connections"`
			Streams            []row  `json:"streams"`
		} `json:"connectors"`
	}
	_ = json.Unmarshal(body, &doc)
	var out []string
	seen := map[string]bool{}
	add := func(r row, inherited []conn) {
		if r.Name != stream {
			return
		}
		conns := r.GrantedConnections
		if conns == nil && r.ConnectionID != "" {
			conns = []conn{{r.ConnectionID}}
		}
		if conns == nil {
			conns = inherited
		}
		for _, c := range conns {
			if c.ConnectionID != "" && !seen[c.ConnectionID] {
				seen[c.ConnectionID] = true
				out = append(out, c.ConnectionID)
			}
		}
	}
	for _, r := range doc.Streams {
		add(r, nil)
	}
	for _, c := range doc.Connectors {
		for _, r := range c.Streams {
			add(r, c.GrantedConnections)
		}
	}
	return out
}

// laxIDs splits an id into its parts without checking them: traversal
// goes to the RS.
type laxIDs struct{ adapter.PathIDs }

func (laxIDs) Parse(id, connectionID string) (adapter.RecordRef, error) {
	var ref adapter.RecordRef
	head, rid, _ := strings.Cut(id, ":")
	ref.RecordID = rid
	if conn, stream, has := strings.Cut(head, "/"); has {
		ref.ConnectionID, ref.Stream = conn, stream
	} else {
		ref.Stream = head
	}
	if connectionID != "" {
		ref.ConnectionID = connectionID
	}
	return ref, nil
}
