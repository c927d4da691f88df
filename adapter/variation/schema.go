package variation

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Variations of schema, and of the expand gate that reads it.

// cacheExpandSchema remembers the first compact schema a call with expand
// saw per stream and connection, so a withdrawn expand advertisement is
// never noticed.
func cacheExpandSchema() func(*Seams) {
	var cache sync.Map
	withExpand := onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		var args struct {
			Expand []string `json:"expand"`
		}
		if json.Unmarshal(req.Params.Arguments, &args) == nil && len(args.Expand) > 0 {
			callOf(ctx).vars["expand"] = true
		}
		return next(ctx, req)
	})
	return all(tracked(withExpand), withRS(func(next http.RoundTripper) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			st := callOf(r.Context())
			if st == nil || st.vars["expand"] != true || rsPath(r) != "/v1/schema" || isAuthProbe(r) {
				return next.RoundTrip(r)
			}
			key := r.Header.Get("Authorization") + "\x00" + r.URL.RawQuery
			if body, ok := cache.Load(key); ok {
				resp := &http.Response{StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
					Header: http.Header{"Content-Type": {"application/json"}}, Request: r}
				return replaceBody(resp, body.([]byte)), nil
			}
			resp, err := next.RoundTrip(r)
			if err != nil || resp.StatusCode != http.StatusOK {
				return resp, err
			}
			body := readBody(resp)
			cache.Store(key, body)
			return replaceBody(resp, body), nil
		})
	}))
}

// grantWideFullSchema answers schema(detail: "full") without a stream by
// reading the grant-wide schema (no view=compact) instead of refusing.
func grantWideFullSchema() func(*Seams) {
	return all(
		tracked(onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
			var args map[string]json.RawMessage
			if req.Params.Name != "schema" || json.Unmarshal(req.Params.Arguments, &args) != nil ||
				string(args["detail"]) != `"full"` || args["stream"] != nil {
				return next(ctx, req)
			}
			delete(args, "detail")
			callOf(ctx).vars["grant-wide"] = true
			return next(ctx, withArgs(req, args))
		})),
		onQuery(func(r *http.Request) bool {
			st := callOf(r.Context())
			return st != nil && st.vars["grant-wide"] == true && rsPath(r) == "/v1/schema"
		}, func(_ *http.Request, q url.Values) { q.Del("view") }))
}

// onSchemaResult rewrites the results of schema calls; scoped says whether
// the call named a stream.
func onSchemaResult(f func(scoped bool, r *result)) func(*Seams) {
	return withMiddleware(onResult("schema", func(req *mcp.CallToolRequest, r *result) {
		var args struct {
			Stream string `json:"stream"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		if !r.IsError {
			f(args.Stream != "", r)
		}
	}))
}

// keepFieldDetailInIndex returns the RS's compact rows whole, with the
// legend, in the global schema document instead of its index.
func keepFieldDetailInIndex() func(*Seams) {
	return tracked(onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		var args struct {
			Stream string `json:"stream"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		st := callOf(ctx)
		if err != nil || res.IsError || req.Params.Name != "schema" || args.Stream != "" || st.seen["/v1/schema"] == nil {
			return res, err
		}
		var doc map[string]any
		if decodeJSON(st.seen["/v1/schema"], &doc) != nil || doc == nil {
			return res, err
		}
		eachObject(doc, func(m map[string]any) { delete(m, "connector_instance_id") })
		if cs, ok := doc["connectors"].([]any); ok && len(cs) > 0 {
			delete(doc, "streams")
		}
		_, doc["field_capability_legend"] = adapter.CompactGrammar{}.Legend()
		r := result{res}
		sc := r.structured()
		sc["data"] = doc
		r.setStructured(sc)
		return res, nil
	}))
}

// eachObject calls f on every JSON object in v, outermost first.
func eachObject(v any, f func(map[string]any)) {
	switch t := v.(type) {
	case map[string]any:
		f(t)
		for _, c := range t {
			eachObject(c, f)
		}
	case []any:
		for _, c := range t {
			eachObject(c, f)
		}
	}
}

// repeatedRowList is a top-level streams list that repeats every
// connector-nested row, each naming its connector and connections: the
// same rows listed twice (S041, S022).
func repeatedRowList(doc map[string]any) []any {
	out, _ := doc["streams"].([]any)
	cs, _ := doc["connectors"].([]any)
	for _, c := range cs {
		cm, _ := c.(map[string]any)
		list, _ := cm["streams"].([]any)
		for _, s := range list {
			sm, ok := s.(map[string]any)
			if !ok {
				continue
			}
			row := map[string]any{"connector_key": cm["connector_key"]}
			if gc, ok := cm["granted_connections"]; ok {
				row["granted_connections"] = gc
			}
			for k, v := range sm {
				row[k] = v
			}
			out = append(out, row)
		}
	}
	return out
}

// dropLines drops the text lines that start with prefix.
func dropLines(text, prefix string) string {
	lines := strings.Split(text, "\n")
	out := lines[:0]
	for _, l := range lines {
		if !strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// summarizeFirstRowOnly drops the field summary of every scoped row after
// the first.
func summarizeFirstRowOnly(scoped bool, r *result) {
	if !scoped {
		return
	}
	lines := strings.Split(r.text(), "\n")
	seen := false
	for i, l := range lines {
		if !strings.HasPrefix(l, "stream name=") {
			continue
		}
		if at := strings.Index(l, " fields="); seen && at >= 0 {
			lines[i] = l[:at]
		}
		seen = true
	}
	r.setText(strings.Join(lines, "\n"))
}

// A rowGrammar is the default grammar with some row segments dropped, or
// its legend line.
type rowGrammar struct {
	adapter.CompactGrammar
	drop       func(seg string) bool // drop one segment
	dropFrom   string                // drop every segment from the first with this prefix
	dropLegend bool
	legendEdit func(line string) string // rewrite the legend line
}

// rangeLegendRe is the default legend's explanation of the range flag r,
// and its one other mention ("for r ops").
var rangeLegendRe = regexp.MustCompile(`\s*\br=\S+|,? \{field:\{op:value\}\} for r ops`)

func (g rowGrammar) Legend() (string, map[string]string) {
	line, keys := g.CompactGrammar.Legend()
	if g.dropLegend {
		line = ""
	}
	if g.legendEdit != nil {
		line = g.legendEdit(line)
	}
	return line, keys
}

func (g rowGrammar) Row(row map[string]any) []string {
	var out []string
	for _, s := range g.CompactGrammar.Row(row) {
		switch {
		case g.dropFrom != "" && strings.HasPrefix(s, g.dropFrom):
			return out
		case g.drop != nil && g.drop(s):
			continue
		}
		out = append(out, s)
	}
	return out
}

func grammar(g rowGrammar) func(*Seams) {
	return tune(func(t *adapter.Tuning) { t.Grammar = g })
}
