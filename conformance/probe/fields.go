package probe

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// Field reads: what a bounded read of one field shows of it, inline or
// beside the text, and of its window.

// smallField finds a record with a short plain-text field (not its id).
func smallField(t *conformance.T) (ScannedRecord, string, string, bool) {
	var field, value string
	rec, ok := ScanRecords(t, func(r ScannedRecord) bool {
		for _, k := range slices.Sorted(maps.Keys(r.Data)) {
			if s, ok := r.Data[k].(string); ok && k != "id" && strings.Count(s, " ") >= 2 && utf8.RuneCountInString(s) <= 200 && !LooksBinary(s) {
				field, value = k, s
				return true
			}
		}
		return false
	})
	return rec, field, value, ok
}

// SmallFieldRead is the bounded field read of a short text field of the
// target's own data, or a skip when its grant holds none.
func SmallFieldRead(t *conformance.T) (*conformance.Call, string) {
	rec, field, value, ok := smallField(t)
	if !ok {
		t.Skipf("no record of the target's grant has a short text field")
	}
	return t.CallRoles("read_record_field", dialect.Args{dialect.RecordID: rec.ID, dialect.Field: field}), value
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

// continuationKy is a word that names continuation metadata.
var continuationKy = regexp.MustCompile(`(?i)next|cursor|has_more|continu|previous`)

// WindowFacts says what a bounded read shows of its window, found by value
// (the numbers) and by meaning (a completion state, continuation
// metadata), in text or structuredContent; each missing fact is named.
func WindowFacts(r *conformance.Call, total int) []string {
	var missing []string
	sc := CompactJSON(r.Structured())
	text := r.Text()
	n := strconv.Itoa(total)
	sizeRe := regexp.MustCompile(`(?i)(total|size|length)[a-z_]*["']?\s*[=:]\s*["']?` + n + `\b|\bof ` + n + `\b|\b` + n + ` (chars|characters)\b`)
	if !sizeRe.MatchString(text) && !sizeRe.MatchString(sc) {
		missing = append(missing, "its total size ("+n+" characters)")
	}
	rangeRe := regexp.MustCompile(`(?i)\b0"?\s*(\.\.|-|–|to)\s*"?` + n + `\b|(start|offset|from)[a-z_]*["']?\s*[=:]\s*["']?0\b`)
	if !rangeRe.MatchString(text) && !rangeRe.MatchString(sc) {
		missing = append(missing, "the served range (0.."+n+")")
	}
	if !Completion.MatchString(text) && !Completion.MatchString(sc) {
		missing = append(missing, "its completion state")
	}
	if !continuationKy.MatchString(text) && !continuationKy.MatchString(sc) {
		missing = append(missing, "continuation metadata")
	}
	return missing
}
