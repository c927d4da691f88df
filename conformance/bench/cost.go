package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// A Cost is what one result puts in front of a model: the text of its
// content[] and its structuredContent as received on the wire, in bytes
// and o200k tokens. Bounded is structuredContent after [BoundStructured]:
// what it would cost with its large fields bounded the way the text is.
type Cost struct {
	TextBytes        int `json:"text_bytes"`
	TextTokens       int `json:"text_tokens"`
	StructuredBytes  int `json:"structured_bytes"`
	StructuredTokens int `json:"structured_tokens"`
	BoundedBytes     int `json:"structured_bounded_bytes"`
	BoundedTokens    int `json:"structured_bounded_tokens"`
	// BoundedFields counts the fields the bound replaced.
	BoundedFields int `json:"structured_bounded_fields"`
}

func (c *Cost) add(o Cost) {
	c.TextBytes += o.TextBytes
	c.TextTokens += o.TextTokens
	c.StructuredBytes += o.StructuredBytes
	c.StructuredTokens += o.StructuredTokens
	c.BoundedBytes += o.BoundedBytes
	c.BoundedTokens += o.BoundedTokens
	c.BoundedFields += o.BoundedFields
}

// costOf measures a result. raw is the JSON-RPC result member as
// received; without it (the tap missed the call) structuredContent is
// re-encoded from the SDK's value.
func costOf(res *mcp.CallToolResult, raw json.RawMessage) (Cost, error) {
	var c Cost
	var text strings.Builder
	for _, p := range res.Content {
		if t, ok := p.(*mcp.TextContent); ok {
			text.WriteString(t.Text)
		}
	}
	var sc json.RawMessage
	if raw != nil {
		var r struct {
			StructuredContent json.RawMessage `json:"structuredContent"`
		}
		if err := json.Unmarshal(raw, &r); err != nil {
			return c, fmt.Errorf("result is not a JSON object: %w", err)
		}
		sc = r.StructuredContent
	} else if res.StructuredContent != nil {
		sc, _ = json.Marshal(res.StructuredContent)
	}
	if bytes.Equal(sc, []byte("null")) {
		sc = nil
	}
	bounded, n, err := BoundStructured(sc, DefaultBound)
	if err != nil {
		return c, err
	}
	c.TextBytes, c.StructuredBytes, c.BoundedBytes, c.BoundedFields = text.Len(), len(sc), len(bounded), n
	for _, m := range []struct {
		s   string
		out *int
	}{{text.String(), &c.TextTokens}, {string(sc), &c.StructuredTokens}, {string(bounded), &c.BoundedTokens}} {
		if *m.out, err = conformance.CountTokens(m.s); err != nil {
			return c, fmt.Errorf("count tokens: %w", err)
		}
	}
	return c, nil
}

// measureCost makes call c once through the target's tapped session and
// sizes its answer.
func (s *subject) measureCost(ctx context.Context, tool string, args map[string]any) (*mcp.CallToolResult, Cost, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	res, raw, err := s.target.CallRaw(ctx, tool, args)
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		return nil, Cost{}, fmt.Errorf("%s: no answer within %s", tool, s.timeout)
	case err != nil:
		return nil, Cost{}, err
	case res.IsError:
		return res, Cost{}, errors.New(toolText(res))
	}
	c, err := costOf(res, raw)
	return res, c, err
}

// A Journey is a fixed sequence of calls an agent makes to answer one
// question, with each call's arguments taken from the target's earlier
// answers, so any adapter can run it: schema, the scoped schema of the
// first stream it names, a search, fetch of the top hit, a bounded read
// of that hit's evidence field, and a count on the hit's stream.
type Journey struct {
	Steps []JourneyStep `json:"steps"`
	Total Cost          `json:"total"`
	// Error says why the journey stopped early: its total covers the
	// steps before.
	Error string `json:"error,omitempty"`
}

// A JourneyStep is one call of the journey and what its answer cost.
type JourneyStep struct {
	Step string         `json:"step"`
	Tool string         `json:"tool"`
	Args map[string]any `json:"args"`
	Cost Cost           `json:"cost"`
}

// journeyTerm is what the journey searches for: hits in several
// connections of the default fixture.
const journeyTerm = "budget"

// runJourney runs the journey, finding each argument in earlier answers.
func (s *subject) runJourney(ctx context.Context) *Journey {
	j := &Journey{}
	d := s.target.Dialect()
	var last *mcp.CallToolResult // the answer of the last step
	step := func(name, tool string, roles dialect.Args) map[string]any {
		args, err := d.Resolve(tool, roles)
		if err != nil {
			j.Error = fmt.Sprintf("%s: %v", name, err)
			return nil
		}
		res, c, err := s.measureCost(ctx, tool, args)
		last = res
		if err != nil {
			j.Error = fmt.Sprintf("%s: %v", name, err)
			return nil
		}
		j.Steps = append(j.Steps, JourneyStep{Step: name, Tool: tool, Args: args, Cost: c})
		j.Total.add(c)
		sc, _ := structuredMap(res)
		if sc == nil {
			sc = map[string]any{}
		}
		return sc
	}
	schema := step("schema", "schema", dialect.Args{})
	if schema == nil {
		return j
	}
	stream := firstStreamName(schema)
	if stream == "" {
		j.Error = "schema(stream): the schema answer's structuredContent names no stream"
		return j
	}
	if step("schema(stream)", "schema", dialect.Args{dialect.Stream: stream}) == nil {
		return j
	}
	found := step("search", "search", dialect.Args{dialect.Query: journeyTerm, dialect.Limit: 5})
	if found == nil {
		return j
	}
	hit := topHit(d, last, found)
	if hit.ID == "" {
		j.Error = "fetch: the search answer shows no hit id, in structuredContent or as a printed fetch call"
		return j
	}
	doc := step("fetch", "fetch", dialect.Args{dialect.RecordID: hit.ID})
	if doc == nil {
		return j
	}
	field := hit.Field
	if field == "" { // no evidence: the field fetch names as its text
		field, _ = dig(doc, "metadata", "text_field").(string)
	}
	if field == "" {
		j.Error = "read_record_field: neither the top hit's evidence nor fetch's metadata names a field"
		return j
	}
	if step("read_record_field", "read_record_field", dialect.Args{dialect.RecordID: hit.ID, dialect.Field: field, dialect.Length: 2048}) == nil {
		return j
	}
	agg := dialect.Args{dialect.Stream: cmp.Or(hit.Stream, stream), dialect.Metric: "count"}
	if hit.ConnectionID != "" {
		agg[dialect.Connection] = hit.ConnectionID
	}
	step("aggregate", "aggregate", agg)
	return j
}

// structuredMap is a result's structuredContent as a JSON object.
func structuredMap(res *mcp.CallToolResult) (map[string]any, error) {
	if res == nil || res.StructuredContent == nil {
		return nil, nil
	}
	data, err := json.Marshal(res.StructuredContent)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	err = json.Unmarshal(data, &m)
	return m, err
}

// firstStreamName is the first stream named in a schema answer: the
// first "name" in a "streams" array, members visited in key order.
func firstStreamName(v any) string {
	switch v := v.(type) {
	case map[string]any:
		if list, ok := v["streams"].([]any); ok {
			for _, e := range list {
				switch e := e.(type) {
				case string:
					return e
				case map[string]any:
					if n, ok := e["name"].(string); ok && n != "" {
						return n
					}
				}
			}
		}
		for _, k := range sortedKeys(v) {
			if n := firstStreamName(v[k]); n != "" {
				return n
			}
		}
	case []any:
		for _, e := range v {
			if n := firstStreamName(e); n != "" {
				return n
			}
		}
	}
	return ""
}

// hitRef is what the journey reads from the top search hit.
type hitRef struct{ ID, Stream, ConnectionID, Field string }

// topHit reads the first hit of a search answer, found by value: the
// first object with an id in any array of structuredContent, or the first
// fetch call its text prints.
func topHit(d *dialect.Dialect, res *mcp.CallToolResult, sc map[string]any) hitRef {
	hs := hitObjects(sc)
	if len(hs) == 0 {
		return hitRef{ID: hitID(d, res, sc)}
	}
	r := hs[0]
	h := hitRef{}
	h.ID, _ = r["id"].(string)
	if v, ok := d.ValueIn(r, "query_records", dialect.Stream); ok {
		h.Stream, _ = v.(string)
	}
	if v, ok := d.ValueIn(r, "search", dialect.Connection); ok {
		h.ConnectionID, _ = v.(string)
	}
	for _, k := range sortedKeys(r) { // the field an object within the hit names
		if _, ok := r[k].(string); ok || h.Field != "" {
			continue
		}
		walkObjects(r[k], func(m map[string]any) {
			if v, ok := d.ValueIn(m, "read_record_field", dialect.Field); ok && h.Field == "" {
				h.Field, _ = v.(string)
			}
		})
	}
	return h
}

// walkObjects calls f on every object within v, outermost first.
func walkObjects(v any, f func(map[string]any)) {
	switch x := v.(type) {
	case map[string]any:
		f(x)
		for _, k := range sortedKeys(x) {
			walkObjects(x[k], f)
		}
	case []any:
		for _, e := range x {
			walkObjects(e, f)
		}
	}
}
