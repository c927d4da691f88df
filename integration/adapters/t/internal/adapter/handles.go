package adapter

import (
	"fmt"
	"net/url"
	"strings"
)

// Record handles.
//
// Every record the adapter shows carries a self-contained handle:
//
//	pdpp://record/{connection_id}/{stream}/{record_id}
//
// Each segment is percent-encoded (only RFC 3986 unreserved characters stay
// literal). "-" stands for "no connection id known" (a single-source RS that
// does not report connection ids). The handle is accepted directly as the
// id argument of fetch and read_record_field and is also readable through
// MCP resources/read.

const recordScheme = "pdpp://record/"
const blobScheme = "pdpp://blob/"
const noConnection = "-"

// recordRef identifies one record inside the grant.
type recordRef struct {
	ConnectionID string
	Stream       string
	RecordID     string
}

func (r recordRef) Handle() string {
	c := r.ConnectionID
	if c == "" {
		c = noConnection
	} else {
		c = escapeComponent(c)
	}
	return recordScheme + c + "/" + escapeComponent(r.Stream) + "/" + escapeComponent(r.RecordID)
}

// escapeComponent percent-encodes everything except unreserved characters.
func escapeComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// isHandle reports whether s looks like a pdpp://record/ handle.
func isHandle(s string) bool { return strings.HasPrefix(strings.TrimSpace(s), recordScheme) }

// parseHandle decodes a pdpp://record/ handle.
func parseHandle(s string) (recordRef, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, recordScheme) {
		return recordRef{}, fmt.Errorf("not a record handle (expected %s{connection_id}/{stream}/{record_id})", recordScheme)
	}
	rest := s[len(recordScheme):]
	if i := strings.IndexAny(rest, "?#"); i >= 0 {
		rest = rest[:i]
	}
	parts := strings.Split(rest, "/")
	if len(parts) != 3 {
		return recordRef{}, fmt.Errorf("malformed record handle %q: expected 3 path segments {connection_id}/{stream}/{record_id}", s)
	}
	var out [3]string
	for i, p := range parts {
		v, err := url.PathUnescape(p)
		if err != nil || v == "" {
			return recordRef{}, fmt.Errorf("malformed record handle %q: bad segment %q", s, p)
		}
		out[i] = v
	}
	ref := recordRef{ConnectionID: out[0], Stream: out[1], RecordID: out[2]}
	if ref.ConnectionID == noConnection {
		ref.ConnectionID = ""
	}
	return ref, nil
}

// blobURI is the MCP resource URI for a blob (host-controlled read).
func blobURI(blobID, connectionID string) string {
	u := blobScheme + escapeComponent(blobID)
	if connectionID != "" {
		u += "?connection_id=" + escapeComponent(connectionID)
	}
	return u
}

func parseBlobURI(s string) (blobID, connectionID string, err error) {
	if !strings.HasPrefix(s, blobScheme) {
		return "", "", fmt.Errorf("not a blob URI")
	}
	rest := s[len(blobScheme):]
	q := ""
	if i := strings.IndexByte(rest, '?'); i >= 0 {
		rest, q = rest[:i], rest[i+1:]
	}
	blobID, err = url.PathUnescape(rest)
	if err != nil || blobID == "" || strings.Contains(rest, "/") {
		return "", "", fmt.Errorf("malformed blob URI %q", s)
	}
	if q != "" {
		vals, perr := url.ParseQuery(q)
		if perr != nil {
			return "", "", fmt.Errorf("malformed blob URI %q", s)
		}
		connectionID = vals.Get("connection_id")
	}
	return blobID, connectionID, nil
}

// recordPath is the RS path of a record.
func recordPath(stream, id string) string {
	return "/v1/streams/" + url.PathEscape(stream) + "/records/" + url.PathEscape(id)
}

func streamPath(stream string) string { return "/v1/streams/" + url.PathEscape(stream) }
