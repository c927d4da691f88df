package probe

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
	"github.com/pdpp-connect/mcpcheck/fakers"
)

// Expand: which stream the target's schema shows advertising an expand
// relation, or none, and the RS requests that carried one.

// MaxExpandProbes bounds how many streams a check asks schema(stream) about
// while looking for one with (or without) expand relations.
const MaxExpandProbes = 20

// ExpandTarget is a stream, one of its connections, and a relation.
type ExpandTarget struct {
	Stream, Conn, Rel string
}

// An ExpandSearch is what a look for an expand subject found: the
// subject (Target, Found), or in Absent how many streams were read in
// full, every row listing its expand_capabilities, with none usable (0:
// not every stream was seen, so a relation may exist unseen).
type ExpandSearch struct {
	Target ExpandTarget
	Found  bool
	Absent int
	// Unread counts the streams whose scoped schema read as no rows: what
	// they advertise is unknown.
	Unread int
	// FromRS says Absent was read from the RS's own schema, not the target's.
	FromRS bool
}

// AbsentFrom names where Absent was decided.
func (s ExpandSearch) AbsentFrom() string {
	if s.FromRS {
		return "the RS's own /v1/schema"
	}
	return "the target's schema"
}

// FindExpand looks through scoped schemas for a stream row whose
// expand_capabilities advertise a usable relation (want) or whose rows
// advertise none (!want). It judges the schema calls it makes.
func FindExpand(t *conformance.T, want bool) ExpandSearch {
	return conformance.Discover(t, fmt.Sprint("expand-", want), func() ExpandSearch {
		index := Grant(t)
		return searchExpand(index, want, func(name string) []SchemaRow {
			_, rows := ScopedSchema(t, dialect.Args{dialect.Stream: name})
			return rows
		})
	})
}

// ExpandSubject is FindExpand for the expand-gate checks, which judge no
// schema call: an index the target does not give blocks the check (S017
// owns it), and a scoped schema that fails is passed over.
func ExpandSubject(t *conformance.T, want bool) ExpandSearch {
	index := Grant(t)
	return conformance.Discover(t, fmt.Sprint("expand-subject-", want), func() ExpandSearch {
		return searchExpand(index, want, func(name string) []SchemaRow {
			c := SchemaCall(t, dialect.Args{dialect.Stream: name})
			if c.IsError() {
				return nil
			}
			return RowsNamed(SchemaRows(c.Data()), name)
		})
	})
}

// searchExpand asks scoped, stream by stream, for a row that advertises a
// relation (want) or a stream none of whose rows does (!want).
func searchExpand(index []SchemaRow, want bool, scoped func(stream string) []SchemaRow) ExpandSearch {
	names := StreamNames(index)
	seenAll := len(names) > 0 && len(names) <= MaxExpandProbes
	unread := 0
	for i, name := range names {
		if i == MaxExpandProbes {
			break
		}
		rows := scoped(name)
		seenAll = seenAll && len(rows) > 0
		if len(rows) == 0 {
			unread++
		}
		advertised := false
		for _, r := range rows {
			if _, listed := r.Raw["expand_capabilities"].([]any); !listed {
				seenAll = false // another notation, or none: not seen
			}
			if len(r.Expand) > 0 {
				advertised = true
				if want {
					et := ExpandTarget{Stream: name, Rel: r.Expand[0]}
					if len(r.Connections) > 0 {
						et.Conn = r.Connections[0]
					}
					return ExpandSearch{Target: et, Found: true}
				}
			}
		}
		if !want && !advertised && len(rows) > 0 {
			et := ExpandTarget{Stream: name, Rel: "mcpcheck_unadvertised"}
			if len(rows[0].Connections) > 0 {
				et.Conn = rows[0].Connections[0]
			}
			return ExpandSearch{Target: et, Found: true}
		}
	}
	if want && seenAll {
		return ExpandSearch{Absent: len(names)}
	}
	return ExpandSearch{Unread: unread}
}

// Why says why a search for a stream without (or with) expand relations
// found none.
func (s ExpandSearch) Why(want bool) string {
	switch {
	case s.Unread > 0 && want:
		return fmt.Sprintf("no probed stream was read as advertising an expand relation; %d scoped schema(s) of the target did not read as schema rows", s.Unread)
	case s.Unread > 0:
		return fmt.Sprintf("no probed stream was read as advertising no expand relation; %d scoped schema(s) of the target did not read as schema rows", s.Unread)
	case want:
		return "no probed stream advertises an expand relation"
	}
	return "every probed stream advertises expand relations; none to test the gate on"
}

// Roles are the arguments of a read of the target's stream with its
// relation expanded, with extra.
func (e ExpandTarget) Roles(extra dialect.Args) dialect.Args {
	a := dialect.Args{dialect.Stream: e.Stream, dialect.Expand: []string{e.Rel}, dialect.Limit: 2}
	if e.Conn != "" {
		a[dialect.Connection] = e.Conn
	}
	for k, v := range extra {
		a[k] = v
	}
	return a
}

// ExpandCalls are the RS record-list or record-detail requests of a stream
// that carried expand, on t's target.
func ExpandCalls(t *conformance.T, et ExpandTarget) []fakers.Request {
	var out []fakers.Request
	for _, r := range t.RS().RequestsTo("/v1/streams/" + url.PathEscape(et.Stream) + "/records") {
		q, _ := url.ParseQuery(r.RawQuery)
		for _, k := range []string{"expand", "expand[]"} {
			for _, v := range q[k] {
				if strings.EqualFold(v, et.Rel) {
					out = append(out, r)
				}
			}
		}
	}
	return out
}
