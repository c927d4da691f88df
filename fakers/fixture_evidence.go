package fakers

import (
	"encoding/base64"
	"fmt"
	"strings"
)

// EvidenceFixture names the evidence-ladder fixture: data of every shape
// the evidence scenarios (seeds 002 and 004) are about, which the default
// fixture lacks.
const EvidenceFixture = "evidence-ladder"

// Facts of the evidence-ladder fixture that checks and tests rely on.
const (
	// EvidenceConnection is the fixture's one connection.
	EvidenceConnection = "cin_notes"
	// NotesMediumID's entry (primary text) is about 20,000 characters:
	// past a 16,384-character fetch text, within 32,768.
	NotesMediumID = "n002"
	// NotesLongID's entry is about 70,000 characters: past any single read.
	NotesLongID = "n003"
	// EvidencePhrase occurs once, deep inside NotesLongID's entry.
	EvidencePhrase = "harbor lantern inventory"
)

// buildEvidence is one notebook connection with four streams:
//   - notes: a declared primary-title (headline) and primary-text (entry),
//     entries from 150 to 70,000 characters, undeclared text-like traps,
//     and a related field naming another note by its record id;
//   - documents: no primary-text role at all, with text and body traps;
//   - files: binary fields with a blob route (blob_ref), a blob without a
//     route (thumbnail), and base64 bodies under neutral names (scan);
//   - clippings: each quotes a window of a note's entry and says where it
//     came from in words (stream, record id, field and range).
//
// The data carries no pdpp:// handle: a handle's encoding is an adapter's
// own (seed 004 fixes only the prefix), so the checks judge the handles a
// target emits, never strings copied from record values.
func buildEvidence(uint64) *Fixture {
	conn := Connection{ID: EvidenceConnection, DisplayName: "Field Notes"}
	f := &Fixture{Name: EvidenceFixture, Connectors: []Connector{{Key: "notebook", DisplayName: "Notebook", Connections: []Connection{conn}}}}
	notes := evidenceNotes(conn)
	f.Streams = []*Stream{notes, evidenceDocuments(conn), evidenceFiles(conn), evidenceClippings(conn, notes)}
	f.grantAll()
	return f
}

// entries are the notes' primary texts, by record id.
var entries = []struct {
	id    string
	chars int
}{{"n001", 150}, {NotesMediumID, 20000}, {NotesLongID, 70000}, {"n004", 3000}, {"n005", 600}}

func evidenceNotes(conn Connection) *Stream {
	s := &Stream{Connector: "notebook", Name: "notes", PrimaryKey: "id", CursorField: "updated_at", Connections: []string{conn.ID},
		Fields: []Field{
			{Name: "id", Type: "string"},
			{Name: "headline", Type: "string", Role: "primary-title", Lexical: true},
			{Name: "entry", Type: "string", Role: "primary-text", Lexical: true},
			{Name: "text", Type: "string"}, {Name: "content", Type: "string"}, {Name: "body", Type: "string"}, {Name: "summary", Type: "string"},
			{Name: "related", Type: "string"},
			{Name: "updated_at", Type: "string", Format: "date-time", Range: []string{"gte", "lt"}, Aggregate: []string{"max", "min"}},
		}}
	for i, e := range entries {
		next := entries[(i+1)%len(entries)].id
		data := map[string]any{
			"id": e.id, "headline": fmt.Sprintf("Field note %d", i+1), "entry": noteEntry(i, e.chars),
			"text": "Draft kept for reference only.", "content": "text/markdown", "body": "Internal body marker, not the note.",
			"summary": fmt.Sprintf("Short summary %d.", i+1), "related": "see note " + next,
			"updated_at": fmt.Sprintf("2026-05-%02dT10:00:00Z", 20-i),
		}
		s.Records = append(s.Records, Record{ID: e.id, ConnectionID: conn.ID, EmittedAt: "2026-07-09T00:00:00Z", Data: data})
	}
	return s
}

// noteEntry is an entry of about chars characters; the long one carries
// EvidencePhrase two thirds in.
func noteEntry(i, chars int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Note %d opens with the tide tables and the lighthouse log. ", i+1)
	placed := false // the filler never holds the phrase: no need to search the text for it
	for p := 0; b.Len() < chars; p++ {
		if chars > 60000 && p > 0 && b.Len() > chars*2/3 && !placed {
			b.WriteString("The " + EvidencePhrase + " was counted twice before the storm. ")
			placed = true
		}
		fmt.Fprintf(&b, "Entry %d.%d records the weather, the boats in the harbour and the repairs still open. ", i+1, p)
	}
	return b.String()
}

func evidenceDocuments(conn Connection) *Stream {
	s := &Stream{Connector: "notebook", Name: "documents", PrimaryKey: "id", CursorField: "id", Connections: []string{conn.ID},
		Fields: []Field{{Name: "id", Type: "string"}, {Name: "title", Type: "string", Role: "primary-title", Lexical: true},
			{Name: "text", Type: "string", Lexical: true}, {Name: "body", Type: "string"}, {Name: "summary", Type: "string"}}}
	for i := 1; i <= 3; i++ {
		id := fmt.Sprintf("d%03d", i)
		s.Records = append(s.Records, Record{ID: id, ConnectionID: conn.ID, EmittedAt: "2026-07-09T00:00:00Z", Data: map[string]any{
			"id": id, "title": fmt.Sprintf("Document %d", i),
			"text":    fmt.Sprintf("Document %d text: a field named text that no role declares as the primary text.", i),
			"body":    fmt.Sprintf("Document %d body: a field named body that no role declares either.", i),
			"summary": fmt.Sprintf("Document %d summary.", i),
		}})
	}
	return s
}

func evidenceFiles(conn Connection) *Stream {
	s := &Stream{Connector: "notebook", Name: "files", PrimaryKey: "id", CursorField: "id", Connections: []string{conn.ID},
		Fields: []Field{{Name: "id", Type: "string"}, {Name: "name", Type: "string", Role: "primary-title", Lexical: true},
			{Name: "blob_ref", Type: "object"}, {Name: "thumbnail", Type: "object"}, {Name: "payload", Type: "string"}, {Name: "scan", Type: "string"}}}
	for i := 1; i <= 3; i++ {
		id := fmt.Sprintf("f%03d", i)
		body := []byte(strings.Repeat(fmt.Sprintf("%%PDF-1.7 page %d stream ", i), 40))
		scan := []byte(strings.Repeat(fmt.Sprintf("TIFF scan %d row data; ", i), 200))
		s.Records = append(s.Records, Record{ID: id, ConnectionID: conn.ID, EmittedAt: "2026-07-09T00:00:00Z", Data: map[string]any{
			"id": id, "name": fmt.Sprintf("harbour-chart-%d.pdf", i),
			// blob_ref gets its grant-scoped fetch_url from the RS: a route.
			"blob_ref": map[string]any{"blob_id": "blob_" + id, "mime_type": "application/pdf", "size_bytes": len(body), "sha256": fmt.Sprintf("%064x", 100+i)},
			// A blob the RS serves no route for.
			"thumbnail": map[string]any{"blob_id": "thumb_" + id, "mime_type": "image/jpeg", "size_bytes": 2048 + i},
			"payload":   base64.StdEncoding.EncodeToString(body),
			"scan":      base64.StdEncoding.EncodeToString(scan),
		}})
	}
	return s
}

func evidenceClippings(conn Connection, notes *Stream) *Stream {
	s := &Stream{Connector: "notebook", Name: "clippings", PrimaryKey: "id", CursorField: "id", Connections: []string{conn.ID},
		Fields: []Field{{Name: "id", Type: "string"}, {Name: "quote", Type: "string", Role: "primary-text", Lexical: true},
			{Name: "source", Type: "string"}, {Name: "window", Type: "string"}}}
	for i, rec := range notes.Records[:3] {
		id := fmt.Sprintf("c%03d", i+1)
		entry := []rune(rec.Data["entry"].(string))
		offset, limit := len(entry)/3, 120
		s.Records = append(s.Records, Record{ID: id, ConnectionID: conn.ID, EmittedAt: "2026-07-09T00:00:00Z", Data: map[string]any{
			"id": id, "quote": string(entry[offset : offset+limit]),
			"source": "notes " + rec.ID,
			"window": fmt.Sprintf("entry characters %d to %d", offset, offset+limit),
		}})
	}
	return s
}
