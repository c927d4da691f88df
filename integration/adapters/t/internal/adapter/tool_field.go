package adapter

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/ojson"
	"example.com/pdppadapter-t/internal/rs"
)

type fieldArgs struct {
	ID           string `json:"id"`
	Stream       string `json:"stream"`
	ConnectionID string `json:"connection_id"`
	Field        string `json:"field"`
	OffsetChars  *int   `json:"offset_chars"`
	LimitChars   *int   `json:"limit_chars"`
	Q            string `json:"q"`
	BeforeChars  *int   `json:"before_chars"`
	AfterChars   *int   `json:"after_chars"`
	Raw          bool   `json:"raw"`
}

var fieldAllowed = []string{"id", "stream", "connection_id", "field", "offset_chars", "limit_chars", "q", "before_chars", "after_chars", "raw"}

const (
	defaultWindowChars = 4000
	maxWindowChars     = 16384
	defaultQBefore     = 200
	maxBlobBytes       = 16 << 20
)

// window is the adapter's normalised field window.
type window struct {
	Text       string
	Start, End int
	Total      int
	Limit      int
	Complete   bool
	HasMore    bool
	MatchStart *int
	MatchEnd   *int
	NextOffset *int
	PrevOffset *int
	FieldType  string
	Represent  string // text | json | base64 | blob-text | blob-base64
}

func (a *Adapter) toolReadRecordField(ctx context.Context, tok string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var args fieldArgs
	if e := decodeArgs(raw, fieldAllowed, &args); e != nil {
		return nil, e
	}
	args.Field = strings.TrimSpace(args.Field)
	if args.Field == "" {
		return nil, argErr("field", "field is required (a top-level field name from schema(stream))")
	}
	if args.OffsetChars != nil && *args.OffsetChars < 0 {
		return nil, argErr("offset_chars", "offset_chars must be >= 0")
	}
	var notes []string
	limit := defaultWindowChars
	if args.LimitChars != nil {
		limit = *args.LimitChars
		if limit < 1 {
			return nil, argErr("limit_chars", "limit_chars must be >= 1")
		}
		if limit > maxWindowChars {
			notes = append(notes, fmt.Sprintf("limit_chars %d was reduced to the maximum %d", limit, maxWindowChars))
			limit = maxWindowChars
		}
	}
	if args.Q != "" && args.OffsetChars != nil && *args.OffsetChars > 0 {
		return nil, argErr("q", "q and offset_chars are exclusive; use q to find text, offset_chars to page")
	}
	for name, v := range map[string]*int{"before_chars": args.BeforeChars, "after_chars": args.AfterChars} {
		if v == nil {
			continue
		}
		if args.Q == "" {
			return nil, argErr(name, name+" needs q")
		}
		if *v < 0 || *v > 8192 {
			return nil, argErr(name, name+" must be between 0 and 8192")
		}
	}
	ref, doc, err := a.resolveRef(ctx, tok, "read_record_field", args.ID, args.Stream, args.ConnectionID)
	if err != nil {
		return nil, err
	}
	rv := &recordView{Ref: ref, Handle: ref.Handle(), Row: rowFor(doc, ref.Stream, ref.ConnectionID)}
	var fi *fieldInfo
	if rv.Row != nil {
		fi = rv.Row.field(args.Field)
	}
	q := url.Values{}
	q.Set("field", args.Field)
	if ref.ConnectionID != "" {
		q.Set("connection_id", ref.ConnectionID)
	}
	if args.Q != "" {
		q.Set("q", args.Q)
		before, after := args.BeforeChars, args.AfterChars
		if before == nil && after == nil {
			d := defaultQBefore
			before = &d
			q.Set("limit_chars", strconv.Itoa(limit))
		} else if args.LimitChars != nil {
			q.Set("limit_chars", strconv.Itoa(limit))
		}
		if before != nil {
			q.Set("before_chars", strconv.Itoa(*before))
		}
		if after != nil {
			q.Set("after_chars", strconv.Itoa(*after))
		}
	} else {
		if args.OffsetChars != nil {
			q.Set("offset_chars", strconv.Itoa(*args.OffsetChars))
		}
		q.Set("limit_chars", strconv.Itoa(limit))
	}
	resp, err := a.rs.Get(ctx, tok, recordPath(ref.Stream, ref.RecordID)+"/field-window", q)
	if err != nil {
		re, ok := rs.AsError(err)
		if ok && re.Code == "ambiguous_connection" {
			return nil, a.ambiguityFromRS(ctx, tok, re, ref.Stream, "read_record_field", map[string]any{"id": ref.RecordID, "stream": ref.Stream, "field": args.Field})
		}
		if ok && re.Code == "field_not_text" {
			// Non-text field: read the value through a projected record read
			// and window its JSON (or blob) representation instead.
			return a.readNonText(ctx, tok, rv, args, limit, notes)
		}
		return nil, err
	}
	body, derr := ojson.DecodeObject(resp.Body)
	if derr != nil {
		return nil, newErr("rs_invalid_json", "api_error", "the resource server returned a malformed field window")
	}
	w := parseWindow(body)
	w.Represent = "text"
	if meta := body.Obj("meta"); meta != nil {
		for _, wv := range meta.Arr("warnings") {
			if wo, ok := wv.(*ojson.Object); ok && wo.Str("code") != "limit_clamped" {
				notes = append(notes, "warning "+wo.Str("code")+": "+wo.Str("message"))
			}
		}
	}
	if !args.Raw {
		if bi, ok := stringBinary(w.Text, fi); ok && (runeLen(w.Text) >= 32 || isEncodedField(fi)) {
			bi.Chars = w.Total
			bi.ApproxBytes = w.Total * 3 / 4
			if bi.Kind == kindHex {
				bi.ApproxBytes = w.Total / 2
			}
			if w.Start != 0 {
				bi.MediaType = ""
				if fi != nil {
					bi.MediaType = fi.MediaType
				}
			}
			return renderBinaryField(rv, args, bi, notes), nil
		}
	}
	return renderWindow(rv, args, w, limit, notes), nil
}

func parseWindow(body *ojson.Object) window {
	w := window{}
	if f := body.Obj("field"); f != nil {
		w.FieldType = f.Str("type")
	}
	wo := body.Obj("window")
	if wo == nil {
		return w
	}
	w.Text = wo.Str("text")
	geti := func(k string) (int, bool) {
		v, ok := wo.Int(k)
		return int(v), ok
	}
	w.Start, _ = geti("start_chars")
	if e, ok := geti("end_chars"); ok {
		w.End = e
	} else {
		w.End = w.Start + runeLen(w.Text)
	}
	w.Total, _ = geti("total_chars")
	w.Limit, _ = geti("limit_chars")
	if c, ok := wo.Bool("complete"); ok {
		w.Complete = c
	} else {
		w.Complete = w.Start == 0 && w.End >= w.Total
	}
	if h, ok := wo.Bool("has_more"); ok {
		w.HasMore = h
	} else {
		w.HasMore = w.End < w.Total
	}
	if v, ok := geti("match_start_chars"); ok {
		w.MatchStart = &v
	}
	if v, ok := geti("match_end_chars"); ok {
		w.MatchEnd = &v
	}
	if v, ok := geti("next_offset_chars"); ok {
		w.NextOffset = &v
	} else if w.HasMore {
		e := w.End
		w.NextOffset = &e
	}
	if v, ok := geti("previous_offset_chars"); ok {
		w.PrevOffset = &v
	}
	return w
}

// localWindow cuts a window out of an adapter-side character stream.
func localWindow(s string, offset, limit int) window {
	total := runeLen(s)
	start := offset
	if start > total {
		start = total
	}
	end := start + limit
	if end > total {
		end = total
	}
	w := window{Text: runeSlice(s, start, end), Start: start, End: end, Total: total, Limit: limit}
	w.Complete = start == 0 && end >= total
	w.HasMore = end < total
	if w.HasMore {
		e := end
		w.NextOffset = &e
	}
	if start > 0 {
		p := start - limit
		if p < 0 {
			p = 0
		}
		w.PrevOffset = &p
	}
	return w
}

func (w window) structured() *ojson.Object {
	o := ojson.NewObject()
	o.Set("text", w.Text)
	o.Set("start_chars", w.Start)
	o.Set("end_chars", w.End)
	o.Set("total_chars", w.Total)
	o.Set("limit_chars", w.Limit)
	o.Set("complete", w.Complete)
	o.Set("has_more", w.HasMore)
	o.Set("truncated", !w.Complete)
	if w.MatchStart != nil {
		o.Set("match_start_chars", *w.MatchStart)
	}
	if w.MatchEnd != nil {
		o.Set("match_end_chars", *w.MatchEnd)
	}
	o.Set("next_offset_chars", intOrNil(w.NextOffset))
	o.Set("previous_offset_chars", intOrNil(w.PrevOffset))
	return o
}

func intOrNil(p *int) any {
	if p == nil {
		return nil
	}
	return *p
}

func renderWindow(rv *recordView, args fieldArgs, w window, limit int, notes []string) *mcp.CallToolResult {
	var b strings.Builder
	state := "partial"
	if w.Complete {
		state = "complete"
	}
	ftype := w.FieldType
	if ftype == "" {
		ftype = "string"
	}
	fmt.Fprintf(&b, "read_record_field %s · field %s (%s", rv.Handle, args.Field, ftype)
	if w.Represent != "" && w.Represent != "text" {
		fmt.Fprintf(&b, ", shown as %s", w.Represent)
	}
	fmt.Fprintf(&b, ") · chars %d–%d of %d · %s\n", w.Start, w.End, w.Total, state)
	if w.MatchStart != nil && w.MatchEnd != nil {
		fmt.Fprintf(&b, "match %s at chars %d–%d\n", jsonStr(args.Q), *w.MatchStart, *w.MatchEnd)
	}
	for _, n := range notes {
		b.WriteString("note: " + n + "\n")
	}
	b.WriteString("<<<\n")
	b.WriteString(w.Text)
	if !strings.HasSuffix(w.Text, "\n") {
		b.WriteString("\n")
	}
	b.WriteString(">>>\n")
	cont := func(off int) *ojson.Object {
		o := ojson.NewObject()
		o.Set("id", rv.Handle)
		o.Set("field", args.Field)
		o.Set("offset_chars", off)
		o.Set("limit_chars", limit)
		if args.Raw {
			o.Set("raw", true)
		}
		return o
	}
	var next, prev *ojson.Object
	if w.NextOffset != nil && w.HasMore {
		next = cont(*w.NextOffset)
		fmt.Fprintf(&b, "next: read_record_field %s (%d chars remain after this window)\n", compactJSON(next), w.Total-w.End)
	} else {
		b.WriteString("end of field reached.\n")
	}
	if w.PrevOffset != nil {
		prev = cont(*w.PrevOffset)
		fmt.Fprintf(&b, "previous: read_record_field %s\n", compactJSON(prev))
	}
	sc := ojson.NewObject()
	sc.Set("object", "field_window")
	sc.Set("id", rv.Handle)
	sc.Set("stream", rv.Ref.Stream)
	sc.Set("record_id", rv.Ref.RecordID)
	sc.Set("connection_id", rv.Ref.ConnectionID)
	fo := ojson.NewObject()
	fo.Set("path", args.Field)
	fo.Set("type", ftype)
	sc.Set("field", fo)
	sc.Set("representation", nonEmpty(w.Represent, "text"))
	sc.Set("window", w.structured())
	if next != nil {
		sc.Set("next", callObj("read_record_field", next))
	} else {
		sc.Set("next", nil)
	}
	if prev != nil {
		sc.Set("previous", callObj("read_record_field", prev))
	} else {
		sc.Set("previous", nil)
	}
	return textResult(strings.TrimRight(b.String(), "\n"), sc)
}

func renderBinaryField(rv *recordView, args fieldArgs, bi binaryInfo, notes []string) *mcp.CallToolResult {
	read := rv.readArgs(args.Field, "raw", true)
	if args.OffsetChars != nil {
		read.Set("offset_chars", *args.OffsetChars)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "read_record_field %s · field %s\n", rv.Handle, args.Field)
	fmt.Fprintf(&b, "%s\n", describeBinary(bi))
	for _, n := range notes {
		b.WriteString("note: " + n + "\n")
	}
	fmt.Fprintf(&b, "The encoded body is not shown by default. To read it in bounded raw chunks: read_record_field %s\n", compactJSON(read))
	sc := ojson.NewObject()
	sc.Set("object", "field_metadata")
	sc.Set("id", rv.Handle)
	sc.Set("stream", rv.Ref.Stream)
	sc.Set("record_id", rv.Ref.RecordID)
	sc.Set("connection_id", rv.Ref.ConnectionID)
	fo := ojson.NewObject()
	fo.Set("path", args.Field)
	fo.Set("type", "string")
	sc.Set("field", fo)
	sc.Set("representation", "metadata")
	sc.Set("binary", binaryDescriptor(bi, nil))
	sc.Set("complete", false)
	sc.Set("next", callObj("read_record_field", read))
	return textResult(strings.TrimRight(b.String(), "\n"), sc)
}

// readNonText handles objects, arrays, numbers, booleans, nulls and blob
// references through a projected record read.
func (a *Adapter) readNonText(ctx context.Context, tok string, rv *recordView, args fieldArgs, limit int, notes []string) (*mcp.CallToolResult, error) {
	q := url.Values{}
	q.Set("fields", args.Field)
	if rv.Ref.ConnectionID != "" {
		q.Set("connection_id", rv.Ref.ConnectionID)
	}
	resp, err := a.rs.Get(ctx, tok, recordPath(rv.Ref.Stream, rv.Ref.RecordID), q)
	if err != nil {
		return nil, err
	}
	body, derr := ojson.DecodeObject(resp.Body)
	if derr != nil {
		return nil, newErr("rs_invalid_json", "api_error", "the resource server returned a malformed record")
	}
	data := body.Obj("data")
	v, ok := data.Get(args.Field)
	if !ok {
		e := newErr("field_not_found", "not_found_error", fmt.Sprintf("field %q is not present on this record (or not granted)", args.Field))
		e.Param = "field"
		return nil, e
	}
	if args.Q != "" {
		e := argErr("q", fmt.Sprintf("field %q is not text, so q cannot locate a match in it; page its JSON with offset_chars instead", args.Field))
		return nil, e
	}
	offset := 0
	if args.OffsetChars != nil {
		offset = *args.OffsetChars
	}
	if br, isBlob := asBlobRef(v); isBlob {
		if !br.exportable() && !args.Raw {
			var b strings.Builder
			fmt.Fprintf(&b, "read_record_field %s · field %s (blob reference, metadata only)\n", rv.Handle, args.Field)
			b.WriteString(rv.renderBlob(args.Field, br) + "\n")
			b.WriteString("metadata: " + compactJSON(v) + "\n")
			sc := ojson.NewObject()
			sc.Set("object", "field_metadata")
			sc.Set("id", rv.Handle)
			sc.Set("stream", rv.Ref.Stream)
			sc.Set("record_id", rv.Ref.RecordID)
			sc.Set("connection_id", rv.Ref.ConnectionID)
			sc.Set("field", map[string]any{"path": args.Field, "type": "blob_ref"})
			sc.Set("representation", "metadata")
			sc.Set("blob", v)
			sc.Set("complete", true)
			sc.Set("next", nil)
			return textResult(strings.TrimRight(b.String(), "\n"), sc), nil
		}
		if !br.exportable() {
			e := newErr("blob_not_exportable", "invalid_request_error", fmt.Sprintf("field %q references blob %s but the resource server gives no fetch_url for it, so its bytes cannot be read under this grant", args.Field, br.BlobID))
			e.Param = "raw"
			e.Hint = "Use the blob metadata (read without raw), or a field that carries a fetch_url."
			return nil, e
		}
		if !args.Raw {
			var b strings.Builder
			fmt.Fprintf(&b, "read_record_field %s · field %s (blob reference)\n", rv.Handle, args.Field)
			b.WriteString(rv.renderBlob(args.Field, br) + "\n")
			b.WriteString("metadata: " + compactJSON(v) + "\n")
			sc := ojson.NewObject()
			sc.Set("object", "field_metadata")
			sc.Set("id", rv.Handle)
			sc.Set("stream", rv.Ref.Stream)
			sc.Set("record_id", rv.Ref.RecordID)
			sc.Set("connection_id", rv.Ref.ConnectionID)
			fo := ojson.NewObject()
			fo.Set("path", args.Field)
			fo.Set("type", "blob_ref")
			sc.Set("field", fo)
			sc.Set("representation", "metadata")
			sc.Set("blob", v)
			sc.Set("export", "GET "+rv.blobRoute(br))
			sc.Set("resource_uri", blobURI(br.BlobID, rv.Ref.ConnectionID))
			sc.Set("next", callObj("read_record_field", rv.readArgs(args.Field, "raw", true)))
			return textResult(strings.TrimRight(b.String(), "\n"), sc), nil
		}
		content, ctype, err := a.readBlob(ctx, tok, br, rv.Ref.ConnectionID)
		if err != nil {
			return nil, err
		}
		var s, rep string
		if isTextMedia(ctype) && utf8.Valid(content) {
			s, rep = string(content), "blob-text"
		} else {
			s, rep = base64.StdEncoding.EncodeToString(content), "blob-base64"
		}
		w := localWindow(s, offset, limit)
		w.FieldType = "blob_ref → " + nonEmpty(ctype, "application/octet-stream")
		w.Represent = rep
		notes = append(notes, fmt.Sprintf("blob %s: %s, %d bytes, read via GET %s", br.BlobID, nonEmpty(ctype, "unknown type"), len(content), rv.blobRoute(br)))
		return renderWindow(rv, args, w, limit, notes), nil
	}
	js, changed := jsonView(v, args.Raw)
	if changed {
		notes = append(notes, "nested binary values are summarised; raw:true shows them")
	}
	w := localWindow(js, offset, limit)
	w.FieldType = jsonType(v)
	w.Represent = "json"
	return renderWindow(rv, args, w, limit, notes), nil
}

func jsonType(v any) string {
	switch v.(type) {
	case *ojson.Object:
		return "object"
	case []any:
		return "array"
	case bool:
		return "boolean"
	case nil:
		return "null"
	case string:
		return "string"
	}
	return "number"
}

func isTextMedia(ct string) bool {
	ct = strings.ToLower(ct)
	return strings.HasPrefix(ct, "text/") || strings.Contains(ct, "json") || strings.Contains(ct, "xml") || strings.Contains(ct, "csv") || strings.Contains(ct, "yaml")
}

// readBlob fetches blob bytes through the grant-scoped blob route.
func (a *Adapter) readBlob(ctx context.Context, tok string, br blobRef, connectionID string) ([]byte, string, error) {
	path := br.route()
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if !strings.HasPrefix(path, "/v1/blobs/") {
		path = "/v1/blobs/" + url.PathEscape(br.BlobID)
	}
	q := url.Values{}
	if connectionID != "" {
		q.Set("connection_id", connectionID)
	}
	resp, err := a.rs.GetLimited(ctx, tok, path, q, maxBlobBytes)
	if err != nil {
		if re, ok := rs.AsError(err); ok && re.Code == "response_too_large" {
			e := newErr("blob_too_large", "api_error", fmt.Sprintf("blob %s is larger than the %d byte inline read bound", br.BlobID, maxBlobBytes))
			e.Hint = "Download it out of band with the grant-scoped route GET " + br.route()
			return nil, "", e
		}
		return nil, "", err
	}
	ct := resp.ContentType
	if i := strings.IndexByte(ct, ';'); i >= 0 && !isTextMedia(ct) {
		ct = ct[:i]
	}
	if ct == "" {
		ct = br.MimeType
	}
	return resp.Body, strings.TrimSpace(ct), nil
}
