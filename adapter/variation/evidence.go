package variation

import (
	"context"
	"encoding/base64"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

// The evidence ladder's faults (seeds 002 and 004): how handles, previews,
// windows and large or binary fields reach the model.

// handlesThroughResourcesOnly serves pdpp:// handles through resources/read
// and refuses them as fetch and read_record_field ids: a host that cannot
// read resources reaches nothing a handle names.
func handlesThroughResourcesOnly() func(*Seams) {
	return withMiddleware(advertiseResources, undocumentHandleIDs(), refuseHandleIDs(), readHandlesAsResources())
}

// showHitURIs names each search hit's pdpp://record/ URI (its escaped
// fetch id, which fetch takes) in structuredContent beside its id.
func showHitURIs() func(*Seams) {
	return onSearchResults(func(res map[string]any) { res["uri"] = recordURI(str(res["id"])) })
}

// undocumentHandleIDs drops from the tools' documentation that their ids
// may be pdpp:// handles.
func undocumentHandleIDs() mcp.Middleware {
	drop := strings.NewReplacer(", a pdpp://record/ URI, or a pdpp://field-window/ URI (with its field_path)", "",
		" or a pdpp://record/ URI", "", ", or a pdpp://record/ URI", "")
	return onTools(func(tools []*mcp.Tool) []*mcp.Tool {
		for _, t := range tools {
			t.Description = drop.Replace(t.Description)
			setSchemaText(t, drop.Replace(schemaText(t)))
		}
		return tools
	})
}

// refuseHandleIDs answers a pdpp:// id in fetch or read_record_field with
// the adapter's invalid_id error.
func refuseHandleIDs() mcp.Middleware {
	return onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		var args struct{ ID string }
		_ = json.Unmarshal(req.Params.Arguments, &args)
		if strings.HasPrefix(args.ID, "pdpp://") && (req.Params.Name == "fetch" || req.Params.Name == "read_record_field") {
			r := result{&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{}}}}
			r.setError(map[string]any{"code": "invalid_id", "param": "id", "message": "pdpp:// handles are resources: read them with resources/read"})
			return r.CallToolResult, nil
		}
		return next(ctx, req)
	})
}

// readHandlesAsResources lists resource templates for both handles and answers resources/read of a pdpp://record/ handle
// with its fetch document, and of a pdpp://field-window/ handle with its
// window, as text; any other read goes on to the adapter.
func readHandlesAsResources() mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/templates/list" {
				return &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{
					{Name: "record", URITemplate: "pdpp://record/{handle}", MIMEType: "text/plain"},
					{Name: "field-window", URITemplate: "pdpp://field-window/{handle}", MIMEType: "text/plain"}}}, nil
			}
			rr, ok := req.(*mcp.ReadResourceRequest)
			if method != "resources/read" || !ok || rr.Params == nil {
				return next(ctx, method, req)
			}
			uri := rr.Params.URI
			args := map[string]any{"id": uri}
			tool := "fetch"
			if strings.HasPrefix(uri, "pdpp://field-window/") {
				tool, args["field_path"] = "read_record_field", handleField(uri)
			}
			raw, _ := json.Marshal(args)
			out, err := next(ctx, "tools/call", &mcp.CallToolRequest{Session: rr.Session, Extra: rr.Extra, Params: &mcp.CallToolParamsRaw{Name: tool, Arguments: raw}})
			res, _ := out.(*mcp.CallToolResult)
			if err != nil || res == nil || res.IsError {
				return nil, fmt.Errorf("resource not found: %s", uri)
			}
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: "text/plain", Text: result{res}.text()}}}, nil
		}
	}
}

// handleField is the field_path a base64url JSON handle names.
func handleField(uri string) string {
	var h struct {
		FieldPath string `json:"field_path"`
	}
	_, rest, _ := strings.Cut(strings.TrimPrefix(uri, "pdpp://"), "/")
	raw, _ := base64.RawURLEncoding.DecodeString(strings.TrimRight(rest, "="))
	_ = json.Unmarshal(raw, &h)
	return h.FieldPath
}

// smallTextAsFileLink answers a complete window with a link to a file
// export of the field instead of its text.
func smallTextAsFileLink(_ *mcp.CallToolRequest, _ *string, sc map[string]any, r *result) {
	window, _ := sc["window"].(map[string]any)
	record, _ := sc["record"].(map[string]any)
	field, _ := sc["field"].(map[string]any)
	if window["complete"] != true {
		return
	}
	name := strings.NewReplacer("/", "_", ":", "_").Replace(str(record["id"])) + "." + str(field["path"]) + ".txt"
	r.Content = []mcp.Content{&mcp.ResourceLink{URI: "file:///tmp/pdpp-export/" + name, Name: name, MIMEType: "text/plain"}}
	r.StructuredContent = map[string]any{"record": record, "field": field, "resource": map[string]any{"uri": "file:///tmp/pdpp-export/" + name}}
}

// omitWindowTotal drops a window's total size from its text and
// structuredContent.
func omitWindowTotal(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	window, _ := sc["window"].(map[string]any)
	delete(window, "total_chars")
	*header = windowTotalRe.ReplaceAllString(*header, "")
}

var windowTotalRe = regexp.MustCompile(` total_chars="\d+"`)

// mcpURLRowRe is the setup page's row that shows the MCP URL on its own.
var mcpURLRowRe = regexp.MustCompile(`<div class="row"><code id="mcp-url">[^<]*</code>`)

// binaryByName shows every field named like binary content as binary
// metadata in query_records' text, whatever it holds.
func binaryByName() func(*Seams) {
	return withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
		if !r.IsError {
			r.setText(binaryNamedRe.ReplaceAllString(r.text(), `"$1":"binary-only; metadata only"`))
		}
	}))
}

var binaryNamedRe = regexp.MustCompile(`"(image|photo|avatar|attachment|blob|thumbnail|file)":"(?:[^"\\]|\\.)*"`)

// dropBlobRoutes removes every grant-scoped blob route from what
// query_records and fetch show (fetch's document stays mirrored).
func dropBlobRoutes() func(*Seams) {
	return withMiddleware(onResult("", func(req *mcp.CallToolRequest, r *result) {
		if r.IsError || (req.Params.Name != "query_records" && req.Params.Name != "fetch") {
			return
		}
		text := blobRouteRe.ReplaceAllString(r.text(), "")
		r.setText(text)
		if req.Params.Name == "fetch" {
			r.setStructured(json.RawMessage(text))
		}
	}))
}

var blobRouteRe = regexp.MustCompile(`(?:GET )?https?://[^\s"\\]*/v1/blobs/[^\s"\\]+`)

// hideBinaryFields drops binary fields from query_records' previews: their
// metadata entries and their continuation lines, so nothing says they exist.
func hideBinaryFields() func(*Seams) {
	return withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
		if !r.IsError {
			r.setText(binaryLineRe.ReplaceAllString(binaryEntryRe.ReplaceAllString(r.text(), ""), ""))
		}
	}))
}

var (
	binaryEntryRe = regexp.MustCompile(`"[^"]+":"\[binary-only:[^"]*\]",?`)
	binaryLineRe  = regexp.MustCompile(`(?m)^record\[\d+\]\.\S+ binary-only.*\n?`)
)

// evidenceIDRe is the id an evidence line names.
var evidenceIDRe = regexp.MustCompile(`(?m)^(\d+\. result=\d+ field_path=.*) id=\S+`)

// hideUnprovenHitIDs drops from search's text the id of every hit that
// carries no evidence window: a metadata-only hit leaves no fetch path.
func hideUnprovenHitIDs() func(*Seams) {
	return withMiddleware(onResult("search", func(_ *mcp.CallToolRequest, r *result) {
		if r.IsError {
			return
		}
		text := r.text()
		list, _ := r.structured()["results"].([]any)
		for _, x := range list {
			if m, _ := x.(map[string]any); m != nil && m["evidence_excerpts"] == nil && str(m["id"]) != "" {
				text = strings.ReplaceAll(text, str(m["id"]), "")
			}
		}
		r.setText(text)
	}))
}

// promoteSummary guesses by name that a field called summary is a record's
// primary text: each record preview shows the summary's value in place of
// the record's longest text value.
func promoteSummary() func(*Seams) {
	return withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
		if r.IsError {
			return
		}
		env, _ := r.structured()["data"].(map[string]any)
		list, _ := env["data"].([]any)
		lines := strings.Split(r.text(), "\n")
		for i, line := range lines {
			m := previewIndexRe.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			n, _ := strconv.Atoi(m[1])
			if n < len(list) {
				rec, _ := list[n].(map[string]any)
				data, _ := rec["data"].(map[string]any)
				lines[i] = withPromotedSummary(line, data)
			}
		}
		r.setText(strings.Join(lines, "\n"))
	}))
}

// withPromotedSummary shows data's summary as the value of its longest
// text field in a preview line.
func withPromotedSummary(line string, data map[string]any) string {
	sum, _ := data["summary"].(string)
	longest, size := "", 0
	for k, v := range data {
		if s, ok := v.(string); ok && k != "summary" && len(s) > size {
			longest, size = k, len(s)
		}
	}
	at := strings.Index(line, `"`+longest+`":"`)
	if sum == "" || at < 0 {
		return line
	}
	start := at + len(longest) + 4
	end := start + len(jsonStringBodyRe.FindString(line[start:]))
	return line[:start] + strings.Trim(compactJSON(sum), `"`) + line[end:]
}

var (
	previewIndexRe   = regexp.MustCompile(`^record\[(\d+)\] `)
	jsonStringBodyRe = regexp.MustCompile(`^(?:[^"\\]|\\.)*`)
)

// nextSkipsAWindow: from the second window on, the next arguments (text
// and structuredContent) start one window further on, so a window's worth
// of the field is never served.
func nextSkipsAWindow(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	window, _ := sc["window"].(map[string]any)
	start, end := intOf(window["start_chars"]), intOf(window["end_chars"])
	if start == 0 || window["next_cursor"] == nil {
		return
	}
	moveNext(header, window, end, end+(end-start))
}

// nextSkipsFromFourthWindow skips a window in the next arguments of
// windows that start three of their lengths or more into the field.
func nextSkipsFromFourthWindow(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	window, _ := sc["window"].(map[string]any)
	start, end := intOf(window["start_chars"]), intOf(window["end_chars"])
	if end <= start || start < 3*(end-start) || window["next_cursor"] == nil {
		return
	}
	moveNext(header, window, end, end+(end-start))
}

// qNextRestarts: the next arguments of a window read around a match (q)
// restart at the field's start plus the window's length, before the match.
func qNextRestarts(req *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	var in struct {
		Q string `json:"q"`
	}
	window, _ := sc["window"].(map[string]any)
	if json.Unmarshal(req.Params.Arguments, &in) != nil || in.Q == "" || window["next_cursor"] == nil {
		return
	}
	start, end := intOf(window["start_chars"]), intOf(window["end_chars"])
	moveNext(header, window, end, end-start)
}

// moveNext points a window's next continuation from offset from to to.
func moveNext(header *string, window map[string]any, from, to int) {
	window["next_cursor"] = strconv.Itoa(to)
	f, n := strconv.Itoa(from), strconv.Itoa(to)
	*header = strings.NewReplacer("next_cursor="+f, "next_cursor="+n, "next_offset_chars="+f, "next_offset_chars="+n).Replace(*header)
	lines := strings.Split(*header, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "next read_record_field args=") {
			lines[i] = strings.Replace(l, `"offset_chars":`+f, `"offset_chars":`+n, 1)
		}
	}
	*header = strings.Join(lines, "\n")
}

// intOf reads a JSON number (or a numeric string) as an int.
func intOf(v any) int {
	switch x := v.(type) {
	case float64:
		return int(x)
	case int:
		return x
	case json.Number:
		n, _ := x.Int64()
		return int(n)
	case string:
		n, _ := strconv.Atoi(x)
		return n
	}
	return 0
}

// continuationTotalIsWindowEnd: a window read from past the field's start
// gives the window's end as the field's total size.
func continuationTotalIsWindowEnd(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	window, _ := sc["window"].(map[string]any)
	start, end := intOf(window["start_chars"]), intOf(window["end_chars"])
	if start == 0 || window["total_chars"] == nil {
		return
	}
	window["total_chars"] = end
	*header = windowTotalRe.ReplaceAllString(*header, fmt.Sprintf(` total_chars="%d"`, end))
}

// seekMatchRelative is an adapter whose field read takes its query as
// "seek", a name no reader knows, shown only in the reads its search
// evidence prints; and whose window gives the match offsets relative to
// the window's start, while its served range is the field's.
func seekMatchRelative() func(*Seams) {
	return all(
		withMiddleware(
			onTool("read_record_field", func(t *mcp.Tool) {
				var s map[string]any
				if decodeJSON([]byte(schemaText(t)), &s) != nil {
					return
				}
				props, _ := s["properties"].(map[string]any)
				delete(props, "q")
				props["seek"] = map[string]any{"type": "string", "description": "Centre the window on the first case-insensitive occurrence."}
				setSchemaText(t, compactJSON(s))
			}),
			onArgs("read_record_field", func(_ context.Context, args map[string]json.RawMessage) {
				if v, ok := args["seek"]; ok {
					args["q"] = v
					delete(args, "seek")
				}
			}),
			onResult("search", func(req *mcp.CallToolRequest, r *result) {
				var in struct {
					Q string `json:"q"`
				}
				if r.IsError || json.Unmarshal(req.Params.Arguments, &in) != nil || in.Q == "" {
					return
				}
				r.setText(evidenceReadRe.ReplaceAllStringFunc(r.text(), func(m string) string {
					sub := evidenceReadRe.FindStringSubmatch(m)
					return m + " " + compactJSON(map[string]any{"id": sub[2], "field_path": sub[1], "seek": in.Q})
				}))
			})),
		onWindow(func(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
			window, _ := sc["window"].(map[string]any)
			if window["match_start_chars"] == nil {
				return
			}
			start := intOf(window["start_chars"])
			ms, me := intOf(window["match_start_chars"]), intOf(window["match_end_chars"])
			window["match_start_chars"], window["match_end_chars"] = ms-start, me-start
			*header = strings.Replace(*header, fmt.Sprintf("match_start_chars=%d match_end_chars=%d", ms, me),
				fmt.Sprintf("match_start_chars=%d match_end_chars=%d", ms-start, me-start), 1)
		}))
}

// evidenceReadRe is an evidence line's field, record id and read tool.
var evidenceReadRe = regexp.MustCompile(`field_path=(\S+) snippet=".*?" id=(\S+) complete=\S+ read=read_record_field`)
