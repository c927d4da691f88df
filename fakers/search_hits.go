package fakers

import (
	"math"
	"slices"
	"strings"
)

// baseHit is what lexical and semantic hits share.
func baseHit(x slice, rec Record, matched []string) map[string]any {
	hit := map[string]any{"object": "search_result", "stream": x.s.Name, "record_key": rec.ID, "connector_id": x.key,
		"connection_id": x.conn.ID, "connector_instance_id": x.conn.ID, "emitted_at": rec.EmittedAt, "matched_fields": matched,
		"record_url": "/v1/streams/" + x.s.Name + "/records/" + rec.ID}
	if x.conn.DisplayName != "" {
		hit["display_name"] = x.conn.DisplayName
	}
	for _, k := range []string{"sent_at", "sentAt", "authored_at", "authoredAt", "created_at", "createdAt", "source_created_at", "sourceCreatedAt",
		"occurred_at", "occurredAt", "updated_at", "updatedAt"} {
		if v, ok := rec.Data[k].(string); ok {
			hit["authored_at"] = v
			break
		}
	}
	return hit
}

// lexicalHit returns a candidate when every term occurs in one granted
// lexical field. A match on a metadata-role field proves no body text, so
// such a hit carries no snippet and no evidence.
func (rs *RS) lexicalHit(x slice, rec Record, terms []string, granted []string) *cand {
	if len(terms) == 0 {
		return nil
	}
	var matched []string
	var snippetField, snippetText, snippetLow string
	occurrences := 0
	for _, f := range x.s.Fields {
		if !f.Lexical || (granted != nil && !slices.Contains(granted, f.Name)) {
			continue
		}
		text, _ := rec.Data[f.Name].(string)
		if text == "" {
			continue
		}
		low := rs.lowered(x.s, rec, f.Name, text)
		all := true
		for _, t := range terms {
			n := strings.Count(low, t)
			all = all && n > 0
			occurrences += n
		}
		if !all {
			continue
		}
		matched = append(matched, f.Name)
		if snippetField == "" && f.Role != "metadata" {
			snippetField, snippetText, snippetLow = f.Name, text, low
		}
	}
	if len(matched) == 0 {
		return nil
	}
	score := -float64(occurrences)
	return &cand{score: score, build: func() map[string]any {
		hit := baseHit(x, rec, matched)
		hit["score"] = map[string]any{"kind": "bm25", "value": score, "order": "lower_is_better"}
		if snippetField != "" {
			snippet := markSnippet(snippetText, snippetLow, terms)
			hit["snippet"] = map[string]any{"field": snippetField, "text": snippet}
			hit["evidence_excerpts"] = []any{map[string]any{"object": "evidence_excerpt", "field_path": snippetField, "provenance": "lexical_match",
				"preview_text": snippet, "truncated": true, "read": map[string]any{"object": "field_window_read", "method": "GET",
					"route": "/v1/streams/" + x.s.Name + "/records/" + rec.ID + "/field-window", "stream": x.s.Name, "record_id": rec.ID,
					"field": snippetField, "connection_id": x.conn.ID}}}
		}
		return hit
	}}
}

// lowered is a field's text in lower case, cached until the next Update.
func (rs *RS) lowered(s *Stream, rec Record, field, text string) string {
	key := fieldKey{recordKey{s.Connector, s.Name, rec.ConnectionID, rec.ID}, field}
	if v, ok := rs.lowerCache.Load(key); ok {
		return v.(string)
	}
	low := strings.ToLower(text)
	rs.lowerCache.Store(key, low)
	return low
}

type fieldKey struct {
	rec   recordKey
	field string
}

// semanticHit scores a record by the share of query words found in its
// granted semantic fields; records sharing no word are not hits.
func semanticHit(x slice, rec Record, terms []string, granted []string) *cand {
	if len(terms) == 0 {
		return nil
	}
	var matched []string
	found := map[string]bool{}
	var snippet map[string]any
	for _, f := range x.s.Fields {
		if !f.Semantic || (granted != nil && !slices.Contains(granted, f.Name)) {
			continue
		}
		text, _ := rec.Data[f.Name].(string)
		have := map[string]bool{}
		for _, w := range words(text) {
			have[w] = true
		}
		hit := false
		for _, t := range terms {
			if have[t] {
				found[t], hit = true, true
			}
		}
		if hit {
			matched = append(matched, f.Name)
			if snippet == nil {
				snippet = map[string]any{"field": f.Name, "text": leadWords(text, 48)}
			}
		}
	}
	if len(matched) == 0 {
		return nil
	}
	distance := math.Round((1-float64(len(found))/float64(len(terms)))*1e4) / 1e4
	return &cand{score: distance, build: func() map[string]any {
		hit := baseHit(x, rec, matched)
		hit["retrieval_mode"], hit["snippet"] = "semantic", snippet
		hit["score"] = map[string]any{"kind": "semantic_distance", "value": distance, "order": "lower_is_better"}
		return hit
	}}
}
