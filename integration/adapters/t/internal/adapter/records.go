package adapter

import (
	"context"
	"fmt"
	"strings"

	"example.com/pdppadapter-t/internal/ojson"
)

// recordView is one RS record normalised for rendering.
type recordView struct {
	Ref          recordRef
	Handle       string
	ConnectorKey string
	DisplayName  string
	EmittedAt    string
	Deleted      bool
	DeletedAt    string
	Data         *ojson.Object
	Expanded     *ojson.Object
	Row          *streamRow
	Bytes        int64
	// childDocs maps an expand relation to its target stream's schema.
	childDocs map[string]*schemaDoc
}

// authoredKeys are the RS's authored/event timestamp names (used only for
// fallback titles; they are preferred over ingestion timestamps).
var authoredKeys = []string{"sent_at", "sentAt", "authored_at", "authoredAt", "created_at", "createdAt", "source_created_at", "sourceCreatedAt", "occurred_at", "occurredAt", "updated_at", "updatedAt"}

func rowFor(doc *schemaDoc, stream, conn string) *streamRow {
	if doc == nil {
		return nil
	}
	rows := doc.rowsFor(stream, conn)
	if len(rows) == 0 {
		rows = doc.rowsFor(stream, "")
	}
	if len(rows) == 0 {
		return nil
	}
	return rows[0]
}

// newRecordView builds a view; fields (when non-empty) narrows data to the
// requested names even if the RS returned more.
func newRecordView(rec *ojson.Object, defStream, defConn string, doc *schemaDoc, fields []string) *recordView {
	rv := &recordView{}
	rv.Ref.RecordID = rec.Str("id")
	if rv.Ref.RecordID == "" {
		if n, ok := rec.Get("id"); ok {
			if s, ok := ojson.ScalarString(n); ok {
				rv.Ref.RecordID = s
			}
		}
	}
	rv.Ref.Stream = rec.Str("stream")
	if rv.Ref.Stream == "" {
		rv.Ref.Stream = defStream
	}
	rv.Ref.ConnectionID = rec.Str("connection_id")
	if rv.Ref.ConnectionID == "" {
		rv.Ref.ConnectionID = rec.Str("connector_instance_id")
	}
	if rv.Ref.ConnectionID == "" {
		rv.Ref.ConnectionID = defConn
	}
	rv.Handle = rv.Ref.Handle()
	rv.DisplayName = rec.Str("display_name")
	rv.EmittedAt = rec.Str("emitted_at")
	rv.ConnectorKey = rec.Str("connector_key")
	if d, ok := rec.Bool("deleted"); ok && d {
		rv.Deleted = true
		rv.DeletedAt = rec.Str("deleted_at")
	}
	if n, ok := rec.Int("record_json_bytes"); ok {
		rv.Bytes = n
	}
	rv.Row = rowFor(doc, rv.Ref.Stream, rv.Ref.ConnectionID)
	if doc != nil {
		if src, ok := doc.connectionIndex()[rv.Ref.ConnectionID]; ok {
			// The schema's short connector_key wins over a URL-shaped source id.
			if src.ConnectorKey != "" {
				rv.ConnectorKey = src.ConnectorKey
			}
			if rv.DisplayName == "" {
				rv.DisplayName = src.DisplayName
			}
		}
	}
	if rv.ConnectorKey == "" && rv.Row != nil {
		rv.ConnectorKey = rv.Row.ConnectorKey
	}
	rv.Data = rec.Obj("data")
	if rv.Data != nil && len(fields) > 0 {
		nd := ojson.NewObject()
		for _, k := range rv.Data.Keys {
			if contains(fields, k) {
				nd.Set(k, rv.Data.M[k])
			}
		}
		rv.Data = nd
	}
	rv.Expanded = rec.Obj("expanded")
	return rv
}

func (rv *recordView) fieldInfo(name string) *fieldInfo {
	if rv.Row == nil {
		return nil
	}
	return rv.Row.field(name)
}

// title returns the manifest-declared primary title (when present in the
// projected data) and the field it came from.
func (rv *recordView) title() (string, string) {
	t, f, _ := rv.titleCut()
	return t, f
}

// titleCut is title() plus whether the title had to be shortened (the
// field value is then still rendered in full elsewhere).
func (rv *recordView) titleCut() (string, string, bool) {
	if rv.Row == nil || rv.Data == nil {
		return "", "", false
	}
	for _, f := range rv.Row.Fields {
		if f.Role != "primary-title" {
			continue
		}
		if s, ok := rv.Data.M[f.Name].(string); ok && strings.TrimSpace(s) != "" {
			one := oneLine(s)
			t, _, cut := preview(one, 160)
			if cut {
				t += "…"
			}
			return t, f.Name, cut || one != s
		}
	}
	return "", "", false
}

// timestamp returns an authored/event timestamp from projected data (RS
// authored-name list, then a date-time cursor field), else emitted_at.
func (rv *recordView) timestamp() (string, string) {
	if rv.Data != nil {
		for _, k := range authoredKeys {
			if s, ok := rv.Data.M[k].(string); ok && s != "" {
				return k, s
			}
		}
		if rv.Row != nil && rv.Row.CursorField != "" {
			if f := rv.Row.field(rv.Row.CursorField); f != nil && f.isTime() {
				if s, ok := rv.Data.M[f.Name].(string); ok && s != "" {
					return f.Name, s
				}
			}
		}
	}
	if rv.EmittedAt != "" {
		return "emitted_at", rv.EmittedAt
	}
	return "", ""
}

func (rv *recordView) sourceLabel() string {
	return sourceLabel(rv.ConnectorKey, rv.Ref.ConnectionID, rv.DisplayName)
}

// sourceLabel renders source identity with explicit key names, e.g.
// connector_key gmail · connection_id cin_work "Work Mail".
func sourceLabel(connectorKey, connectionID, displayName string) string {
	var parts []string
	if connectorKey != "" {
		parts = append(parts, "connector_key "+connectorKey)
	}
	c := "connection_id " + connectionID
	if connectionID == "" {
		c = "connection_id (not reported)"
	}
	if displayName != "" {
		c += " " + jsonStr(displayName)
	}
	parts = append(parts, c)
	return strings.Join(parts, " · ")
}

// readArgs builds read_record_field arguments for this record.
func (rv *recordView) readArgs(field string, kv ...any) *ojson.Object {
	o := ojson.NewObject()
	o.Set("id", rv.Handle)
	o.Set("field", field)
	for i := 0; i+1 < len(kv); i += 2 {
		o.Set(kv[i].(string), kv[i+1])
	}
	return o
}

// ---------------------------------------------------------------------------
// Value rendering.

// isEncodedField reports declared binary encodings (JSON Schema
// contentEncoding) — a manifest declaration, not a name guess.
func isEncodedField(fi *fieldInfo) bool {
	return fi != nil && fi.Encoding != ""
}

// stringBinary classifies a string value, honouring declared encodings.
func stringBinary(s string, fi *fieldInfo) (binaryInfo, bool) {
	bi, ok := classifyString(s)
	if ok {
		if fi != nil && fi.MediaType != "" && bi.MediaType == "" {
			bi.MediaType = fi.MediaType
		}
		return bi, true
	}
	if isEncodedField(fi) && runeLen(s) > 0 {
		bi = binaryInfo{Kind: kindBase64, Encoding: fi.Encoding, Chars: runeLen(s), ApproxBytes: len(s) * 3 / 4, MediaType: fi.MediaType, DeclaredOnly: true}
		return bi, true
	}
	return bi, false
}

// sanitizeNested replaces nested binary-looking strings with short
// placeholders so JSON previews never inline encoded bodies.
func sanitizeNested(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		if bi, ok := classifyString(x); ok {
			return fmt.Sprintf("[binary %s, %d chars]", bi.Encoding, bi.Chars), true
		}
		return x, false
	case *ojson.Object:
		changed := false
		o := ojson.NewObject()
		for _, k := range x.Keys {
			nv, c := sanitizeNested(x.M[k])
			changed = changed || c
			o.Set(k, nv)
		}
		return o, changed
	case []any:
		changed := false
		out := make([]any, len(x))
		for i := range x {
			nv, c := sanitizeNested(x[i])
			changed = changed || c
			out[i] = nv
		}
		return out, changed
	}
	return v, false
}

// jsonView is the character stream read_record_field windows for
// non-text fields: compact JSON, with nested binary summarised unless raw.
func jsonView(v any, raw bool) (string, bool) {
	if raw {
		return compactJSON(v), false
	}
	sv, changed := sanitizeNested(v)
	return compactJSON(sv), changed
}

// renderValue renders one top-level field value for model-visible text.
func (rv *recordView) renderValue(field string, v any, maxChars int) string {
	fi := rv.fieldInfo(field)
	switch x := v.(type) {
	case string:
		if bi, ok := stringBinary(x, fi); ok {
			return describeBinary(bi) + " raw chunks: read_record_field " + compactJSON(rv.readArgs(field, "raw", true))
		}
		p, shown, cut := preview(x, maxChars)
		if !cut {
			return jsonStr(x)
		}
		return fmt.Sprintf("%s [truncated: showing %d of %d chars; continue: read_record_field %s]", jsonStr(strings.TrimRight(p, " \t\r\n")), shown, runeLen(x), compactJSON(rv.readArgs(field, "offset_chars", shown)))
	case *ojson.Object:
		if br, ok := asBlobRef(x); ok {
			return rv.renderBlob(field, br)
		}
	case nil:
		return "null"
	}
	js, changed := jsonView(v, false)
	note := ""
	if changed {
		note = " (nested binary values summarised; raw:true reads them)"
	}
	p, shown, cut := preview(js, maxChars)
	if !cut {
		return js + note
	}
	return fmt.Sprintf("%s… [truncated JSON: showing %d of %d chars%s; continue: read_record_field %s]", p, shown, runeLen(js), note, compactJSON(rv.readArgs(field, "offset_chars", shown)))
}

func (rv *recordView) blobRoute(br blobRef) string {
	r := br.route()
	if rv.Ref.ConnectionID != "" && !strings.Contains(r, "connection_id=") {
		if strings.Contains(r, "?") {
			r += "&"
		} else {
			r += "?"
		}
		r += "connection_id=" + escapeComponent(rv.Ref.ConnectionID)
	}
	return r
}

func (rv *recordView) renderBlob(field string, br blobRef) string {
	if !br.exportable() {
		return strings.TrimSuffix(br.describe(), "]") + "; the server gives no fetch_url for it, so no export route is offered]"
	}
	return fmt.Sprintf("%s export: GET %s (grant-scoped blob route) · MCP resource %s · bounded chunks: read_record_field %s",
		br.describe(), rv.blobRoute(br), blobURI(br.BlobID, rv.Ref.ConnectionID), compactJSON(rv.readArgs(field, "raw", true)))
}

// ---------------------------------------------------------------------------
// Structured (bounded) values.

const structStringCap = 2000
const structPreviewChars = 400
const structJSONCap = 4000

// boundNested caps long and binary strings inside nested values.
func boundNested(v any) any {
	switch x := v.(type) {
	case string:
		if bi, ok := classifyString(x); ok {
			return binaryDescriptor(bi, nil)
		}
		if runeLen(x) > structStringCap {
			p, _, _ := preview(x, structPreviewChars)
			d := ojson.NewObject()
			d.Set("pdpp_truncated", true)
			d.Set("preview", p)
			d.Set("total_chars", runeLen(x))
			return d
		}
		return x
	case *ojson.Object:
		o := ojson.NewObject()
		for _, k := range x.Keys {
			o.Set(k, boundNested(x.M[k]))
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = boundNested(x[i])
		}
		return out
	}
	return v
}

func binaryDescriptor(bi binaryInfo, read *ojson.Object) *ojson.Object {
	d := ojson.NewObject()
	d.Set("pdpp_binary", true)
	d.Set("encoding", bi.Encoding)
	d.Set("chars", bi.Chars)
	d.Set("approx_bytes", bi.ApproxBytes)
	if bi.MediaType != "" {
		d.Set("media_type", bi.MediaType)
	} else {
		d.Set("media_type", nil)
	}
	if read != nil {
		d.Set("read", callObj("read_record_field", read))
	}
	return d
}

// structuredData returns a bounded copy of the record data plus the names
// of fields that were truncated or summarised.
func (rv *recordView) structuredData() (*ojson.Object, []string) {
	if rv.Data == nil {
		return nil, nil
	}
	out := ojson.NewObject()
	var cut []string
	for _, k := range rv.Data.Keys {
		v := rv.Data.M[k]
		fi := rv.fieldInfo(k)
		switch x := v.(type) {
		case string:
			if bi, ok := stringBinary(x, fi); ok {
				out.Set(k, binaryDescriptor(bi, rv.readArgs(k, "raw", true)))
				cut = append(cut, k)
				continue
			}
			if runeLen(x) > structStringCap {
				p, shown, _ := preview(x, structStringCap)
				d := ojson.NewObject()
				d.Set("pdpp_truncated", true)
				d.Set("preview", p)
				d.Set("shown_chars", shown)
				d.Set("total_chars", runeLen(x))
				d.Set("read", callObj("read_record_field", rv.readArgs(k, "offset_chars", shown)))
				out.Set(k, d)
				cut = append(cut, k)
				continue
			}
			out.Set(k, x)
		case *ojson.Object:
			if _, ok := asBlobRef(x); ok {
				out.Set(k, x)
				continue
			}
			js, _ := jsonView(x, false)
			if runeLen(js) > structJSONCap {
				p, shown, _ := preview(js, structPreviewChars)
				d := ojson.NewObject()
				d.Set("pdpp_truncated", true)
				d.Set("preview_json", p)
				d.Set("total_chars", runeLen(js))
				d.Set("read", callObj("read_record_field", rv.readArgs(k, "offset_chars", shown)))
				out.Set(k, d)
				cut = append(cut, k)
				continue
			}
			nv := boundNested(x)
			if compactJSON(nv) != compactJSON(x) {
				cut = append(cut, k)
			}
			out.Set(k, nv)
		case []any:
			js, _ := jsonView(x, false)
			if runeLen(js) > structJSONCap {
				p, shown, _ := preview(js, structPreviewChars)
				d := ojson.NewObject()
				d.Set("pdpp_truncated", true)
				d.Set("preview_json", p)
				d.Set("total_chars", runeLen(js))
				d.Set("read", callObj("read_record_field", rv.readArgs(k, "offset_chars", shown)))
				out.Set(k, d)
				cut = append(cut, k)
				continue
			}
			nv := boundNested(x)
			if compactJSON(nv) != compactJSON(x) {
				cut = append(cut, k)
			}
			out.Set(k, nv)
		default:
			out.Set(k, v)
		}
	}
	return out, cut
}

// structured returns the bounded record envelope for structuredContent.
func (rv *recordView) structured() *ojson.Object {
	o := ojson.NewObject()
	o.Set("id", rv.Handle)
	o.Set("record_id", rv.Ref.RecordID)
	o.Set("stream", rv.Ref.Stream)
	if rv.Ref.ConnectionID != "" {
		o.Set("connection_id", rv.Ref.ConnectionID)
	}
	if rv.ConnectorKey != "" {
		o.Set("connector_key", rv.ConnectorKey)
	}
	if rv.DisplayName != "" {
		o.Set("display_name", rv.DisplayName)
	}
	if rv.EmittedAt != "" {
		o.Set("emitted_at", rv.EmittedAt)
	}
	if rv.Deleted {
		o.Set("deleted", true)
		if rv.DeletedAt != "" {
			o.Set("deleted_at", rv.DeletedAt)
		}
	}
	if d, cut := rv.structuredData(); d != nil {
		o.Set("data", d)
		if len(cut) > 0 {
			o.Set("truncated_fields", cut)
		}
	}
	if rv.Expanded != nil {
		o.Set("expanded", rv.expandedStructured())
	}
	return o
}

// expandedRecords flattens expanded relations into child views.
func (rv *recordView) expandedRecords() []struct {
	Relation string
	Children []*recordView
	HasMore  bool
	Missing  bool
} {
	type rel = struct {
		Relation string
		Children []*recordView
		HasMore  bool
		Missing  bool
	}
	var out []rel
	if rv.Expanded == nil {
		return nil
	}
	for _, name := range rv.Expanded.Keys {
		r := rel{Relation: name}
		switch x := rv.Expanded.M[name].(type) {
		case nil:
			r.Missing = true
		case *ojson.Object:
			if x.Str("object") == "list" || x.Has("data") && !x.Has("stream") {
				for _, cv := range x.Arr("data") {
					if co, ok := cv.(*ojson.Object); ok {
						r.Children = append(r.Children, newRecordView(co, "", rv.Ref.ConnectionID, rv.childDocs[name], nil))
					}
				}
				r.HasMore, _ = x.Bool("has_more")
			} else {
				r.Children = append(r.Children, newRecordView(x, "", rv.Ref.ConnectionID, rv.childDocs[name], nil))
			}
		}
		out = append(out, r)
	}
	return out
}

func (rv *recordView) expandedStructured() *ojson.Object {
	o := ojson.NewObject()
	for _, rel := range rv.expandedRecords() {
		ro := ojson.NewObject()
		var kids []any
		for _, c := range rel.Children {
			kids = append(kids, c.structured())
		}
		ro.Set("data", orEmpty(kids))
		ro.Set("has_more", rel.HasMore)
		o.Set(rel.Relation, ro)
	}
	return o
}

// relatedDocs reads the schema of each expanded relation's target stream
// so child records can be titled by their own manifest roles.
func (a *Adapter) relatedDocs(ctx context.Context, tok string, row *streamRow, conn string, expand []string) map[string]*schemaDoc {
	out := map[string]*schemaDoc{}
	if row == nil {
		return out
	}
	for _, e := range row.Expand {
		if !contains(expand, e.Name) || e.Target == "" {
			continue
		}
		if d, err := a.streamSchema(ctx, tok, e.Target, conn); err == nil {
			out[e.Name] = d
		}
	}
	return out
}
