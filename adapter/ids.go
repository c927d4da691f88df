package adapter

import (
	"encoding/base64"
	"errors"
	"net/url"
	"strings"

	json "github.com/segmentio/encoding/json"
)

// A RecordRef addresses one record of one stream, in one connection when
// ConnectionID is set.
type RecordRef struct {
	ConnectionID, Stream, RecordID string
}

// An IDCodec writes the record ids the tools show (search results, record
// previews, fetch documents, field windows, continuations) and reads the ids
// fetch and read_record_field take. An id it writes must read back as the
// same record with no other argument (seed 001: self-contained ids).
type IDCodec interface {
	// Format is the id of ref.
	Format(ref RecordRef) string
	// Parse reads an id, with the call's connection_id argument ("" when
	// absent). It must refuse traversal and empty segments before any RS
	// call; an error that is not the adapter's own becomes invalid_id.
	Parse(id, connectionID string) (RecordRef, error)
}

// PathIDs is the default IDCodec: connection_id/stream:record_id, or the
// legacy stream:record_id with an optional connection_id argument; Parse
// also takes pdpp://record/ handles.
type PathIDs struct{}

// Format renders the self-contained id when the connection is known.
func (PathIDs) Format(r RecordRef) string {
	if r.ConnectionID != "" && !strings.ContainsAny(r.ConnectionID, "/:") {
		return r.ConnectionID + "/" + r.Stream + ":" + r.RecordID
	}
	return r.Stream + ":" + r.RecordID
}

// Parse implements IDCodec.
func (PathIDs) Parse(id, connectionID string) (RecordRef, error) {
	return parseRecordID(id, connectionID)
}

// RecordURIPrefix starts a record handle. The adapter never emits one, but
// its tools take one wherever they take an id (seed 004: a handle seen
// anywhere must be callable).
const RecordURIPrefix = "pdpp://record/"

// parseRecordID rejects empty segments, extra separators and traversal
// (including percent-encoded forms) before any RS call is made. It also
// takes pdpp://record/ handles: the escaped id, or base64url JSON
// {connection_id, stream, record_id}.
func parseRecordID(id, connArg string) (RecordRef, error) {
	bad := func(msg string) (RecordRef, error) {
		return RecordRef{}, &toolError{Code: "invalid_id", Param: "id",
			Message: "id must be connection_id/stream:record_id, stream:record_id or a pdpp://record/ handle (" + msg + ")"}
	}
	if rest, ok := strings.CutPrefix(id, RecordURIPrefix); ok {
		inner, err := decodeRecordHandle(rest)
		if err != "" {
			return bad(err)
		}
		return parseRecordID(inner, connArg)
	}
	if strings.HasPrefix(id, "pdpp:") {
		return bad("only pdpp://record/ handles name a record")
	}
	var ref RecordRef
	head, rid, ok := strings.Cut(id, ":")
	if !ok {
		return bad("missing ':'")
	}
	ref.RecordID = rid
	if conn, stream, has := strings.Cut(head, "/"); has {
		ref.ConnectionID, ref.Stream = conn, stream
	} else {
		ref.Stream = head
	}
	if ref.Stream == "" || ref.RecordID == "" || (strings.Contains(head, "/") && ref.ConnectionID == "") {
		return bad("empty segment")
	}
	for _, seg := range []string{ref.ConnectionID, ref.Stream, ref.RecordID} {
		if err := checkSegment(seg); err != "" {
			return bad(err)
		}
	}
	if connArg != "" {
		if ref.ConnectionID != "" && ref.ConnectionID != connArg {
			return RecordRef{}, &toolError{Code: "conflicting_connection_id", Param: "connection_id",
				Message: "id embeds connection_id '" + ref.ConnectionID + "' but the connection_id argument is '" + connArg + "'; pass one or make them equal"}
		}
		if err := checkSegment(connArg); err != "" {
			return RecordRef{}, &toolError{Code: "invalid_connection_id", Param: "connection_id", Message: "connection_id " + err}
		}
		ref.ConnectionID = connArg
	}
	return ref, nil
}

// maxDecodes bounds how many layers of percent-encoding checkSegment undoes;
// a segment still encoded after that is refused rather than decoded further.
const maxDecodes = 4

func checkSegment(seg string) string {
	// Decode leniently, as a forgiving server or proxy would: a malformed
	// escape elsewhere in the segment must not hide an encoded "../".
	forms := []string{seg}
	for d := unescapeLenient(seg); d != forms[len(forms)-1]; d = unescapeLenient(d) {
		if len(forms) > maxDecodes {
			return "is percent-encoded too deeply"
		}
		forms = append(forms, d)
	}
	for _, s := range forms {
		switch {
		case s == "." || s == "..":
			return "contains a dot segment"
		case strings.ContainsAny(s, "/\\"):
			return "contains a path separator"
		case strings.Contains(s, ".."):
			return "contains '..'"
		case strings.ContainsAny(s, "\x00\r\n"):
			return "contains a control character"
		}
	}
	return ""
}

// parseID reads a tool's id argument with the adapter's codec.
func (c *call) parseID(id, connArg string) (RecordRef, error) {
	ref, err := c.t.IDs.Parse(id, connArg)
	var te *toolError
	if err != nil && !errors.As(err, &te) {
		err = &toolError{Code: "invalid_id", Param: "id", Message: err.Error()}
	}
	return ref, err
}

// decodeRecordHandle turns the part after pdpp://record/ into a plain id.
func decodeRecordHandle(rest string) (string, string) {
	if rest == "" {
		return "", "empty record handle"
	}
	if raw, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(rest, "=")); err == nil && len(raw) > 0 && raw[0] == '{' {
		var h struct {
			ConnectionID string `json:"connection_id"`
			Stream       string `json:"stream"`
			RecordID     string `json:"record_id"`
		}
		if json.Unmarshal(raw, &h) != nil || h.Stream == "" || h.RecordID == "" {
			return "", "malformed record handle"
		}
		// The fields are joined into a plain id and parsed again, so a
		// separator inside stream or connection_id would name another record.
		if strings.ContainsAny(h.Stream, ":/") || strings.ContainsAny(h.ConnectionID, ":/") {
			return "", "separator inside a record handle field"
		}
		id := h.Stream + ":" + h.RecordID
		if h.ConnectionID != "" {
			id = h.ConnectionID + "/" + id
		}
		return id, ""
	}
	inner, err := url.PathUnescape(rest)
	if err != nil || strings.HasPrefix(inner, "pdpp:") {
		return "", "malformed record handle"
	}
	return inner, ""
}

// unescapeLenient decodes each valid %XX and keeps malformed escapes as they are.
func unescapeLenient(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && ishex(s[i+1]) && ishex(s[i+2]) {
			b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
			i += 2
			continue
		}
		b = append(b, s[i])
	}
	return string(b)
}

func ishex(c byte) bool { return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F' }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}
