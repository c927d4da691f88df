package probe

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// Field reads: what a bounded read of one field shows of it, inline or
// beside the text, and of its window.

// A FieldRead is one record's field to read, with the handle a page's
// text showed for the record (found by following) and that page.
type FieldRead struct {
	Rec    FixtureRecord
	Field  string
	Value  string
	Handle string
	Page   *conformance.Call
}

// From is the evidence a field read is built from: the page that showed
// the handle, and the grant's names (the field's).
func (f FieldRead) From(t *conformance.T) conformance.Evidence {
	return conformance.Answers(conformance.TextOf(f.Page), GrantNames(t))
}

// Read calls read_record_field on the field with extra arguments.
func (f FieldRead) Read(t *conformance.T, extra dialect.Args) *conformance.Call {
	args := dialect.Args{dialect.RecordID: f.Handle, dialect.Field: f.Field}
	for k, v := range extra {
		args[k] = v
	}
	return t.CallRoles("read_record_field", args)
}

// FindFieldRead finds, in the fixture, a record of the grant with a text
// field keep accepts, whose handle a query_records text of its source
// shows; false when none does (at most MaxStreamProbes sources).
func FindFieldRead(t *conformance.T, keep func(field, value string) bool) (FieldRead, bool) {
	tried := map[Source]bool{}
	for _, r := range FixtureRecords(t) {
		if !InGrant(t, r.Ref) {
			continue
		}
		field, value := "", ""
		for _, k := range slices.Sorted(maps.Keys(r.Data)) {
			if s, ok := r.Data[k].(string); ok && k != "id" && s != r.Ref.ID && !LooksBinary(s) && keep(k, s) {
				field, value = k, s
				break
			}
		}
		src := Source{Stream: r.Ref.Stream, Conn: r.Ref.Conn}
		if field == "" || len(tried) >= MaxStreamProbes && !tried[src] {
			continue
		}
		tried[src] = true
		page := pageWith(t, src)
		if page == nil {
			continue
		}
		if h := HandlesInText(t, page, []RecordRef{r.Ref})[r.Ref]; h != "" {
			return FieldRead{Rec: r, Field: field, Value: value, Handle: h, Page: page}, true
		}
	}
	return FieldRead{}, false
}

// pageWith is a page of up to 100 records of src, read once per target.
func pageWith(t *conformance.T, src Source) *conformance.Call {
	return conformance.Discover(t, "page100|"+src.Stream+"|"+src.Conn, func() *conformance.Call {
		c := t.CallRoles("query_records", src.Roles(dialect.Args{dialect.Limit: 100}))
		if c.IsError() {
			return nil
		}
		return c
	})
}

// SmallField is a short plain-text field of the grant (not an id), with a
// handle the target showed for its record.
func SmallField(t *conformance.T) (FieldRead, bool) {
	return FindFieldRead(t, func(_, v string) bool {
		return strings.Count(v, " ") >= 2 && utf8.RuneCountInString(v) <= 200
	})
}

// LongField is a text field of the grant over 600 characters, with a
// handle the target showed for its record.
func LongField(t *conformance.T) (FieldRead, bool) {
	return FindFieldRead(t, func(_, v string) bool { return utf8.RuneCountInString(v) > 600 })
}

// InlineHolds reports whether a text part of r carries value, as written
// or JSON-escaped.
func InlineHolds(r *conformance.Call, value string) bool {
	esc, _ := json.Marshal(value)
	for _, p := range r.Result.Content {
		if tc, ok := p.(*mcp.TextContent); ok {
			if strings.Contains(tc.Text, value) || strings.Contains(tc.Text, strings.Trim(string(esc), `"`)) {
				return true
			}
		}
	}
	return false
}

// Materialized lists what of r stands for the field outside its text: a
// resource link, an embedded resource, a resource in structuredContent or
// _meta.
func Materialized(r *conformance.Call) []string {
	var out []string
	for _, p := range r.Result.Content {
		switch x := p.(type) {
		case *mcp.ResourceLink:
			out = append(out, "resource_link "+x.URI)
		case *mcp.EmbeddedResource:
			out = append(out, "embedded resource")
		}
	}
	if _, ok := r.Structured()["resource"]; ok {
		out = append(out, "structuredContent.resource")
	}
	if _, ok := r.Result.Meta["resource"]; ok {
		out = append(out, "_meta.resource")
	}
	return out
}
