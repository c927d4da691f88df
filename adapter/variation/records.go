package variation

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Variations of query_records and aggregate: what their text and
// structuredContent show of a page.

// onRecordsText rewrites query_records' text.
func onRecordsText(f func(string) string) func(*Seams) {
	return withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
		if !r.IsError {
			r.setText(f(r.text()))
		}
	}))
}

var quotedHandleRe = regexp.MustCompile(` (next_cursor|next_changes_since)="(?:[^"\\]|\\.)*"`)

// hidePagingHandles drops next_cursor, next_changes_since and count from
// the first line of query_records' text.
func hidePagingHandles(text string) string {
	line, rest, _ := strings.Cut(text, "\n")
	line = quotedHandleRe.ReplaceAllString(line, "")
	if i := strings.Index(line, " count="); i >= 0 {
		end := strings.Index(line[i:], ". Showing up to")
		if end < 0 {
			end = len(line) - i
		}
		line = line[:i] + line[i+end:]
	}
	if rest == "" && !strings.Contains(text, "\n") {
		return line
	}
	return line + "\n" + rest
}

// dropContinuations removes the "Fields not shown inline" section: the
// continuations of every field a preview cut or left out.
func dropContinuations(text string) string {
	lines := strings.Split(text, "\n")
	out := make([]string, 0, len(lines))
	for i := 0; i < len(lines); i++ {
		if lines[i] != "Fields not shown inline:" {
			out = append(out, lines[i])
			continue
		}
		for i+1 < len(lines) && (strings.HasPrefix(lines[i+1], "record[") || strings.HasPrefix(lines[i+1], "more_fields=")) {
			i++
		}
	}
	return strings.Join(out, "\n")
}

// dropLadder removes structuredContent.content_ladder.
func dropLadder(r *result) {
	sc := r.structured()
	delete(sc, "content_ladder")
	r.setStructured(sc)
}

var truncatedMarkRe = regexp.MustCompile(` \[truncated: \d+ chars\]`)

// silentCutRecordPreview cuts large text in record previews with no
// marker, no continuation and no ladder entry.
func silentCutRecordPreview() func(*Seams) {
	return withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
		if !r.IsError {
			r.setText(dropContinuations(truncatedMarkRe.ReplaceAllString(r.text(), "")))
			dropLadder(r)
		}
	}))
}

var previewIDRe = regexp.MustCompile(`(?m)^(record\[\d+\]) id=\S+ `)

// dropPreviewIDs shows record previews without their ids or continuations.
func dropPreviewIDs(text string) string {
	return dropContinuations(previewIDRe.ReplaceAllString(text, "$1 "))
}

var previewLineRe = regexp.MustCompile(`(?m)^record\[\d+\] id=(\S+) (.*)$`)

// inlineBase64Body previews each record's data as the RS sent it, base64
// bodies included, in the room its safe preview had.
func inlineBase64Body() func(*Seams) {
	return tracked(onCall(func(ctx context.Context, req *mcp.CallToolRequest, next callNext) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		if err != nil || res.IsError || req.Params.Name != "query_records" {
			return res, err
		}
		var args struct {
			Stream string `json:"stream"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &args)
		raw := map[string]map[string]any{}
		for path, body := range callOf(ctx).seen {
			if !strings.HasSuffix(path, "/records") {
				continue
			}
			var env struct {
				Data []map[string]any `json:"data"`
			}
			_ = decodeJSON(body, &env)
			for _, rec := range env.Data {
				delete(rec, "connector_instance_id")
				stream := str(rec["stream"])
				if stream == "" {
					stream = args.Stream
				}
				raw[adapter.PathIDs{}.Format(adapter.RecordRef{ConnectionID: str(rec["connection_id"]), Stream: stream, RecordID: str(rec["id"])})] = rec
			}
		}
		r := result{res}
		text := previewLineRe.ReplaceAllStringFunc(r.text(), func(l string) string {
			m := previewLineRe.FindStringSubmatch(l)
			rec, ok := raw[m[1]]
			if !ok {
				return l
			}
			return strings.TrimSuffix(l, m[2]) + clipBytes(compactJSON(rec), len(m[2]))
		})
		r.setText(dropContinuations(text))
		dropLadder(&r)
		return res, nil
	}))
}

// clipBytes cuts s to at most n bytes, ending in "…".
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.ToValidUTF8(s[:max(0, n-len("…"))], "") + "…"
}

var otherCountRe = regexp.MustCompile(` other_count=[^;]*;`)

// onAggregateText rewrites aggregate's text.
func onAggregateText(f func(string) string) func(*Seams) {
	return withMiddleware(onResult("aggregate", func(_ *mcp.CallToolRequest, r *result) {
		if !r.IsError {
			r.setText(f(r.text()))
		}
	}))
}

func hideOtherCount(text string) string { return otherCountRe.ReplaceAllString(text, "") }

// previewContinuationRe is a field continuation line of query_records'
// text: record[i].field … read_record_field args={…}.
var previewContinuationRe = regexp.MustCompile(`(?m)^record\[(\d+)\]\.(\S+) (.*read_record_field args=.*)$`)

// continuePreviewElsewhere points each read_record_field continuation of a
// cut record preview at another field of that record, one shown whole.
func continuePreviewElsewhere() func(*Seams) {
	return withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
		if r.IsError {
			return
		}
		env, _ := r.structured()["data"].(map[string]any)
		recs, _ := env["data"].([]any)
		r.setText(previewContinuationRe.ReplaceAllStringFunc(r.text(), func(line string) string {
			m := previewContinuationRe.FindStringSubmatch(line)
			var i int
			if json.Unmarshal([]byte(m[1]), &i) != nil || i >= len(recs) {
				return line
			}
			rec, _ := recs[i].(map[string]any)
			data, _ := rec["data"].(map[string]any)
			var whole []string
			for k, v := range data {
				if s, ok := v.(string); ok && k != m[2] && len(s) < 40 {
					whole = append(whole, k)
				}
			}
			if len(whole) == 0 {
				return line
			}
			slices.Sort(whole)
			return fieldPathRe.ReplaceAllString(line, `"field_path":"`+whole[0]+`"`)
		}))
	}))
}

// lastPageSaysMore prints has_more=true in the text of a page after which
// the RS has no more (structuredContent keeps the true has_more).
func lastPageSaysMore(_ *mcp.CallToolRequest, r *result) {
	if env, _ := r.structured()["data"].(map[string]any); !r.IsError && env["has_more"] == false {
		r.setText(strings.Replace(r.text(), "record(s).", "record(s). has_more=true.", 1))
	}
}

// changesPageSaysNoMore makes a changes page that has a next cursor say
// has_more=false, in text and structuredContent.
func changesPageSaysNoMore(req *mcp.CallToolRequest, r *result) {
	sc := r.structured()
	env, _ := sc["data"].(map[string]any)
	if r.IsError || !strings.Contains(string(req.Params.Arguments), "changes_since") || env["has_more"] != true {
		return
	}
	env["has_more"] = false
	r.setStructured(sc)
	r.setText(strings.Replace(r.text(), "has_more=true", "has_more=false", 1))
}

// countLessOffset states a later page's count as what remains after the
// records before it, in text only.
func countLessOffset(req *mcp.CallToolRequest, r *result) {
	var in struct {
		Cursor string `json:"cursor"`
	}
	if r.IsError || json.Unmarshal(req.Params.Arguments, &in) != nil || in.Cursor == "" {
		return
	}
	r.setText(countExactRe.ReplaceAllStringFunc(r.text(), func(m string) string {
		n, _ := strconv.Atoi(countExactRe.FindStringSubmatch(m)[1])
		return "count=exact:" + strconv.Itoa(max(0, n-3))
	}))
}

// changesCursorAsListing re-mints a changes page's next cursor as an
// ordinary listing cursor at the same offset, in text and
// structuredContent: following it leaves the feed.
func changesCursorAsListing(_ *mcp.CallToolRequest, r *result) {
	sc := r.structured()
	env, _ := sc["data"].(map[string]any)
	cur, _ := env["next_cursor"].(string)
	raw, err := base64.StdEncoding.DecodeString(cur)
	var c struct {
		Session     string `json:"session"`
		AfterOffset int    `json:"after_offset"`
	}
	if r.IsError || cur == "" || err != nil || json.Unmarshal(raw, &c) != nil || c.Session != "changes" {
		return
	}
	listing := base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf(`{"kind":"page","session":"records","order":"DESC","offset":%d}`, c.AfterOffset)))
	env["next_cursor"] = listing
	r.setStructured(sc)
	r.setText(strings.ReplaceAll(r.text(), cur, listing))
}

// countCappedAtPage states an ungrouped count over 25 as 25, one
// default page's worth, in text and structuredContent.
func countCappedAtPage(_ *mcp.CallToolRequest, r *result) {
	sc := r.structured()
	env, _ := sc["data"].(map[string]any)
	n := intOf(env["value"])
	if r.IsError || env["metric"] != "count" || env["group_by"] != nil || n <= 25 {
		return
	}
	env["value"], env["filtered_record_count"] = 25, 25
	r.setStructured(sc)
	r.setText(strings.Replace(r.text(), fmt.Sprintf(") = %d.", n), ") = 25.", 1))
}

// textCountOffByOne states an ungrouped count one less in text only.
func textCountOffByOne(_ *mcp.CallToolRequest, r *result) {
	env, _ := r.structured()["data"].(map[string]any)
	n := intOf(env["value"])
	if r.IsError || env["metric"] != "count" || env["group_by"] != nil || n < 2 {
		return
	}
	r.setText(strings.Replace(r.text(), fmt.Sprintf(") = %d.", n), fmt.Sprintf(") = %d.", n-1), 1))
}

// binaryBytesRe is the size in a binary field's descriptor.
var binaryBytesRe = regexp.MustCompile(`(binary-only[^\]\n]*?)(\d+) bytes`)

// encodedBlobSize states each binary field's size as its base64 length
// (4/3 of its bytes) in query_records' text.
func encodedBlobSize(text string) string {
	return binaryBytesRe.ReplaceAllStringFunc(text, func(m string) string {
		sub := binaryBytesRe.FindStringSubmatch(m)
		n, _ := strconv.Atoi(sub[2])
		return sub[1] + strconv.Itoa((n+2)/3*4) + " bytes"
	})
}

// pageCountIsLimit states a short page's record count as the limit asked.
func pageCountIsLimit(req *mcp.CallToolRequest, r *result) {
	var in struct {
		Limit int `json:"limit"`
	}
	if r.IsError || json.Unmarshal(req.Params.Arguments, &in) != nil || in.Limit == 0 {
		return
	}
	r.setText(pageCountRe.ReplaceAllString(r.text(), fmt.Sprintf(": %d record(s).", in.Limit)))
}

var pageCountRe = regexp.MustCompile(`: \d+ record\(s\)\.`)

var countExactRe = regexp.MustCompile(`count=exact:(\d+)`)

var recordLineIDRe = regexp.MustCompile(`(?m)^(record\[\d+\] id=)(\S+)`)

// recordLineHandleRe is a record line's handle, with the space before it.
var recordLineHandleRe = regexp.MustCompile(`(?m)^(record\[\d+\]) id=\S+`)

// rotateRecordHandles prints each record line of query_records' text with
// the next record's handle.
func rotateRecordHandles(text string) string { return rotateGroup(recordLineIDRe, text, 2) }

// bookmarkIsPageCursor: a changes page read with a cursor gives that
// cursor as its next_changes_since, in text and structuredContent.
func bookmarkIsPageCursor(req *mcp.CallToolRequest, r *result) {
	var in struct {
		Cursor string `json:"cursor"`
	}
	sc := r.structured()
	env, _ := sc["data"].(map[string]any)
	bookmark, _ := env["next_changes_since"].(string)
	if r.IsError || json.Unmarshal(req.Params.Arguments, &in) != nil || in.Cursor == "" || bookmark == "" {
		return
	}
	env["next_changes_since"] = in.Cursor
	r.setStructured(sc)
	r.setText(strings.ReplaceAll(r.text(), bookmark, in.Cursor))
}

// staleCountText keeps the count the adapter's last count-bearing
// query_records text showed, and shows it in place of the next one's
// (state per adapter instance: a stateless HTTP server has no session).
func staleCountText() func(*Seams) {
	return func(s *Seams) {
		var mu sync.Mutex
		var last string
		withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
			m := textCountRe.FindStringSubmatch(r.text())
			if r.IsError || m == nil {
				return
			}
			mu.Lock()
			prev := last
			last = m[2]
			mu.Unlock()
			if prev != "" {
				r.setText(strings.Replace(r.text(), m[0], " count="+m[1]+":"+prev, 1))
			}
		}))(s)
	}
}

// textCountRe is the count pdpp-mcp's query_records text shows.
var textCountRe = regexp.MustCompile(` count=(\w+):(\d+)`)

// stickyConnection keeps, per adapter instance and stream, the first
// connection_id a query_records read sent, and sends it on every later one.
func stickyConnection() func(*Seams) {
	return func(s *Seams) {
		var mu sync.Mutex
		first := map[string]string{}
		onQuery(inTool("query_records", isRecordList), func(r *http.Request, q url.Values) {
			conn := q.Get("connection_id")
			if conn == "" {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if f, ok := first[r.URL.Path]; ok {
				q.Set("connection_id", f)
			} else {
				first[r.URL.Path] = conn
			}
		})(s)
	}
}

// cutPreviewStatusCompleteInRecords gives each cut preview of the content
// ladder the status complete, in structuredContent only.
func cutPreviewStatusCompleteInRecords() func(*Seams) {
	return withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
		if r.IsError {
			return
		}
		sc := r.structured()
		ladder, _ := sc["content_ladder"].(map[string]any)
		recs, _ := ladder["records"].([]any)
		for _, rec := range recs {
			fields, _ := rec.(map[string]any)["fields"].([]any)
			for _, f := range fields {
				if m, _ := f.(map[string]any); m["preview_status"] == "truncated" {
					m["preview_status"] = "complete"
				}
			}
		}
		r.setStructured(sc)
	}))
}

var lastRecordLineRe = regexp.MustCompile(`(?m)^record\[(\d+)\] .*\n?`)

// dropLastRecordLine leaves the page's last record out of query_records'
// text; its header and structuredContent still hold it.
func dropLastRecordLine() func(*Seams) {
	return withMiddleware(onResult("query_records", func(_ *mcp.CallToolRequest, r *result) {
		if r.IsError {
			return
		}
		locs := lastRecordLineRe.FindAllStringIndex(r.text(), -1)
		if len(locs) < 2 {
			return
		}
		last := locs[len(locs)-1]
		r.setText(r.text()[:last[0]] + r.text()[last[1]:])
	}))
}

// cutReadFromStartRe is the read a cut text field's line offers from its
// start (record[0].body truncated read_record_field args={…,"offset_chars":0}).
var cutReadFromStartRe = regexp.MustCompile(`(?m)^(record\[\d+\]\.\S+ truncated read_record_field args=\{.*)"offset_chars":0\}`)
