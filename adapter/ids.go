package adapter

import (
	"encoding/base64"
	"net/url"
	"strings"

	json "github.com/segmentio/encoding/json"
)

// A recordRef addresses one record: {connection_id}/{stream}:{record_id}, or
// the legacy {stream}:{record_id} with an optional connection_id argument.
type recordRef struct {
	ConnectionID, Stream, RecordID string
}

// String renders the self-contained id when the connection is known.
func (r recordRef) String() string {
	if r.ConnectionID != "" && !strings.ContainsAny(r.ConnectionID, "/:") {
		return r.ConnectionID + "/" + r.Stream + ":" + r.RecordID
	}
	return r.Stream + ":" + r.RecordID
}

// RecordURIPrefix starts a record handle. The adapter never emits one, but
// its tools take one wherever they take an id (seed 004: a handle seen
// anywhere must be callable).
const RecordURIPrefix = "pdpp://record/"

// URI is the record's handle: pdpp://record/ and the escaped id.
func (r recordRef) URI() string { return RecordURIPrefix + url.PathEscape(r.String()) }

// parseRecordID rejects empty segments, extra separators and traversal
// (including percent-encoded forms) before any RS call is made. It also
// takes pdpp://record/ handles: the escaped id, or base64url JSON
// {connection_id, stream, record_id}.
func parseRecordID(id, connArg string) (recordRef, error) {
	bad := func(msg string) (recordRef, error) {
		return recordRef{}, &toolError{Code: "invalid_id", Param: "id",
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
	var ref recordRef
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
			return recordRef{}, &toolError{Code: "conflicting_connection_id", Param: "connection_id",
				Message: "id embeds connection_id '" + ref.ConnectionID + "' but the connection_id argument is '" + connArg + "'; pass one or make them equal"}
		}
		if err := checkSegment(connArg); err != "" {
			return recordRef{}, &toolError{Code: "invalid_connection_id", Param: "connection_id", Message: "connection_id " + err}
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

// parseID is parseRecordID, except under the forward-traversal-id mutant,
// which splits the id without checking its segments.
func (c *call) parseID(id, connArg string) (recordRef, error) {
	if c.a.opts.Mutant == ForwardTraversalID {
		var ref recordRef
		head, rid, _ := strings.Cut(id, ":")
		ref.RecordID = rid
		if conn, stream, has := strings.Cut(head, "/"); has {
			ref.ConnectionID, ref.Stream = conn, stream
		} else {
			ref.Stream = head
		}
		if connArg != "" {
			ref.ConnectionID = connArg
		}
		return ref, nil
	}
	return parseRecordID(id, connArg)
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
