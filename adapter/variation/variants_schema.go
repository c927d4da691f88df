package variation

import (
	"encoding/base64"
	"errors"
	"net/url"
	"strings"

	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Conforming variations of record ids and of the schema text's grammar.

// recordTokenPrefix starts an opaque record token; a token holds no ':',
// so it never reads as a stream:record_id id.
const recordTokenPrefix = "rec_"

// tokenIDs writes each record id as an opaque, self-contained token: the
// base64url JSON of [connection_id, stream, record_id]. It reads those
// tokens, and every id PathIDs reads.
type tokenIDs struct{}

func (tokenIDs) Format(r adapter.RecordRef) string {
	if r.ConnectionID == "" {
		return adapter.PathIDs{}.Format(r)
	}
	return recordTokenPrefix + base64.RawURLEncoding.EncodeToString(mustJSON([]string{r.ConnectionID, r.Stream, r.RecordID}))
}

func (tokenIDs) Parse(id, connectionID string) (adapter.RecordRef, error) {
	inner := id
	if rest, ok := strings.CutPrefix(id, adapter.RecordURIPrefix); ok {
		if u, err := url.PathUnescape(rest); err == nil {
			inner = u
		}
	}
	tok, ok := strings.CutPrefix(inner, recordTokenPrefix)
	if !ok || strings.Contains(tok, ":") {
		return adapter.PathIDs{}.Parse(id, connectionID)
	}
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	var t []string
	if err != nil || json.Unmarshal(raw, &t) != nil || len(t) != 3 || strings.ContainsAny(t[0]+t[1], "/:") {
		return adapter.RecordRef{}, errors.New("id is not a record token this adapter wrote; pass an id exactly as shown")
	}
	// The path form checks every segment, and a contradicting connection_id.
	return adapter.PathIDs{}.Parse(t[0]+"/"+t[1]+":"+t[2], connectionID)
}

// opaqueRecordIDs shows record ids as tokens, and says so in fetch's
// description. Each hit keeps its connection_id, stream and record_key as
// fields; the text's source mix and record previews name connections.
func opaqueRecordIDs() func(*Seams) {
	return all(
		tune(func(t *adapter.Tuning) { t.IDs = tokenIDs{} }),
		describe("fetch", func(d string) string {
			return strings.Replace(d, "id is a search id (connection_id/stream:record_id)", "id is a search id (an opaque rec_… token), connection_id/stream:record_id", 1)
		}))
}

// parenGrammar writes each field as name(type; filter=ops; agg=kinds;
// search=modes; role=…) and explains it in its own legend. It reads the
// default grammar's rows, whose flags are its capabilities.
type parenGrammar struct{ adapter.CompactGrammar }

const parenLegendLine = "field_capability_legend: fields read name(type; filter=ops; agg=kinds; search=modes; role=display_role; not granted). " +
	"filter=eq: filter {name: value}; filter=gte,gt,lte,lt: filter {name: {op: value}}; " +
	"agg=sum,min,max,count_distinct: aggregate metric=kind field=name; agg=group_by: aggregate metric=count group_by=name; " +
	"agg=group_by_time: aggregate metric=count group_by_time=name granularity=day|…; sort=cursor_field or -cursor_field; fields=[names] projects"

var parenLegend = map[string]string{
	"type": "declared type", "filter": "filter operators: eq is {name: value}, gte|gt|lte|lt are {name: {op: value}}",
	"agg": "aggregations the field takes part in", "search": "search modes that match the field", "role": "declared display role",
	"not granted": "the field is not granted",
}

func (parenGrammar) Legend() (string, map[string]string) { return parenLegendLine, parenLegend }

func (g parenGrammar) Row(row map[string]any) []string {
	segs := g.CompactGrammar.Row(row)
	for i, s := range segs {
		if list, ok := strings.CutPrefix(s, "fields="); ok {
			var fields []string
			for _, f := range strings.Split(list, ";") {
				fields = append(fields, parenField(f))
			}
			segs[i] = "fields: " + strings.Join(fields, " | ")
		}
	}
	return segs
}

// parenField rewrites name[t=x,eq,r=a|b,a=k|l,lex,sem,role=y,g=false].
func parenField(f string) string {
	name, flags, ok := strings.Cut(f, "[")
	if !ok {
		return f // more:N
	}
	var typ, role string
	var filter, agg, search, rest []string
	for _, tok := range strings.Split(strings.TrimSuffix(flags, "]"), ",") {
		k, v, _ := strings.Cut(tok, "=")
		switch {
		case tok == "g=false":
			rest = append(rest, "not granted")
		case k == "t":
			typ = v
		case k == "role":
			role = v
		case tok == "eq":
			filter = append(filter, "eq")
		case k == "r":
			filter = append(filter, strings.Split(v, "|")...)
		case k == "a":
			agg = append(agg, strings.Split(v, "|")...)
		case tok == "lex":
			search = append(search, "lexical")
		case tok == "sem":
			search = append(search, "semantic")
		case tok != "declared":
			rest = append(rest, tok)
		}
	}
	parts := []string{firstOf(typ, "untyped")}
	for _, p := range []struct {
		key  string
		vals []string
	}{{"filter", filter}, {"agg", agg}, {"search", search}} {
		if len(p.vals) > 0 {
			parts = append(parts, p.key+"="+strings.Join(p.vals, ","))
		}
	}
	if role != "" {
		parts = append(parts, "role="+role)
	}
	return name + "(" + strings.Join(append(parts, rest...), "; ") + ")"
}

func firstOf(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// parenSchemaGrammar swaps in parenGrammar.
func parenSchemaGrammar() func(*Seams) {
	return tune(func(t *adapter.Tuning) { t.Grammar = parenGrammar{adapter.CompactGrammar{Ellipsis: t.Ellipsis}} })
}

// flatIndexRows lays the global index out as one streams[] list whose rows
// each carry their connector_key and granted_connections, instead of rows
// nested under connectors[] that inherit them: about three times the bytes
// per stream, and still an index.
func flatIndexRows() func(*Seams) {
	return onSchemaResult(func(scoped bool, r *result) {
		if scoped {
			return
		}
		sc := r.structured()
		doc, _ := sc["data"].(map[string]any)
		cs, ok := doc["connectors"].([]any)
		if !ok {
			return
		}
		var rows []any
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			list, _ := cm["streams"].([]any)
			for _, s := range list {
				sm, _ := s.(map[string]any)
				row := map[string]any{"name": sm["name"], "connector_key": cm["connector_key"]}
				if gc, own := sm["granted_connections"]; own {
					row["granted_connections"] = gc
				} else if gc, ok := cm["granted_connections"]; ok {
					row["granted_connections"] = gc
				}
				rows = append(rows, row)
			}
		}
		delete(doc, "connectors")
		doc["streams"] = rows
		r.setStructured(sc)
	})
}

// noneGrammar is the default grammar that also says "none" for each kind
// of capability a row offers nothing of: filter, aggregations, search.
type noneGrammar struct{ adapter.CompactGrammar }

func (g noneGrammar) Legend() (string, map[string]string) {
	line, keys := g.CompactGrammar.Legend()
	return line + "; filter=none, aggregations=none, search=none: the grant offers nothing of that kind for this stream", keys
}

func (g noneGrammar) Row(row map[string]any) []string {
	segs := g.CompactGrammar.Row(row)
	has := func(prefix string) bool {
		for _, s := range segs {
			if strings.HasPrefix(s, prefix) {
				return true
			}
		}
		return false
	}
	filters := false
	for _, s := range segs {
		if list, ok := strings.CutPrefix(s, "fields="); ok {
			filters = strings.Contains(list, ",eq") || strings.Contains(list, "[eq") || strings.Contains(list, "r=")
		}
	}
	if !filters {
		segs = append(segs, "filter=none")
	}
	if !has("aggregations=") {
		segs = append(segs, "aggregations=none")
	}
	if !has("search=") {
		segs = append(segs, "search=none")
	}
	return segs
}

// capabilitiesStatedNone swaps in noneGrammar.
func capabilitiesStatedNone() func(*Seams) {
	return tune(func(t *adapter.Tuning) { t.Grammar = noneGrammar{adapter.CompactGrammar{Ellipsis: t.Ellipsis}} })
}
