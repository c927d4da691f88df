package adapter

// One tool call: dispatch to its handler, RS reads with the caller's bearer,
// and the typed errors and results every tool answers with.

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
	json "github.com/segmentio/encoding/json"
)

// call is one tool invocation with its caller's bearer.
type call struct {
	a       *Adapter
	t       *Tuning
	token   string
	context context.Context
	scopes  map[string]streamScope
}

func (a *Adapter) dispatch(ctx context.Context, req *mcp.CallToolRequest, name string, in json.RawMessage) *mcp.CallToolResult {
	c := &call{a: a, t: &a.tune, token: a.opts.Token, context: ctx}
	if req.Extra != nil && req.Extra.Header != nil {
		if tok, ok := bearer(req.Extra.Header.Get("Authorization")); ok {
			c.token = tok
		}
	}
	if c.token == "" {
		return adapterError("missing_token", "no grant-scoped client token is configured")
	}
	var (
		res *mcp.CallToolResult
		err error
	)
	switch name {
	case "schema":
		res, err = decodeThen(in, c.schema)
	case "query_records":
		res, err = decodeThen(in, c.queryRecords)
	case "aggregate":
		res, err = decodeThen(in, c.aggregate)
	case "search":
		res, err = decodeThen(in, c.search)
	case "fetch":
		res, err = decodeThen(in, c.fetch)
	case "read_record_field":
		res, err = decodeThen(in, c.readRecordField)
	default:
		return adapterError("unsupported_tool", "tool "+name+" is not part of the normal read surface")
	}
	if err != nil {
		return errorResult(err, c.token)
	}
	return res
}

func (c *call) ctx() context.Context { return c.context }

func (c *call) get(path string, q url.Values) (json.RawMessage, string, error) {
	resp, err := c.a.rs.Get(c.ctx(), c.token, path, q)
	if err != nil {
		return nil, "", explainRSError(err, path, q)
	}
	return resp.Body, resp.RequestID, nil
}

// decodeThen unmarshals tool arguments into In before running fn. args.check
// has already validated them against the advertised input schema.
func decodeThen[In any](raw json.RawMessage, fn func(In) (*mcp.CallToolResult, error)) (*mcp.CallToolResult, error) {
	var in In
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &in); err != nil {
			// The schema's integers include 1.0 and 1e2, which Go will not
			// decode into an int: retry once with every number re-encoded
			// from float64, which writes integral values plainly.
			in = *new(In)
			if err := decodeCanonical(raw, &in); err != nil {
				var ute *json.UnmarshalTypeError
				if errors.As(err, &ute) && ute.Field != "" {
					return nil, &toolError{Code: "invalid_arguments", Param: ute.Field, Message: ute.Field + ": " + ute.Value + " is out of range"}
				}
				return nil, &toolError{Code: "invalid_arguments", Message: err.Error()}
			}
		}
	}
	return fn(in)
}

func decodeCanonical(raw json.RawMessage, v any) error {
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return err
	}
	canon, err := json.Marshal(generic)
	if err != nil {
		return err
	}
	return json.Unmarshal(canon, v)
}

func bearer(h string) (string, bool) {
	const p = "Bearer "
	if len(h) > len(p) && strings.EqualFold(h[:len(p)], p) {
		return strings.TrimSpace(h[len(p):]), true
	}
	return "", false
}

// A toolError is an adapter-side rejection, raised before or instead of an RS call.
type toolError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Param   string `json:"param,omitempty"`
	// Extra carries typed retry hints such as retry_with.
	Extra map[string]any `json:"-"`
}

func (e *toolError) Error() string { return e.Code + ": " + e.Message }

func adapterError(code, msg string) *mcp.CallToolResult {
	return errorResult(&toolError{Code: code, Message: msg}, "")
}

// errorResult renders any failure as an isError tool result whose text is the
// compact JSON error object and whose structuredContent is {error:{…}}.
func errorResult(err error, token string) *mcp.CallToolResult {
	body := map[string]any{}
	var (
		te *toolError
		re *rsclient.Error
	)
	switch {
	case errors.As(err, &te):
		body["type"], body["code"], body["message"] = "adapter_error", te.Code, te.Message
		if te.Param != "" {
			body["param"] = te.Param
		}
		for k, v := range te.Extra {
			body[k] = v
		}
	case errors.As(err, &re):
		if len(re.Raw) > 0 && json.Unmarshal(re.Raw, &body) == nil {
			// RS error object verbatim.
		} else {
			body["type"], body["code"], body["message"] = re.Type, re.Code, re.Message
		}
		if re.HTTPStatus != 0 {
			body["http_status"] = re.HTTPStatus
		}
		var h *hintedError
		if errors.As(err, &h) {
			for k, v := range h.extra {
				if _, ok := body[k]; !ok {
					body[k] = v
				}
			}
		}
	default:
		body["type"], body["code"], body["message"] = "adapter_error", "tool_handler_error", err.Error()
	}
	text := compactJSON(body)
	if token != "" {
		text = strings.ReplaceAll(text, token, "[redacted]")
	}
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: map[string]any{"error": json.RawMessage(text)}}
}

// compactJSON marshals v without HTML escaping, so <mark> stays readable.
func compactJSON(v any) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprintf(`{"error":%q}`, err.Error())
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func textResult(text string, structured any) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, StructuredContent: structured}
}
