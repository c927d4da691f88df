package variation

import (
	"context"
	"net/http"
	"net/url"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

// Faults of schema discovery beyond a row's text: which connections the
// index and the exhaustive schema list, what disambiguates, what bounds.

// schemaArgsOf is a schema call's arguments (nil for other tools).
func schemaArgsOf(req *mcp.CallToolRequest) map[string]json.RawMessage {
	raw := map[string]json.RawMessage{}
	if req.Params.Name != "schema" || json.Unmarshal(req.Params.Arguments, &raw) != nil {
		return nil
	}
	return raw
}

// argText is a string argument, "" when absent or not a string.
func argText(raw map[string]json.RawMessage, name string) string {
	s, _ := jsonString(raw[name])
	return s
}

// dropIndexConnection lists, in the global index, every stream served by
// several connections with its last connection left out.
func dropIndexConnection(scoped bool, r *result) {
	if scoped {
		return
	}
	sc := r.structured()
	doc, _ := sc["data"].(map[string]any)
	drop := func(sm map[string]any, inherited any) {
		list, own := sm["granted_connections"].([]any)
		if !own {
			list, _ = inherited.([]any)
		}
		if len(list) > 1 {
			sm["granted_connections"] = list[:len(list)-1]
		}
	}
	cs, _ := doc["connectors"].([]any)
	for _, c := range cs {
		cm, _ := c.(map[string]any)
		streams, _ := cm["streams"].([]any)
		for _, s := range streams {
			if sm, ok := s.(map[string]any); ok {
				drop(sm, cm["granted_connections"])
			}
		}
	}
	top, _ := doc["streams"].([]any)
	for _, s := range top {
		if sm, ok := s.(map[string]any); ok {
			drop(sm, nil)
		}
	}
	r.setStructured(sc)
}

// repeatConnectorConnections gives every connector-nested stream its
// connector's granted_connections as its own.
func repeatConnectorConnections(_ bool, r *result) {
	sc := r.structured()
	doc, _ := sc["data"].(map[string]any)
	cs, _ := doc["connectors"].([]any)
	for _, c := range cs {
		cm, _ := c.(map[string]any)
		gc, ok := cm["granted_connections"].([]any)
		if !ok {
			continue
		}
		streams, _ := cm["streams"].([]any)
		for _, s := range streams {
			if sm, ok := s.(map[string]any); ok && sm["granted_connections"] == nil {
				sm["granted_connections"] = gc
			}
		}
	}
	r.setStructured(sc)
}

// padRows adds a description of n characters to every object under
// structuredContent.data that has a key named key (rows: "name"; fields:
// "type").
func padRows(key string, n int) func(scoped bool, r *result) {
	pad := strings.Repeat("This value belongs to the owner and is read under the client's grant. ", n/70+1)[:n]
	return func(_ bool, r *result) {
		sc := r.structured()
		eachObject(sc["data"], func(m map[string]any) {
			if _, ok := m[key]; ok {
				m["description"] = pad
			}
		})
		r.setStructured(sc)
	}
}

// onFullSchema rewrites the results of schema(stream, detail: "full")
// calls with (or without) connection_id, and leaves every other call
// alone.
func onFullSchema(withConnection bool, f func(raw map[string]json.RawMessage, res *mcp.CallToolResult, again schemaAgain) *mcp.CallToolResult) func(*Seams) {
	return withMiddleware(onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		raw := schemaArgsOf(req)
		res, err := next(ctx, req)
		if err != nil || argText(raw, "stream") == "" || argText(raw, "detail") != "full" || (argText(raw, "connection_id") != "") != withConnection {
			return res, err
		}
		return f(raw, res, func(args map[string]json.RawMessage) (*mcp.CallToolResult, error) {
			return next(ctx, withArgs(req, args))
		}), nil
	}))
}

// A schemaAgain makes another schema call within the one being answered.
type schemaAgain func(args map[string]json.RawMessage) (*mcp.CallToolResult, error)

// pickFirstSourceFull answers an ambiguous schema(stream, detail: "full")
// with the exhaustive schema of the first available connection instead of
// the disambiguation error.
func pickFirstSourceFull() func(*Seams) {
	return onFullSchema(false,
		func(raw map[string]json.RawMessage, res *mcp.CallToolResult, again schemaAgain) *mcp.CallToolResult {
			e := result{res}.errorObject()
			avail, _ := e["available_connections"].([]any)
			if len(avail) == 0 {
				return res
			}
			first, _ := avail[0].(map[string]any)
			id, _ := first["connection_id"].(string)
			raw["connection_id"], _ = json.Marshal(id)
			if again, err := again(raw); err == nil {
				return again
			}
			return res
		})
}

// mergeOtherSourcesFull adds, to schema(stream, connection_id, detail:
// "full"), the exhaustive connectors of the stream's other connections.
func mergeOtherSourcesFull() func(*Seams) {
	return onFullSchema(true,
		func(raw map[string]json.RawMessage, res *mcp.CallToolResult, again schemaAgain) *mcp.CallToolResult {
			if res.IsError {
				return res
			}
			call := func(args map[string]json.RawMessage) map[string]any {
				out, err := again(args)
				if err != nil || out.IsError {
					return nil
				}
				doc, _ := result{out}.structured()["data"].(map[string]any)
				return doc
			}
			asked := argText(raw, "connection_id")
			compact := call(map[string]json.RawMessage{"stream": raw["stream"]})
			r := result{res}
			sc := r.structured()
			doc, _ := sc["data"].(map[string]any)
			cs, _ := doc["connectors"].([]any)
			var others []string
			eachObject(compact, func(m map[string]any) {
				if id, ok := m["connection_id"].(string); ok && id != asked && !strings.Contains(strings.Join(others, ","), id) {
					others = append(others, id)
				}
			})
			for _, id := range others {
				raw["connection_id"], _ = json.Marshal(id)
				if more, _ := call(raw)["connectors"].([]any); len(more) > 0 {
					cs = append(cs, more...)
				}
			}
			doc["connectors"] = cs
			r.setStructured(sc)
			return res
		})
}

// encodeFilterAsJSON sends query_records' object filter to the RS as one
// bare filter= of JSON instead of filter[field]… parameters.
func encodeFilterAsJSON() func(*Seams) {
	return onQuery(inTool("query_records", isRecordList), func(_ *http.Request, q url.Values) {
		filter := map[string]any{}
		for k, v := range q {
			name, ok := strings.CutPrefix(k, "filter[")
			if !ok {
				continue
			}
			filter[strings.TrimSuffix(name, "]")] = v[0]
			q.Del(k)
		}
		if len(filter) > 0 {
			q.Set("filter", compactJSON(filter))
		}
	})
}

// dropExpandLimitCap forwards expand without its expand_limit[relation].
func dropExpandLimitCap() func(*Seams) {
	return onQuery(isRecordList, func(_ *http.Request, q url.Values) {
		for k := range q {
			if strings.HasPrefix(k, "expand_limit[") {
				q.Del(k)
			}
		}
	})
}

// relayFullSchemaRefusal forwards schema(detail: "full") without stream to
// the RS as GET /v1/schema?detail=full, and relays the RS's refusal
// instead of rejecting before fetching.
func relayFullSchemaRefusal() func(*Seams) {
	return all(
		tracked(onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
			raw := schemaArgsOf(req)
			if raw == nil || argText(raw, "detail") != "full" || argText(raw, "stream") != "" {
				return next(ctx, req)
			}
			delete(raw, "detail")
			callOf(ctx).vars["relay-full"] = true
			return next(ctx, withArgs(req, raw))
		})),
		onQuery(func(r *http.Request) bool {
			st := callOf(r.Context())
			return st != nil && st.vars["relay-full"] == true && rsPath(r) == "/v1/schema"
		}, func(_ *http.Request, q url.Values) {
			q.Del("view")
			q.Set("detail", "full")
		}))
}

// indexRowLineRe is a global index text's row line: its stream name and
// connector key.
var indexRowLineRe = regexp.MustCompile(`(?m)^stream name=(\S+) connector_key=("[^"]*"|\S+)`)

// misgroupIndexRow lists, in the global index text, the first stream whose
// name only one connector has under another connector's key.
func misgroupIndexRow(scoped bool, r *result) {
	if scoped {
		return
	}
	text := r.text()
	rows := indexRowLineRe.FindAllStringSubmatchIndex(text, -1)
	count := map[string]int{}
	for _, m := range rows {
		count[text[m[2]:m[3]]]++
	}
	for _, m := range rows {
		name, key := text[m[2]:m[3]], text[m[4]:m[5]]
		if count[name] != 1 {
			continue
		}
		for _, o := range rows {
			if other := text[o[4]:o[5]]; other != key {
				r.setText(text[:m[4]] + other + text[m[5]:])
				return
			}
		}
	}
}

// widenScopedConnections answers schema(stream, connection_id) with the
// row kept to that connection but its connector's granted_connections, and
// the text, naming every connection of the stream.
func widenScopedConnections() func(*Seams) {
	return withMiddleware(onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		raw := schemaArgsOf(req)
		res, err := next(ctx, req)
		conn := argText(raw, "connection_id")
		if err != nil || res.IsError || conn == "" || argText(raw, "stream") == "" || argText(raw, "detail") == "full" {
			return res, err
		}
		wide, werr := next(ctx, withArgs(req, map[string]json.RawMessage{"stream": raw["stream"]}))
		if werr != nil || wide.IsError {
			return res, err
		}
		wdoc, _ := result{wide}.structured()["data"].(map[string]any)
		lists := map[any]any{}
		var others []string
		wcs, _ := wdoc["connectors"].([]any)
		for _, c := range wcs {
			cm, _ := c.(map[string]any)
			gc, _ := cm["granted_connections"].([]any)
			lists[cm["connector_key"]] = gc
			for _, x := range gc {
				xm, _ := x.(map[string]any)
				if id, _ := xm["connection_id"].(string); id != "" && id != conn {
					others = append(others, id)
				}
			}
		}
		out := result{res}
		sc := out.structured()
		doc, _ := sc["data"].(map[string]any)
		cs, _ := doc["connectors"].([]any)
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			if gc, ok := cm["granted_connections"]; ok {
				streams, _ := cm["streams"].([]any)
				for _, s := range streams {
					if sm, ok := s.(map[string]any); ok && sm["granted_connections"] == nil {
						sm["granted_connections"] = gc // the row stays narrow
					}
				}
			}
			if wideList, ok := lists[cm["connector_key"]]; ok {
				cm["granted_connections"] = wideList
			}
		}
		out.setStructured(sc)
		if len(others) > 0 {
			out.setText(out.text() + "\nconnector_connections=" + strings.Join(others, "|"))
		}
		return res, err
	}))
}
