package probe

import (
	"fmt"
	"net/url"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/conformance/read"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// The expand gate judged against the fixture RS: which relations its own
// schema advertises (the truth), what the target showed of them, and
// what its request log saw.

// FixtureExpand picks, from the RS's own schema (GrantTruth: the fixture
// RS's, or the real RS's under --rs real), a stream row advertising a
// relation (want) or a stream none of whose rows does (!want). Where no
// stream advertises one, Absent counts the streams and FromRS is set; not
// found at all where mcpcheck cannot read the RS.
func FixtureExpand(t *conformance.T, want bool) ExpandSearch {
	rows, ok := GrantTruth(t)
	if !ok {
		return ExpandSearch{}
	}
	for _, name := range StreamNames(rows) {
		named := RowsNamed(rows, name)
		for _, r := range named {
			if want && len(r.Expand) > 0 {
				et := ExpandTarget{Stream: name, Rel: r.Expand[0]}
				if len(r.Connections) > 0 {
					et.Conn = r.Connections[0]
				}
				return ExpandSearch{Target: et, Found: true}
			}
		}
		if !want && !slices.ContainsFunc(named, func(r SchemaRow) bool { return len(r.Expand) > 0 }) && len(named) > 0 {
			et := ExpandTarget{Stream: name, Rel: "mcpcheck_unadvertised"}
			if len(named[0].Connections) > 0 {
				et.Conn = named[0].Connections[0]
			}
			return ExpandSearch{Target: et, Found: true}
		}
	}
	if want {
		return ExpandSearch{Absent: len(StreamNames(rows)), FromRS: true}
	}
	return ExpandSearch{}
}

// ExpandShown is what the target showed that a call on et may be built
// from: its schema scoped to the stream, and the grant's names.
func ExpandShown(t *conformance.T, et ExpandTarget) conformance.Evidence {
	return conformance.Answers(SchemaCall(t, dialect.Args{dialect.Stream: et.Stream}), GrantNames(t))
}

// RequestLog is the fixture RS's log of requests under prefix since the
// seq'th, their queries decoded, as evidence an argument reached the RS
// (or never did).
func RequestLog(t *conformance.T, prefix string, since int64) conformance.Evidence {
	var lines []string
	for _, r := range t.RS().RequestsTo(prefix) {
		if r.Seq <= since {
			continue
		}
		q, err := url.QueryUnescape(r.RawQuery)
		if err != nil {
			q = r.RawQuery
		}
		lines = append(lines, fmt.Sprintf("%s %s?%s", r.Method, r.Path, q))
	}
	label := fmt.Sprintf("the fixture RS's request log under %s (%d requests)", prefix, len(lines))
	return conformance.Shown(label, strings.Join(lines, "\n"))
}

// LastSeq is the sequence number of the RS's latest request: a mark to
// read the log from.
func LastSeq(t *conformance.T) int64 {
	reqs := t.RS().Requests()
	if len(reqs) == 0 {
		return 0
	}
	return reqs[len(reqs)-1].Seq
}

// RequestsSince are the RS requests under prefix after seq since.
func RequestsSince(t *conformance.T, prefix string, since int64) []fakers.Request {
	return slices.DeleteFunc(t.RS().RequestsTo(prefix), func(r fakers.Request) bool { return r.Seq <= since })
}

// MissingValue is a string value of the RS's answer (at least four
// characters, not a bare number) found nowhere in in, in any notation:
// what the target dropped of it; "" when it shows them all.
func MissingValue(rsAnswer any, in conformance.Evidence) string {
	shown := in.Strings()
	// The records' values first (what the client came for), then the
	// envelope's.
	vals := SortedCopy(StringValues(rsAnswer))
	if m, ok := rsAnswer.(map[string]any); ok && m["data"] != nil {
		vals = append(SortedCopy(StringValues(m["data"])), vals...)
	}
	for _, v := range vals {
		if len(v) < 4 || strings.Trim(v, "0123456789.-") == "" {
			continue
		}
		if !read.Find(shown, read.Text(v)).Seen() {
			return v
		}
	}
	return ""
}
