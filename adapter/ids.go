package adapter

import (
	"net/url"
	"strings"
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

// parseRecordID rejects empty segments, extra separators and traversal
// (including percent-encoded forms) before any RS call is made.
func parseRecordID(id, connArg string) (recordRef, error) {
	bad := func(msg string) (recordRef, error) {
		return recordRef{}, &toolError{Code: "invalid_id", Param: "id",
			Message: "id must be connection_id/stream:record_id or stream:record_id (" + msg + ")"}
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

func checkSegment(seg string) string {
	dec := seg
	for i := 0; i < 3; i++ { // catch double-encoded traversal too
		d, err := url.PathUnescape(dec)
		if err != nil || d == dec {
			break
		}
		dec = d
	}
	for _, s := range []string{seg, dec} {
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
