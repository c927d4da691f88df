package variation

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Variations of fetch and read_record_field.

// onFetch rewrites fetch's document (its text and structuredContent); the
// call's state holds what the RS answered.
func onFetch(f func(req *mcp.CallToolRequest, st *callState, doc *adapter.Document, r *result)) func(*Seams) {
	return tracked(onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		if err != nil || res.IsError || req.Params.Name != "fetch" {
			return res, err
		}
		r := result{res}
		var doc adapter.Document
		if decodeJSON([]byte(r.text()), &doc) != nil {
			return res, err
		}
		f(req, callOf(ctx), &doc, &r)
		if r.StructuredContent == nil || isRaw(r.StructuredContent) {
			text := compactJSON(doc)
			r.setText(text)
			r.setStructured(json.RawMessage(text))
		}
		return res, nil
	}))
}

func isRaw(v any) bool { _, ok := v.(json.RawMessage); return ok }

// rsRecord is the record the RS answered in this call, as JSON.
func rsRecord(st *callState) map[string]any {
	for path, body := range st.seen {
		if strings.Contains(path, "/records/") && !strings.HasSuffix(path, "/field-window") {
			var rec map[string]any
			if decodeJSON(body, &rec) == nil {
				return rec
			}
		}
	}
	return nil
}

// addFetchDataKey returns the RS's canonical record beside the document.
func addFetchDataKey(_ *mcp.CallToolRequest, st *callState, doc *adapter.Document, r *result) {
	r.setStructured(map[string]any{"id": doc.ID, "title": doc.Title, "text": doc.Text, "url": doc.URL, "metadata": doc.Metadata, "data": rsRecord(st)})
}

// addContentLadder puts a content_ladder beside the document in
// structuredContent only, as upstream's fetch does (catalog C4).
func addContentLadder(_ *mcp.CallToolRequest, _ *callState, doc *adapter.Document, r *result) {
	r.setText(compactJSON(doc))
	r.setStructured(map[string]any{"id": doc.ID, "title": doc.Title, "text": doc.Text, "url": doc.URL, "metadata": doc.Metadata,
		"content_ladder": map[string]any{"id": doc.ID, "next": "read_record_field"}})
}

// guessDocumentByName titles a fetch document and picks its text by
// conventional field names, declared roles or not, as upstream does
// (catalog C12).
func guessDocumentByName(req *mcp.CallToolRequest, st *callState, doc *adapter.Document, _ *result) {
	data, _ := rsRecord(st)["data"].(map[string]any)
	if len(fetchFields(req)) > 0 {
		return // a projection is S030's
	}
	pick := func(names ...string) string {
		for _, k := range names {
			if s, ok := data[k].(string); ok && s != "" {
				return s
			}
		}
		return ""
	}
	if s := pick("title", "name", "subject", "summary"); s != "" {
		doc.Title = s
	}
	if s := pick("text", "content", "body", "summary"); s != "" {
		doc.Text = s
	}
}

// staleFetchMirror mirrors the document in content[] without its metadata.
func staleFetchMirror(_ *mcp.CallToolRequest, _ *callState, doc *adapter.Document, r *result) {
	r.setStructured(map[string]any{"id": doc.ID, "title": doc.Title, "text": doc.Text, "url": doc.URL, "metadata": doc.Metadata})
	r.setText(compactJSON(map[string]any{"id": doc.ID, "title": doc.Title, "text": doc.Text, "url": doc.URL}))
}

// shortLongMirrorText mirrors a document whose text runs over 400
// characters with that text cut; structuredContent keeps it whole.
func shortLongMirrorText(_ *mcp.CallToolRequest, _ *callState, doc *adapter.Document, r *result) {
	if len([]rune(doc.Text)) <= 400 {
		return
	}
	r.setStructured(map[string]any{"id": doc.ID, "title": doc.Title, "text": doc.Text, "url": doc.URL, "metadata": doc.Metadata})
	r.setText(compactJSON(map[string]any{"id": doc.ID, "title": doc.Title, "text": string([]rune(doc.Text)[:240]) + "…", "url": doc.URL, "metadata": doc.Metadata}))
}

// cutLengthAsTotal states a cut fetch text's shown length as the field's
// total size; the cut mark and continuation stay.
func cutLengthAsTotal(_ *mcp.CallToolRequest, _ *callState, doc *adapter.Document, _ *result) {
	if doc.Metadata["text_truncated"] == true {
		doc.Metadata["text_total_chars"] = len([]rune(doc.Text))
	}
}

// staleMirrorTitle mirrors each fetched document with the title of the
// document fetched before it; structuredContent keeps its own.
func staleMirrorTitle() func(*Seams) {
	var mu sync.Mutex
	last := ""
	return onFetch(func(_ *mcp.CallToolRequest, _ *callState, doc *adapter.Document, r *result) {
		mu.Lock()
		prev := last
		last = doc.Title
		mu.Unlock()
		if prev == "" || prev == doc.Title {
			return
		}
		r.setStructured(map[string]any{"id": doc.ID, "title": doc.Title, "text": doc.Text, "url": doc.URL, "metadata": doc.Metadata})
		r.setText(compactJSON(map[string]any{"id": doc.ID, "title": prev, "text": doc.Text, "url": doc.URL, "metadata": doc.Metadata}))
	})
}

// silentCutFetchText keeps the cut of a long text but not what says so.
func silentCutFetchText(_ *mcp.CallToolRequest, _ *callState, doc *adapter.Document, _ *result) {
	if doc.Metadata["text_truncated"] != true {
		return
	}
	if i := strings.LastIndex(doc.Text, " [text truncated at "); i >= 0 {
		doc.Text = strings.TrimSuffix(doc.Text[:i], "…")
	}
	for _, k := range []string{"text_truncated", "text_field", "text_total_chars", "text_continuation"} {
		delete(doc.Metadata, k)
	}
}

// cutLabelledInMetadataOnly keeps the metadata of a cut fetch text but
// drops the notice from the text.
func cutLabelledInMetadataOnly(_ *mcp.CallToolRequest, _ *callState, doc *adapter.Document, _ *result) {
	if i := strings.LastIndex(doc.Text, " [text truncated at "); i >= 0 && doc.Metadata["text_truncated"] == true {
		doc.Text = strings.TrimSuffix(doc.Text[:i], "…")
	}
}

// fetchFields is the fields argument of a fetch call.
func fetchFields(req *mcp.CallToolRequest) []string {
	var args struct {
		Fields []string `json:"fields"`
	}
	_ = json.Unmarshal(req.Params.Arguments, &args)
	return args.Fields
}

// leakUnrequestedFields copies the record fields the RS sent beyond a
// fetch(fields) projection, and beyond the stream's key, into metadata.
func leakUnrequestedFields(req *mcp.CallToolRequest, st *callState, doc *adapter.Document, _ *result) {
	fields := fetchFields(req)
	rec := rsRecord(st)
	data, _ := rec["data"].(map[string]any)
	if len(fields) == 0 || data == nil {
		return
	}
	keep := append(fields, primaryKey(st.seen["/v1/schema"], str(rec["stream"]))...)
	other := map[string]any{}
	for k, v := range data {
		if !slices.Contains(keep, k) {
			other[k] = v
		}
	}
	if len(other) > 0 {
		doc.Metadata["other_fields"] = other
	}
}

// primaryKey is a stream's declared key in a compact schema document.
func primaryKey(body []byte, stream string) []string {
	var doc struct {
		Streams    []schemaRow `json:"streams"`
		Connectors []struct {
			Streams []schemaRow `json:"streams"`
		} `json:"connectors"`
	}
	_ = json.Unmarshal(body, &doc)
	rows := doc.Streams
	for _, c := range doc.Connectors {
		rows = append(rows, c.Streams...)
	}
	var out []string
	for _, r := range rows {
		if r.Name == stream {
			out = append(out, r.PrimaryKey...)
		}
	}
	return out
}

type schemaRow struct {
	Name       string   `json:"name"`
	PrimaryKey []string `json:"primary_key"`
}

// noJSONFieldWindows refuses, in read_record_field, the record read that
// windows a JSON field, so the field stays unreadable as not text.
func noJSONFieldWindows() func(*Seams) {
	return all(tracked(), withRS(func(next http.RoundTripper) http.RoundTripper {
		return roundTrip(func(r *http.Request) (*http.Response, error) {
			if inTool("read_record_field", isRecordRead)(r) {
				return nil, errors.New("JSON field windows are not read")
			}
			return next.RoundTrip(r)
		})
	}))
}

// onWindow rewrites read_record_field's result: its text header (before
// the window text), the window text, and structuredContent.
func onWindow(f func(req *mcp.CallToolRequest, header *string, sc map[string]any, r *result)) func(*Seams) {
	return withMiddleware(onResult("read_record_field", func(req *mcp.CallToolRequest, r *result) {
		if r.IsError {
			return
		}
		sc := r.structured()
		window, _ := sc["window"].(map[string]any)
		wtext := "\n" + str(window["text"])
		header := strings.TrimSuffix(r.text(), wtext)
		f(req, &header, sc, r)
		r.setText(header + wtext)
		if r.StructuredContent != nil {
			r.setStructured(sc)
		}
	}))
}

// windowTextDropsLead shows each window's text without its first 12
// characters in content[]; the served range and structuredContent stay.
func windowTextDropsLead() func(*Seams) {
	return withMiddleware(onResult("read_record_field", func(_ *mcp.CallToolRequest, r *result) {
		window, _ := r.structured()["window"].(map[string]any)
		if w := str(window["text"]); !r.IsError && len([]rune(w)) > 24 {
			r.setText(strings.Replace(r.text(), "\n"+w, "\n"+string([]rune(w)[12:]), 1))
		}
	}))
}

// previousSkipsBack points each window's previous continuation one
// window further back than the window before it (clamped at 0).
func previousSkipsBack(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	window, _ := sc["window"].(map[string]any)
	start, end := intOf(window["start_chars"]), intOf(window["end_chars"])
	if start <= 0 || end <= start {
		return
	}
	prev, back := max(0, start-(end-start)), max(0, start-2*(end-start))
	*header = strings.ReplaceAll(*header, fmt.Sprintf(`"offset_chars":%d}`, prev), fmt.Sprintf(`"offset_chars":%d}`, back))
	*header = strings.Replace(*header, fmt.Sprintf("previous_offset_chars=%d", prev), fmt.Sprintf("previous_offset_chars=%d", back), 1)
}

// endPastField states a last window's end as its start plus the length
// asked, past the field's end.
func endPastField(req *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	window, _ := sc["window"].(map[string]any)
	start, end, total := intOf(window["start_chars"]), intOf(window["end_chars"]), intOf(window["total_chars"])
	var in struct {
		Limit int `json:"limit_chars"`
	}
	if json.Unmarshal(req.Params.Arguments, &in) != nil || in.Limit == 0 || end != total || start+in.Limit <= end {
		return
	}
	window["end_chars"] = start + in.Limit
	*header = strings.Replace(*header, fmt.Sprintf(`chars="%d".."%d"`, start, end), fmt.Sprintf(`chars="%d".."%d"`, start, start+in.Limit), 1)
}

// windowEndSaysMore is an off-by-one at a window's end: a window that
// reaches the field's end still says more exists and offers the next
// window, which starts at the end and reads nothing.
func windowEndSaysMore(req *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	window, _ := sc["window"].(map[string]any)
	if window["complete"] != true {
		return
	}
	record, _ := sc["record"].(map[string]any)
	field, _ := sc["field"].(map[string]any)
	end := window["end_chars"]
	window["complete"], window["has_more"], window["next_cursor"] = false, true, fmt.Sprint(end)
	args, _ := json.Marshal(map[string]any{"id": record["id"], "field_path": field["path"], "offset_chars": end})
	lines := strings.SplitN(*header, "\n", 2)
	lines[0] = strings.Replace(lines[0], "complete=true", fmt.Sprintf("complete=false next_cursor=%v", end), 1)
	*header = strings.Join(append(lines[:1], fmt.Sprintf("next_offset_chars=%v\nnext read_record_field args=%s", end, args)), "\n")
	if len(lines) > 1 {
		*header += "\n" + lines[1]
	}
}

// cutWindowSaysComplete prints complete=true in the text of a window that
// ends before its field does (structuredContent keeps the true state).
func cutWindowSaysComplete(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	if window, _ := sc["window"].(map[string]any); window["complete"] == false {
		*header = strings.Replace(*header, "complete=false", "complete=true", 1)
	}
}

// textSwapsNextPrevious swaps the arguments of a window's next and
// previous read_record_field lines in its text.
func textSwapsNextPrevious(_ *mcp.CallToolRequest, header *string, _ map[string]any, _ *result) {
	const next, prev = "next read_record_field args=", "previous read_record_field args="
	lines := strings.Split(*header, "\n")
	ni, pi := -1, -1
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, next):
			ni = i
		case strings.HasPrefix(l, prev):
			pi = i
		}
	}
	if ni < 0 || pi < 0 {
		return
	}
	lines[ni], lines[pi] = next+strings.TrimPrefix(lines[pi], prev), prev+strings.TrimPrefix(lines[ni], next)
	*header = strings.Join(lines, "\n")
}

// qWindowSaysComplete: a window read around a match (q) says complete.
func qWindowSaysComplete(req *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	var in struct {
		Q string `json:"q"`
	}
	window, _ := sc["window"].(map[string]any)
	if json.Unmarshal(req.Params.Arguments, &in) != nil || in.Q == "" || window["complete"] != false {
		return
	}
	window["complete"] = true
	*header = strings.Replace(*header, "complete=false", "complete=true", 1)
}

// windowHandle is a pdpp://field-window/ handle of a window's arguments.
func windowHandle(req *mcp.CallToolRequest, sc map[string]any) string {
	record, _ := sc["record"].(map[string]any)
	field, _ := sc["field"].(map[string]any)
	window, _ := sc["window"].(map[string]any)
	args := map[string]any{"id": record["id"], "field_path": field["path"], "offset_chars": window["start_chars"]}
	var in struct {
		LimitChars int `json:"limit_chars"`
	}
	if json.Unmarshal(req.Params.Arguments, &in) == nil && in.LimitChars > 0 {
		args["limit_chars"] = in.LimitChars
	}
	return "pdpp://field-window/" + base64.RawURLEncoding.EncodeToString([]byte(compactJSON(args)))
}

func emitFieldWindowURI(req *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	h := windowHandle(req, sc)
	sc["resource_uri"] = h
	*header += "\nresource_uri=" + h
}

// dropWindowArgs drops the next (when next) and previous window's
// arguments from text and structuredContent.
func dropWindowArgs(next bool) func(*mcp.CallToolRequest, *string, map[string]any, *result) {
	return func(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
		ways := []string{"previous"}
		if next {
			ways = append(ways, "next")
		}
		window, _ := sc["window"].(map[string]any)
		lines := strings.Split(*header, "\n")
		for _, way := range ways {
			window[way+"_cursor"] = nil
			lines[0] = cursorRe[way].ReplaceAllString(lines[0], "")
			lines = slices.DeleteFunc(lines, func(l string) bool {
				return strings.HasPrefix(l, way+"_offset_chars=") || strings.HasPrefix(l, way+" read_record_field args=")
			})
		}
		*header = strings.Join(lines, "\n")
	}
}

var cursorRe = map[string]*regexp.Regexp{"next": regexp.MustCompile(` next_cursor=\d+`), "previous": regexp.MustCompile(` previous_cursor=\d+`)}

// rangeLagsByAWindow reports a window read from an offset past the field's
// start one window early: its served range, in text and structuredContent,
// is the window before the one served.
func rangeLagsByAWindow(req *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	window, _ := sc["window"].(map[string]any)
	start, end := intOf(window["start_chars"]), intOf(window["end_chars"])
	if start == 0 || end <= start {
		return
	}
	n := end - start
	window["start_chars"], window["end_chars"] = max(0, start-n), start
	*header = strings.Replace(*header, fmt.Sprintf(`chars="%d".."%d"`, start, end), fmt.Sprintf(`chars="%d".."%d"`, max(0, start-n), start), 1)
}

// lastWindowSaysMore makes a window that reaches its field's end from past
// its start say has_more=true, in text and structuredContent, with no next
// continuation.
func lastWindowSaysMore(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	lastWindowClaims(header, sc, "has_more", " has_more=true")
}

// lastWindowSaysMoreFollows says it in words, under a key of its own.
func lastWindowSaysMoreFollows(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	lastWindowClaims(header, sc, "more_after", " (partial: more text follows)")
}

// lastWindowClaims marks a window read from past the field's start to its
// end as having more: key in structuredContent, words in the header.
func lastWindowClaims(header *string, sc map[string]any, key, words string) {
	window, _ := sc["window"].(map[string]any)
	if intOf(window["start_chars"]) == 0 || intOf(window["end_chars"]) != intOf(window["total_chars"]) {
		return
	}
	window[key] = true
	lines := strings.SplitN(*header, "\n", 2)
	lines[0] += words
	*header = strings.Join(lines, "\n")
}

// offsetCharsRe is an offset_chars argument in compact JSON.
var offsetCharsRe = regexp.MustCompile(`"offset_chars":(\d+)`)

// continuationSkipsAhead doubles the offset of each read_record_field
// continuation a fetched document offers, in its text and metadata: the
// read skips as much as the document showed.
func continuationSkipsAhead(_ *mcp.CallToolRequest, _ *callState, doc *adapter.Document, _ *result) {
	double := func(s string) string {
		return offsetCharsRe.ReplaceAllStringFunc(s, func(m string) string {
			n, _ := strconv.Atoi(offsetCharsRe.FindStringSubmatch(m)[1])
			return `"offset_chars":` + strconv.Itoa(2*n)
		})
	}
	doc.Text = double(doc.Text)
	var md map[string]any
	if decodeJSON([]byte(double(compactJSON(doc.Metadata))), &md) == nil {
		doc.Metadata = md
	}
}

// structuredTotalOff states the field's total 37 characters over in the
// window's structuredContent only.
func structuredTotalOff(_ *mcp.CallToolRequest, _ *string, sc map[string]any, _ *result) {
	if window, _ := sc["window"].(map[string]any); window["total_chars"] != nil {
		window["total_chars"] = intOf(window["total_chars"]) + 37
	}
}

// textRangeEndShort states the served range in the window's text as
// ending 10 characters short of the text it shows.
func textRangeEndShort(_ *mcp.CallToolRequest, header *string, sc map[string]any, _ *result) {
	window, _ := sc["window"].(map[string]any)
	start, end := intOf(window["start_chars"]), intOf(window["end_chars"])
	if end-start > 20 {
		*header = strings.Replace(*header, fmt.Sprintf(`chars="%d".."%d"`, start, end), fmt.Sprintf(`chars="%d".."%d"`, start, end-10), 1)
	}
}

// cutFetchTextSaysWhole says a cut fetch text is not truncated, in its
// metadata only.
func cutFetchTextSaysWhole(_ *mcp.CallToolRequest, _ *callState, doc *adapter.Document, _ *result) {
	if doc.Metadata["text_truncated"] == true {
		doc.Metadata["text_truncated"] = false
	}
}

// matchStartOffInStructure states a match's start 5 characters late in
// the window's structuredContent only.
func matchStartOffInStructure(_ *mcp.CallToolRequest, _ *string, sc map[string]any, _ *result) {
	if window, _ := sc["window"].(map[string]any); window["match_start_chars"] != nil {
		window["match_start_chars"] = intOf(window["match_start_chars"]) + 5
	}
}
