package adapter

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"example.com/pdppadapter-t/internal/ojson"
	"example.com/pdppadapter-t/internal/rs"
)

type fetchArgs struct {
	ID           string         `json:"id"`
	Stream       string         `json:"stream"`
	ConnectionID string         `json:"connection_id"`
	Fields       strList        `json:"fields"`
	Expand       strList        `json:"expand"`
	ExpandLimit  map[string]int `json:"expand_limit"`
}

var fetchAllowed = []string{"id", "stream", "connection_id", "fields", "expand", "expand_limit"}

const (
	fetchPrimaryChars = 6000
	fetchOtherChars   = 1000
	fetchTextBudget   = 16000
)

// resolveRef turns (id, stream, connection_id) into a record reference.
// A bare record id on a stream served by several connections is an
// ambiguity error built from package membership (one scoped schema read,
// no per-connection probes). It returns the stream-scoped schema document
// (nil when unavailable) for role-aware rendering.
func (a *Adapter) resolveRef(ctx context.Context, tok, tool, id, stream, connectionID string) (recordRef, *schemaDoc, error) {
	id = strings.TrimSpace(id)
	stream = strings.TrimSpace(stream)
	connectionID = strings.TrimSpace(connectionID)
	var ref recordRef
	if id == "" {
		return ref, nil, argErr("id", "id is required: a pdpp://record/… handle from search or query_records")
	}
	if isHandle(id) {
		r, err := parseHandle(id)
		if err != nil {
			return ref, nil, argErr("id", err.Error())
		}
		if stream != "" && stream != r.Stream {
			return ref, nil, argErr("stream", fmt.Sprintf("stream %q conflicts with the handle's stream %q; omit stream when passing a handle", stream, r.Stream))
		}
		if connectionID != "" && r.ConnectionID != "" && connectionID != r.ConnectionID {
			return ref, nil, argErr("connection_id", fmt.Sprintf("connection_id %q conflicts with the handle's connection %q", connectionID, r.ConnectionID))
		}
		if r.ConnectionID == "" {
			r.ConnectionID = connectionID
		}
		ref = r
	} else {
		if strings.Contains(id, "://") {
			return ref, nil, argErr("id", "unrecognised id; pass a pdpp://record/{connection_id}/{stream}/{record_id} handle")
		}
		if stream == "" {
			e := argErr("stream", "a bare record id needs stream (and connection_id when the stream has several connections); or pass the pdpp://record/… handle shown by search/query_records")
			return ref, nil, e
		}
		ref = recordRef{ConnectionID: connectionID, Stream: stream, RecordID: id}
	}
	doc, err := a.streamSchema(ctx, tok, ref.Stream, "")
	if err != nil {
		doc = nil
	}
	if ref.ConnectionID == "" && doc != nil {
		rows := doc.rowsFor(ref.Stream, "")
		cands := candidatesFromRows(rows, ref.Stream)
		switch {
		case len(cands) > 1:
			retry := map[string]any{"id": ref.RecordID, "stream": ref.Stream}
			return ref, doc, ambiguityError(doc.GrantID, ref.Stream, cands, tool, retry)
		case len(cands) == 1:
			ref.ConnectionID = cands[0].ConnectionID
		}
	}
	return ref, doc, nil
}

func (a *Adapter) toolFetch(ctx context.Context, tok string, raw json.RawMessage) (*mcp.CallToolResult, error) {
	var args fetchArgs
	if e := decodeArgs(raw, fetchAllowed, &args); e != nil {
		return nil, e
	}
	doc, err := a.fetchDocument(ctx, tok, args)
	if err != nil {
		return nil, err
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: compactJSON(doc)}},
		StructuredContent: doc,
	}, nil
}

// fetchDocument returns the search/fetch document {id,title,text,url,metadata}.
func (a *Adapter) fetchDocument(ctx context.Context, tok string, args fetchArgs) (*ojson.Object, error) {
	ref, doc, err := a.resolveRef(ctx, tok, "fetch", args.ID, args.Stream, args.ConnectionID)
	if err != nil {
		return nil, err
	}
	if len(args.ExpandLimit) > 0 && len(args.Expand) == 0 {
		return nil, argErr("expand_limit", "expand_limit needs a matching expand entry")
	}
	q := url.Values{}
	for _, f := range args.Fields {
		q.Add("fields", f)
	}
	if ref.ConnectionID != "" {
		q.Set("connection_id", ref.ConnectionID)
	}
	if e := encodeExpand(args.Expand, args.ExpandLimit, q); e != nil {
		return nil, e
	}
	if len(args.Expand) > 0 {
		// Live capability check scoped to the stream and connection.
		sdoc, serr := a.streamSchema(ctx, tok, ref.Stream, ref.ConnectionID)
		if serr == nil {
			if e := checkExpand(sdoc, ref.Stream, ref.ConnectionID); e != nil {
				return nil, e
			}
		}
	}
	resp, err := a.rs.Get(ctx, tok, recordPath(ref.Stream, ref.RecordID), q)
	if err != nil {
		if re, ok := rs.AsError(err); ok && re.Code == "ambiguous_connection" {
			return nil, a.ambiguityFromRS(ctx, tok, re, ref.Stream, "fetch", map[string]any{"id": ref.RecordID, "stream": ref.Stream})
		}
		return nil, err
	}
	body, derr := ojson.DecodeObject(resp.Body)
	if derr != nil {
		return nil, newErr("rs_invalid_json", "api_error", "the resource server returned a malformed record")
	}
	rv := newRecordView(body, ref.Stream, ref.ConnectionID, doc, args.Fields)
	if len(args.Expand) > 0 {
		rv.childDocs = a.relatedDocs(ctx, tok, rv.Row, rv.Ref.ConnectionID, args.Expand)
	}
	if rv.Ref.RecordID == "" {
		rv.Ref.RecordID = ref.RecordID
		rv.Handle = rv.Ref.Handle()
	}
	return a.renderDocument(rv, args.Fields), nil
}

func (a *Adapter) renderDocument(rv *recordView, fields []string) *ojson.Object {
	title, titleField := rv.title()
	titleSource := "field:" + titleField
	if title == "" {
		var parts []string
		if rv.DisplayName != "" {
			parts = append(parts, rv.DisplayName)
		} else if rv.ConnectorKey != "" {
			parts = append(parts, rv.ConnectorKey)
		}
		parts = append(parts, rv.Ref.Stream+" "+rv.Ref.RecordID)
		if k, ts := rv.timestamp(); ts != "" {
			if k == "emitted_at" {
				parts = append(parts, "ingested "+ts)
			} else {
				parts = append(parts, ts)
			}
		}
		title = strings.Join(parts, " · ")
		titleSource = "fallback"
	}
	meta := ojson.NewObject()
	meta.Set("record_id", rv.Ref.RecordID)
	meta.Set("stream", rv.Ref.Stream)
	meta.Set("connection_id", rv.Ref.ConnectionID)
	meta.Set("connector_key", rv.ConnectorKey)
	if rv.DisplayName != "" {
		meta.Set("display_name", rv.DisplayName)
	}
	if rv.EmittedAt != "" {
		meta.Set("emitted_at", rv.EmittedAt)
	}
	meta.Set("title_source", titleSource)
	if rv.Deleted {
		meta.Set("deleted", true)
	}
	if len(fields) > 0 {
		meta.Set("requested_fields", fields)
	} else if rv.Bytes > 0 {
		meta.Set("record_json_bytes", rv.Bytes)
	}

	// Text: title, source, declared primary text, then remaining fields.
	primary := ""
	if rv.Row != nil {
		primary = rv.Row.roleField("primary-text")
	}
	if rv.Data == nil || !rv.Data.Has(primary) {
		primary = ""
	}
	otherCap := fetchOtherChars
	var text string
	var truncated, binaries, blobs *ojson.Object
	for attempt := 0; attempt < 3; attempt++ {
		truncated, binaries, blobs = ojson.NewObject(), ojson.NewObject(), ojson.NewObject()
		var b strings.Builder
		b.WriteString(title + "\n")
		fmt.Fprintf(&b, "Source: %s · stream %s · record_id %s · id %s\n", rv.sourceLabel(), rv.Ref.Stream, rv.Ref.RecordID, rv.Handle)
		if rv.Deleted {
			b.WriteString("This record was deleted (tombstone).\n")
		}
		if rv.Data == nil || rv.Data.Len() == 0 {
			if len(fields) > 0 {
				b.WriteString("\nNone of the requested fields are present on this record.\n")
			} else if !rv.Deleted {
				b.WriteString("\nThe record has no data fields visible under this grant.\n")
			}
		}
		if primary != "" {
			v := rv.Data.M[primary]
			fmt.Fprintf(&b, "\n%s [primary-text]:\n", primary)
			a.docValue(&b, rv, primary, v, fetchPrimaryChars, true, truncated, binaries, blobs)
		}
		rest := 0
		if rv.Data != nil {
			for _, k := range rv.Data.Keys {
				if k != primary && k != titleField {
					rest++
				}
			}
		}
		if rest > 0 || (titleField != "" && rv.Data.Has(titleField)) {
			b.WriteString("\nFields:\n")
			if titleField != "" {
				fmt.Fprintf(&b, "- %s [primary-title]: ", titleField)
				a.docValue(&b, rv, titleField, rv.Data.M[titleField], otherCap, false, truncated, binaries, blobs)
			}
			for _, k := range rv.Data.Keys {
				if k == primary || k == titleField {
					continue
				}
				fmt.Fprintf(&b, "- %s: ", k)
				a.docValue(&b, rv, k, rv.Data.M[k], otherCap, false, truncated, binaries, blobs)
			}
		}
		for _, rel := range rv.expandedRecords() {
			fmt.Fprintf(&b, "\nExpanded %s (%d):\n", rel.Relation, len(rel.Children))
			for j, c := range rel.Children {
				if j == 20 {
					fmt.Fprintf(&b, "… %d more\n", len(rel.Children)-20)
					break
				}
				t, _ := c.title()
				if len(fields) > 0 {
					t = "" // projected fetch: related records by handle only
				} else if t != "" {
					t = jsonStr(t)
				} else if c.Data != nil {
					// Child streams' roles are unknown here; show a compact preview.
					js, _ := jsonView(c.Data, false)
					t, _, _ = preview(js, 160)
				}
				fmt.Fprintf(&b, "- %s %s\n", c.Handle, t)
			}
			if rel.HasMore {
				b.WriteString("(more related records exist; query the related stream)\n")
			}
		}
		text = b.String()
		if len(text) <= fetchTextBudget || otherCap <= 200 {
			break
		}
		otherCap /= 3
	}
	if truncated.Len() > 0 {
		meta.Set("truncated_fields", truncated)
	}
	if binaries.Len() > 0 {
		meta.Set("binary_fields", binaries)
	}
	if blobs.Len() > 0 {
		meta.Set("blobs", blobs)
	}
	if rv.Expanded != nil {
		ex := ojson.NewObject()
		for _, rel := range rv.expandedRecords() {
			var hs []string
			for _, c := range rel.Children {
				hs = append(hs, c.Handle)
			}
			ex.Set(rel.Relation, orEmptyS(hs))
		}
		meta.Set("expanded", ex)
	}
	if truncated.Len()+binaries.Len()+blobs.Len() > 0 {
		meta.Set("continuation", "Cut or binary fields list read_record_field arguments under truncated_fields / binary_fields / blobs.")
	}
	d := ojson.NewObject()
	d.Set("id", rv.Handle)
	d.Set("title", title)
	d.Set("text", strings.TrimRight(text, "\n"))
	d.Set("url", a.recordURL(rv.Ref))
	d.Set("metadata", meta)
	return d
}

// docValue appends one field value to the document text and records
// truncation/binary/blob continuations in metadata.
func (a *Adapter) docValue(b *strings.Builder, rv *recordView, field string, v any, maxChars int, block bool, truncated, binaries, blobs *ojson.Object) {
	fi := rv.fieldInfo(field)
	switch x := v.(type) {
	case string:
		if bi, ok := stringBinary(x, fi); ok {
			read := rv.readArgs(field, "raw", true)
			b.WriteString(describeBinary(bi) + " raw chunks: read_record_field " + compactJSON(read) + "\n")
			binaries.Set(field, binaryDescriptor(bi, read))
			return
		}
		p, shown, cut := preview(x, maxChars)
		if block {
			b.WriteString(p)
			if !strings.HasSuffix(p, "\n") {
				b.WriteString("\n")
			}
		} else {
			b.WriteString(jsonStr(p))
		}
		if cut {
			read := rv.readArgs(field, "offset_chars", shown)
			fmt.Fprintf(b, "%s[truncated: showing %d of %d chars; continue: read_record_field %s]\n", map[bool]string{true: "", false: " "}[block], shown, runeLen(x), compactJSON(read))
			t := ojson.NewObject()
			t.Set("shown_chars", shown)
			t.Set("total_chars", runeLen(x))
			t.Set("read", callObj("read_record_field", read))
			truncated.Set(field, t)
		} else if !block {
			b.WriteString("\n")
		}
		return
	case *ojson.Object:
		if br, ok := asBlobRef(x); ok {
			b.WriteString(rv.renderBlob(field, br) + "\n")
			bo := ojson.NewObject()
			bo.Set("blob_id", br.BlobID)
			if br.MimeType != "" {
				bo.Set("mime_type", br.MimeType)
			}
			if br.HasSize {
				bo.Set("size_bytes", br.Size)
			}
			if br.exportable() {
				bo.Set("export", "GET "+rv.blobRoute(br))
				bo.Set("resource_uri", blobURI(br.BlobID, rv.Ref.ConnectionID))
				bo.Set("read", callObj("read_record_field", rv.readArgs(field, "raw", true)))
			} else {
				bo.Set("export", nil)
			}
			blobs.Set(field, bo)
			return
		}
	}
	js, changed := jsonView(v, false)
	p, shown, cut := preview(js, maxChars)
	b.WriteString(p)
	if changed {
		b.WriteString(" (nested binary values summarised; raw:true reads them)")
	}
	if cut {
		read := rv.readArgs(field, "offset_chars", shown)
		fmt.Fprintf(b, "… [truncated JSON: showing %d of %d chars; continue: read_record_field %s]", shown, runeLen(js), compactJSON(read))
		t := ojson.NewObject()
		t.Set("shown_chars", shown)
		t.Set("total_chars", runeLen(js))
		t.Set("representation", "json")
		t.Set("read", callObj("read_record_field", read))
		truncated.Set(field, t)
	}
	b.WriteString("\n")
}
