package variation

import (
	"bytes"
	"context"
	"errors"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// The MCP seam: receiving middleware on the adapter's servers (and the
// command-line tools), which sees initialize, tools/list and tools/call.

// withMiddleware is an Apply that adds MCP middleware, first outermost.
func withMiddleware(ms ...mcp.Middleware) func(*Seams) {
	return func(s *Seams) {
		s.Options(func(o *adapter.Options) { o.Middleware = append(o.Middleware, ms...) })
	}
}

// onInitialize rewrites a copy of every initialize result.
func onInitialize(f func(*mcp.InitializeResult)) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if r, ok := res.(*mcp.InitializeResult); ok && err == nil && r != nil {
				c := *r
				f(&c)
				return &c, nil
			}
			return res, err
		}
	}
}

// onTools rewrites the tools of every tools/list result: copies, which f
// may change, drop or add to.
func onTools(f func([]*mcp.Tool) []*mcp.Tool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			r, ok := res.(*mcp.ListToolsResult)
			if !ok || err != nil || r == nil {
				return res, err
			}
			c := *r
			c.Tools = make([]*mcp.Tool, len(r.Tools))
			for i, t := range r.Tools {
				cp := *t
				c.Tools[i] = &cp
			}
			c.Tools = f(c.Tools)
			return &c, nil
		}
	}
}

// onTool rewrites the tools/list entry of one tool.
func onTool(name string, f func(*mcp.Tool)) mcp.Middleware {
	return onTools(func(tools []*mcp.Tool) []*mcp.Tool {
		for _, t := range tools {
			if t.Name == name {
				f(t)
			}
		}
		return tools
	})
}

// schemaText is a tool's input schema as JSON text.
func schemaText(t *mcp.Tool) string {
	b, _ := json.Marshal(t.InputSchema)
	return string(b)
}

func setSchemaText(t *mcp.Tool, s string) { t.InputSchema = json.RawMessage(s) }

// withProperty returns schema with one more top-level property.
func withProperty(schema, name, def string) string {
	return strings.Replace(schema, `"properties":{`, `"properties":{"`+name+`":`+def+`,`, 1)
}

// A callNext runs the rest of a tools/call.
type callNext func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error)

// onCall wraps every tools/call.
func onCall(f func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error)) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			cr, ok := req.(*mcp.CallToolRequest)
			if method != "tools/call" || !ok || cr.Params == nil {
				return next(ctx, method, req)
			}
			res, err := f(ctx, cr, func(ctx context.Context, r *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				out, err := next(ctx, method, r)
				tr, _ := out.(*mcp.CallToolResult)
				if err == nil && tr == nil {
					err = errors.New("no tool result")
				}
				return tr, err
			})
			if res == nil {
				return nil, err
			}
			return res, err
		}
	}
}

// onResult rewrites the results of one tool ("" for every tool).
func onResult(tool string, f func(req *mcp.CallToolRequest, r *result)) mcp.Middleware {
	return onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		if err == nil && (tool == "" || req.Params.Name == tool) {
			f(req, &result{res})
		}
		return res, err
	})
}

// dropArgWhen drops one tool's argument drop, unread, when the call
// carries when.
func dropArgWhen(tool, drop, when string) func(*Seams) {
	return withMiddleware(onArgs(tool, func(_ context.Context, args map[string]json.RawMessage) {
		if _, ok := args[when]; ok {
			delete(args, drop)
		}
	}))
}

// onArgs rewrites one tool's arguments before the adapter reads them.
func onArgs(tool string, f func(ctx context.Context, args map[string]json.RawMessage)) mcp.Middleware {
	return onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		if req.Params.Name != tool {
			return next(ctx, req)
		}
		args := map[string]json.RawMessage{}
		if json.Unmarshal(req.Params.Arguments, &args) != nil {
			return next(ctx, req)
		}
		f(ctx, args)
		return next(ctx, withArgs(req, args))
	})
}

// withArgs is req with other arguments.
func withArgs(req *mcp.CallToolRequest, args map[string]json.RawMessage) *mcp.CallToolRequest {
	p := *req.Params
	p.Arguments, _ = json.Marshal(args)
	r := *req
	r.Params = &p
	return &r
}

// A result is a tool result a variation rewrites: its first text content
// and its structuredContent, as JSON values.
type result struct{ *mcp.CallToolResult }

func (r result) text() string {
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text
		}
	}
	return ""
}

func (r result) setText(s string) {
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			t.Text = s
			return
		}
	}
}

// structured is structuredContent as a JSON object (nil when it is not one).
func (r result) structured() map[string]any {
	var m map[string]any
	_ = decodeJSON(mustJSON(r.StructuredContent), &m)
	return m
}

func (r result) setStructured(v any) { r.StructuredContent = v }

// errorObject is an isError result's error object, nil for other results.
func (r result) errorObject() map[string]any {
	if !r.IsError {
		return nil
	}
	var m map[string]any
	_ = decodeJSON([]byte(r.text()), &m)
	return m
}

// setError replaces an isError result's error object, in text and in
// structuredContent, as the adapter writes it.
func (r result) setError(e map[string]any) {
	text := compactJSON(e)
	r.setText(text)
	r.setStructured(map[string]any{"error": json.RawMessage(text)})
}

// decodeJSON decodes keeping numbers exact.
func decodeJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// compactJSON marshals v as the adapter does, without HTML escaping.
func compactJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(b.String(), "\n")
}

// rotateGroup gives each match of re in text the next match's group g
// (the last the first's), the rest of each match kept.
func rotateGroup(re *regexp.Regexp, text string, g int) string {
	ms := re.FindAllStringSubmatchIndex(text, -1)
	if len(ms) < 2 {
		return text
	}
	var b strings.Builder
	last := 0
	for i, m := range ms {
		next := ms[(i+1)%len(ms)]
		b.WriteString(text[last:m[2*g]])
		b.WriteString(text[next[2*g]:next[2*g+1]])
		last = m[2*g+1]
	}
	b.WriteString(text[last:])
	return b.String()
}
