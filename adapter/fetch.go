package adapter

// The fetch tool: one record as a search-fetch document, its title and
// text from declared display roles only (seed 002).

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	json "github.com/segmentio/encoding/json"
)

type fetchArgs struct {
	ID           string   `json:"id"`
	ConnectionID string   `json:"connection_id"`
	Fields       []string `json:"fields"`
	Expand       []string `json:"expand"`
}

func (c *call) fetch(in fetchArgs) (*mcp.CallToolResult, error) {
	ref, err := c.parseID(in.ID, in.ConnectionID)
	if err != nil {
		return nil, err
	}
	path, err := streamPath(ref.Stream, "records", url.PathEscape(ref.RecordID))
	if err != nil {
		return nil, err
	}
	q := url.Values{}
	if err := encodeExpand(q, in.Expand, nil); err != nil {
		return nil, err
	}
	if err := c.checkRead(ref.Stream, ref.ConnectionID, in.Expand); err != nil {
		return nil, err
	}
	// The stream's declared roles decide the document's title and text.
	sc := c.scope(ref.Stream, ref.ConnectionID)
	if sc.authErr != nil {
		return nil, sc.authErr
	}
	for _, f := range in.Fields {
		q.Add("fields", f)
	}
	setIf(q, "connection_id", ref.ConnectionID)
	body, _, err := c.get(path, q)
	if err != nil {
		return nil, err
	}
	var rec record
	if err := json.Unmarshal(body, &rec); err != nil {
		return nil, &toolError{Code: "rs_malformed_body", Message: "record body is not a JSON object"}
	}
	if rec.ConnectionID == "" {
		rec.ConnectionID = ref.ConnectionID
	}
	doc := c.documentFor(in.ID, ref, &rec, sc, in.Fields)
	text := compactJSON(doc)
	return textResult(text, json.RawMessage(text)), nil
}

// A Document is what fetch returns, in text (compact JSON) and as
// structuredContent: the MCP/OpenAI search-fetch document, and nothing more.
type Document struct {
	ID       string         `json:"id"`
	Title    string         `json:"title"`
	Text     string         `json:"text"`
	URL      string         `json:"url"`
	Metadata map[string]any `json:"metadata"`
}

const fetchFallbackText = 1024

// documentFor builds the fetch document. With fields it shows only those
// (and the stream's declared key fields), whatever else the RS sent.
func (c *call) documentFor(id string, ref RecordRef, rec *record, sc streamScope, fields []string) Document {
	data := rawObject(rec.Data)
	projected := len(fields) > 0
	if projected && !c.t.RSProjects {
		data = projectData(data, append(append([]string(nil), fields...), sc.keys...))
	}
	if ref.ConnectionID == "" {
		ref.ConnectionID = rec.ConnectionID
	}
	doc := Document{ID: id, Metadata: map[string]any{"stream": ref.Stream, "record_id": ref.RecordID}}
	if !strings.Contains(id, ":") {
		doc.ID = c.t.IDs.Format(ref)
	}
	rec.ConnectorKey = sc.connectorKey(rec.ConnectionID, rec.ConnectorKey)
	for k, v := range map[string]string{"connection_id": rec.ConnectionID, "connector_key": rec.ConnectorKey, "display_name": rec.DisplayName, "emitted_at": rec.EmittedAt} {
		if v != "" {
			doc.Metadata[k] = v
		}
	}
	doc.URL = c.a.rs.BaseURL() + "/v1/streams/" + ref.Stream + "/records/" + ref.RecordID
	if rec.ConnectionID != "" {
		doc.URL += "?connection_id=" + rec.ConnectionID
	}
	// Title and text come from declared display roles only (seed 002): a
	// field merely named like a title is not promoted.
	titleField, textField := sc.fieldWithRole("primary-title"), sc.fieldWithRole("primary-text")
	if s, ok := data[titleField].(string); ok && s != "" {
		doc.Title = s
	} else {
		ts := ""
		for _, k := range []string{"sent_at", "authored_at", "created_at", "source_created_at", "occurred_at", "updated_at"} {
			if s, ok := data[k].(string); ok && s != "" {
				ts = s
				break
			}
		}
		doc.Title = c.t.FallbackTitle(firstOf(rec.DisplayName, rec.ConnectorKey, rec.ConnectionID), ref.Stream, firstOf(ts, rec.EmittedAt))
	}
	rest := map[string]any{}
	for k, v := range data {
		if k != textField {
			rest[k] = v
		}
	}
	safe, ev := safeRecord(c.t.IDs.Format(ref), rest, c.a.rs.BaseURL(), c.t)
	if projected {
		ev = inlineRequestedJSON(safe, ev, rest, fields, c.t)
	}
	if len(ev) > 0 {
		doc.Metadata["fields"] = ev
	}
	if s, ok := data[textField].(string); ok && s != "" && !isBase64Blob(s) {
		doc.Text = s
		c.boundDocumentText(&doc, ref, textField)
		return doc
	}
	if projected {
		// The requested fields are the answer: the text is their JSON.
		doc.Text = compactJSON(safe)
		return doc
	}
	suffix := " [no field declares the primary-text role; use query_records or fetch(fields) for structured records]"
	doc.Text = ellipsis(c.t.Ellipsis).clipBytes(compactJSON(safe), fetchFallbackText-len(suffix)) + suffix
	return doc
}

// projectData keeps the keep fields of data.
func projectData(data map[string]any, keep []string) map[string]any {
	out := map[string]any{}
	for k, v := range data {
		if slices.Contains(keep, k) {
			out[k] = v
		}
	}
	return out
}

// inlineRequestedJSON puts requested JSON fields back whole in place of
// their descriptors, as long as together they stay within the fetch text
// limit; larger ones keep a descriptor with a windowed read.
func inlineRequestedJSON(safe map[string]any, ev []*fieldEvidence, data map[string]any, fields []string, t *Tuning) []*fieldEvidence {
	room := t.FetchTextLimit
	var kept []*fieldEvidence
	for _, e := range ev {
		if e.JSON && slices.Contains(fields, e.FieldPath) && e.TotalChars <= room {
			room -= e.TotalChars
			safe[e.FieldPath] = data[e.FieldPath]
			continue
		}
		if e.JSON && e.Read["tool"] == "fetch" {
			e.Read = map[string]any{"tool": "read_record_field", "args": map[string]any{"id": e.Read["args"].(map[string]any)["id"], "field_path": e.FieldPath, "offset_chars": 0, "limit_chars": t.FieldWindow}}
		}
		kept = append(kept, e)
	}
	return kept
}

// boundDocumentText cuts a text longer than the fetch text limit and says
// so, in the text and in metadata, with the read_record_field call that
// continues it: never a silent cut that passes for the whole (seeds 002, 004).
func (c *call) boundDocumentText(doc *Document, ref RecordRef, field string) {
	limit := c.t.FetchTextLimit
	runes := []rune(doc.Text)
	if len(runes) <= limit {
		return
	}
	doc.Text = string(runes[:limit])
	next := map[string]any{"id": c.t.IDs.Format(ref), "field_path": field, "offset_chars": limit}
	doc.Metadata["text_truncated"] = true
	doc.Metadata["text_field"] = field
	doc.Metadata["text_total_chars"] = len(runes)
	doc.Metadata["text_continuation"] = map[string]any{"tool": "read_record_field", "args": next}
	doc.Text += fmt.Sprintf("%s [text truncated at %d of %d characters; continue with read_record_field %s]", c.t.Ellipsis, limit, len(runes), compactJSON(next))
}
