package variation

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Conforming variations of who checks a tool's arguments: an MCP SDK's own
// input validation, in front of the handlers, or the RS.

// An inputSchema is one tool's advertised input schema, resolved per
// property, as an SDK validates arguments before its handler runs.
type inputSchema struct {
	props    map[string]*jsonschema.Resolved
	required []string
	closed   bool
}

// inputSchemas resolves the advertised input schema of every tool.
func inputSchemas() map[string]*inputSchema {
	out := map[string]*inputSchema{}
	for _, t := range adapter.Tools() {
		var root jsonschema.Schema
		if json.Unmarshal(mustJSON(t.InputSchema), &root) != nil {
			panic("variation: tool " + t.Name + " has no input schema")
		}
		s := &inputSchema{props: map[string]*jsonschema.Resolved{}, required: root.Required,
			closed: root.AdditionalProperties != nil && root.AdditionalProperties.Not != nil}
		for name, p := range root.Properties {
			r, err := p.Resolve(nil)
			if err != nil {
				panic("variation: tool " + t.Name + " property " + name + ": " + err.Error())
			}
			s.props[name] = r
		}
		out[t.Name] = s
	}
	return out
}

// invalid reports the first argument that breaks the schema, and why ("" when
// the arguments are valid). An unknown key is reported at the root, as
// zod reports it.
func (s *inputSchema) invalid(raw json.RawMessage) (param, why string) {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" && json.Unmarshal(raw, &args) != nil {
		return "", "Expected object, received " + jsonKind(raw)
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if s.closed && s.props[k] == nil {
			return "", fmt.Sprintf("Unrecognized key: %q", k)
		}
	}
	for _, k := range s.required {
		if _, ok := args[k]; !ok {
			return k, "Required"
		}
	}
	for _, k := range names {
		if err := s.props[k].Validate(args[k]); err != nil {
			return k, validatorWords(err)
		}
	}
	return "", ""
}

var (
	validatingRe = regexp.MustCompile(`^(validating [^:]*: )+`)
	rationalRe   = regexp.MustCompile(`\b(\d+)(?:/1|\.0+)\b`)
)

// validatorWords is a schema validator's error on one line, without its
// schema paths or rational numbers.
func validatorWords(err error) string {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSuffix(validatingRe.ReplaceAllString(l, ""), ":"); l != "" {
			parts = append(parts, rationalRe.ReplaceAllString(l, "$1"))
		}
	}
	return strings.Join(parts, "; ")
}

func jsonKind(raw json.RawMessage) string {
	switch s := strings.TrimSpace(string(raw)); {
	case strings.HasPrefix(s, "["):
		return "array"
	case strings.HasPrefix(s, `"`):
		return "string"
	}
	return "a non-object"
}

// A rejectionStyle is how an SDK answers arguments its validation refuses.
type rejectionStyle func(tool, param, why string) (*mcp.CallToolResult, error)

// sdkValidation validates every call's arguments against the tool's
// advertised input schema before the adapter sees them, as an SDK that
// owns validation does, and answers a refusal in the SDK's style.
func sdkValidation(reject rejectionStyle) func(*Seams) {
	schemas := inputSchemas()
	return withMiddleware(onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		s := schemas[req.Params.Name]
		if s == nil {
			return next(ctx, req)
		}
		if param, why := s.invalid(req.Params.Arguments); why != "" {
			return reject(req.Params.Name, param, why)
		}
		return next(ctx, req)
	}))
}

// validationMessage is the TypeScript SDK's wording of a refusal.
func validationMessage(tool, param, why string) string {
	msg := "Input validation error: Invalid arguments for tool " + tool + ": " + why
	if param != "" {
		msg += " at " + param
	}
	return msg
}

// protocolRejection answers with a JSON-RPC -32602 error.
func protocolRejection(tool, param, why string) (*mcp.CallToolResult, error) {
	return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: validationMessage(tool, param, why)}
}

// textRejection answers with an isError result whose only content is the
// SDK's text, and no structured error object.
func textRejection(tool, param, why string) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{
		Text: "MCP error -32602: " + validationMessage(tool, param, why)}}}, nil
}

// rsDomains lists, per tool, the enumerated arguments whose values the
// RS checks with a typed 400 (docs/RS-CONTRACT.md §6.1, §9).
var rsDomains = map[string]map[string][]string{
	"query_records": {"order": {"asc", "desc"}, "count": {"none", "estimated", "exact"}},
	"aggregate":     {"granularity": {"minute", "hour", "day", "week", "month", "quarter", "year"}},
}

var (
	rangeOps  = []string{"gte", "gt", "lte", "lt"}
	plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// rsChecksValueDomains leaves the value domains of arguments to the RS:
// enumerated values (order, count, granularity), aggregate's limit and
// the names of filter range operators are forwarded unchecked and the
// RS's typed 400 is relayed. Types, shapes and key syntax stay the
// adapter's to check, and so does every argument the seeds or the RS
// contract need gated first (expand; query_records' limit, which the RS
// would clamp instead of refusing).
func rsChecksValueDomains() func(*Seams) {
	forward := func(ctx context.Context, k, v string) {
		st := callOf(ctx)
		st.mu.Lock()
		st.add.Set(k, v)
		st.mu.Unlock()
	}
	domains := func(tool string) func(ctx context.Context, args map[string]json.RawMessage) {
		return func(ctx context.Context, args map[string]json.RawMessage) {
			for k, allowed := range rsDomains[tool] {
				if v, ok := jsonString(args[k]); ok && plainName.MatchString(v) && !slices.Contains(allowed, v) {
					delete(args, k)
					forward(ctx, k, v)
				}
			}
			if tool == "aggregate" {
				var n int
				if json.Unmarshal(args["limit"], &n) == nil && args["limit"] != nil && (n < 1 || n > 100) {
					delete(args, "limit")
					forward(ctx, "limit", fmt.Sprint(n))
				}
			}
			forwardUnknownRangeOps(ctx, args, forward)
		}
	}
	return tracked(onArgs("query_records", domains("query_records")), onArgs("aggregate", domains("aggregate")))
}

// forwardUnknownRangeOps takes range operators the adapter does not know
// out of a filter and sends them to the RS as filter[field][op]=value.
func forwardUnknownRangeOps(ctx context.Context, args map[string]json.RawMessage, forward func(ctx context.Context, k, v string)) {
	var filter map[string]json.RawMessage
	if json.Unmarshal(args["filter"], &filter) != nil || filter == nil {
		return
	}
	changed := false
	for field, raw := range filter {
		var ops map[string]json.RawMessage
		if !plainName.MatchString(field) || json.Unmarshal(raw, &ops) != nil || ops == nil {
			continue
		}
		for op, v := range ops {
			value, scalar := jsonScalar(v)
			if slices.Contains(rangeOps, op) || !plainName.MatchString(op) || !scalar {
				continue
			}
			delete(ops, op)
			forward(ctx, "filter["+field+"]["+op+"]", value)
			changed = true
		}
		if len(ops) == 0 {
			delete(filter, field)
		} else {
			filter[field] = mustJSON(ops)
		}
	}
	switch {
	case !changed:
	case len(filter) == 0:
		delete(args, "filter")
	default:
		args["filter"] = mustJSON(filter)
	}
}

// jsonScalar is a string, number or boolean as the RS reads it.
func jsonScalar(raw json.RawMessage) (string, bool) {
	var v any
	if decodeJSON(raw, &v) != nil {
		return "", false
	}
	switch x := v.(type) {
	case string:
		return x, true
	case bool, json.Number:
		return fmt.Sprint(x), true
	}
	return "", false
}
