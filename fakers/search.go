package fakers

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"unicode"
)

var searchParams = map[string]bool{"q": true, "limit": true, "cursor": true, "streams": true, "streams[]": true, "filter": true,
	"connection_id": true, "connector_instance_id": true}

// semanticRejected are named by the implementation's explicit reject list
// on /v1/search/semantic (docs/RS-CONTRACT.md §10.2).
var semanticRejected = map[string]bool{"vector": true, "embedding": true, "embed": true, "model": true, "model_id": true, "model_family": true,
	"rank": true, "boost": true, "weights": true, "blend": true, "connector_id": true, "fields": true, "expand": true, "expand_limit": true,
	"order": true, "sort": true, "mode": true}

// semanticApproximation is stated in every semantic and hybrid answer: the
// fixture has no embedding model, and says so.
var semanticApproximation = map[string]any{"kind": "fixture_token_overlap",
	"note": "deterministic stand-in for embedding search: distance is 1 minus the share of query words found in the record's semantic fields"}

// semantic reports whether the semantic and hybrid routes are mounted: only
// when some stream declares a semantic field, as on an RS with an embedding
// backend. Otherwise they fall through to the framework 404 (docs/RS-CONTRACT.md §1.4).
func (f Fixture) semantic() bool {
	for _, s := range f.Streams {
		for _, fd := range s.Fields {
			if fd.Semantic {
				return true
			}
		}
	}
	return false
}

// A searchQuery is a validated search request.
type searchQuery struct {
	q        string
	terms    []string
	streams  []string
	conn     string
	limit    int
	warnings []any
	filters  []filter
}

// parseSearch validates what every search route shares (docs/RS-CONTRACT.md §10.1).
func parseSearch(r *request, allowed map[string]bool) (*searchQuery, *apiError) {
	if e := rejectClientQueries(r); e != nil {
		return nil, e
	}
	for _, k := range sortedKeys(r.q) {
		if !allowed[k] && !(allowed["filter"] && topKey(k) == "filter") {
			return nil, errf("invalid_request", k, "Unsupported query parameter: "+k)
		}
	}
	sq := &searchQuery{q: strings.TrimSpace(r.q.Get("q")), conn: connectionParam(r)}
	if sq.q == "" {
		return nil, errf("invalid_request", "q", "q is required")
	}
	sq.terms = words(sq.q)
	sq.streams = append(append([]string(nil), r.q["streams"]...), r.q["streams[]"]...)
	for _, w := range sq.streams {
		if r.client() && r.grantStream(w) == nil {
			return nil, errf("grant_stream_not_allowed", "streams", "Stream '"+w+"' is not in the grant").asReference("", "Stream '"+w+"' not in grant")
		}
	}
	if len(filterFieldNames(r)) > 0 || r.q.Has("filter") {
		if len(sq.streams) != 1 {
			return nil, errf("invalid_request", "streams", "filter[...] requires exactly one streams value")
		}
		var e *apiError
		if sq.filters, e = parseFilters(r, sq.streams[0]); e != nil {
			return nil, e
		}
	}
	if sq.conn != "" && r.client() && !grantedConnection(r, sq.conn) {
		return nil, errf("connection_not_found", "connection_id", "connection_id '"+sq.conn+"' is not addressable under this grant.")
	}
	sq.limit, sq.warnings = pageLimit(r.q.Get("limit"), "hits")
	return sq, nil
}

// A cand is a ranked search candidate. Its hit object is built only when
// a page serves it: a broad term matches many records, a page shows few.
type cand struct {
	score float64
	build func() map[string]any
}

// candidates walks the searchable (stream, connection) slices in fixture
// order and calls match on every record that passes the filters; it returns
// each connection's candidates, ranked (lower score first), and the
// connection order.
func (sq *searchQuery) candidates(r *request, match func(slice, Record, []string) *cand) (map[string][]cand, []string) {
	perConn := map[string][]cand{}
	var order []string
	seen := map[string]bool{}
	for _, s := range r.fx.Streams {
		if seen[s.Name] || (len(sq.streams) > 0 && !slices.Contains(sq.streams, s.Name)) {
			continue
		}
		seen[s.Name] = true
		var granted []string
		if r.client() {
			gs := r.grantStream(s.Name)
			if gs == nil { // a connector-bound token: another connector's stream
				continue
			}
			granted = gs.Fields
		}
		for _, x := range r.slices(s.Name, sq.conn) {
			if !slices.Contains(order, x.conn.ID) {
				order = append(order, x.conn.ID)
			}
			for _, rec := range filterRecords(r.rs.sortedRecords(x.s, x.conn.ID, "desc"), sq.filters) {
				c := match(x, rec, granted)
				if c == nil {
					continue
				}
				if !r.client() {
					build, key := c.build, x.key
					c.build = func() map[string]any {
						hit := build()
						hit["record_url"] = hit["record_url"].(string) + "?connector_id=" + key
						return hit
					}
				}
				perConn[x.conn.ID] = append(perConn[x.conn.ID], *c)
			}
		}
	}
	for _, cs := range perConn {
		sort.SliceStable(cs, func(i, j int) bool { return cs[i].score < cs[j].score })
	}
	return perConn, order
}

// roundRobin merges each connection's ranked list, one candidate per
// connection per round (docs/RS-CONTRACT.md §10.1).
func roundRobin(perConn map[string][]cand, order []string) []cand {
	var merged []cand
	for i := 0; ; i++ {
		added := false
		for _, c := range order {
			if i < len(perConn[c]) {
				merged, added = append(merged, perConn[c][i]), true
			}
		}
		if !added {
			return merged
		}
	}
}

// hitsOf builds the hit objects of the candidates a page serves.
func hitsOf(cs []cand) []any {
	out := make([]any, len(cs))
	for i, c := range cs {
		out[i] = c.build()
	}
	return out
}

// search is lexical search: every query word must occur in one granted
// lexical field. The bm25-like score is minus the number of occurrences, so
// lower is better, as with SQLite FTS5.
func (rs *RS) search(r *request) (int, any) {
	return rs.cached(r, rs.lexicalSearch)
}

func (rs *RS) lexicalSearch(r *request) (int, any) {
	sq, e := parseSearch(r, searchParams)
	if e != nil {
		return 0, e
	}
	merged := roundRobin(sq.candidates(r, func(x slice, rec Record, granted []string) *cand {
		return r.rs.lexicalHit(x, rec, sq.terms, granted)
	}))
	pg, e := pageOf(r, sq, merged, "lex", "")
	if e != nil {
		return 0, e
	}
	body := map[string]any{"object": "list", "url": "/v1/search", "has_more": pg.more, "data": pg.hits,
		"meta": map[string]any{"count": len(merged), "count_accuracy": "exact", "warnings": nonNil(sq.warnings),
			"recall": map[string]any{"complete": true, "ranking_scope": "all_matches", "truncated": false, "ranked_candidate_count": len(merged),
				"sources_searched_count": len(r.sourcesSearched(sq))}}}
	if pg.more {
		body["next_cursor"] = pg.next
	}
	return http.StatusOK, body
}

// semanticSearch is the fixture's honest approximation of embedding search.
func (rs *RS) semanticSearch(r *request) (int, any) {
	for k := range r.q {
		if semanticRejected[topKey(k)] {
			return 0, errf("invalid_request", topKey(k), "Parameter '"+topKey(k)+"' is not supported on /v1/search/semantic")
		}
	}
	sq, e := parseSearch(r, searchParams)
	if e != nil {
		return 0, e
	}
	merged := roundRobin(sq.candidates(r, func(x slice, rec Record, granted []string) *cand {
		return semanticHit(x, rec, sq.terms, granted)
	}))
	pg, e := pageOf(r, sq, merged, "sem", "sem1.")
	if e != nil {
		return 0, e
	}
	body := map[string]any{"object": "list", "url": "/v1/search/semantic", "has_more": pg.more, "data": pg.hits,
		"meta": map[string]any{"warnings": nonNil(sq.warnings), "approximation": semanticApproximation}}
	if pg.more {
		body["next_cursor"] = pg.next
	}
	return http.StatusOK, body
}

var hybridParams = map[string]bool{"q": true, "limit": true, "streams": true, "streams[]": true, "filter": true, "connection_id": true, "connector_instance_id": true}

// hybridSearch fuses the lexical and semantic rankings by reciprocal rank.
// It has no cursor paging, as in the implementation (docs/RS-CONTRACT.md §10.3).
func (rs *RS) hybridSearch(r *request) (int, any) {
	if r.q.Has("cursor") {
		return 0, errf("invalid_request", "cursor", "cursor pagination is not supported on /v1/search/hybrid")
	}
	sq, e := parseSearch(r, hybridParams)
	if e != nil {
		return 0, e
	}
	lex := hitsOf(roundRobin(sq.candidates(r, func(x slice, rec Record, granted []string) *cand {
		return r.rs.lexicalHit(x, rec, sq.terms, granted)
	})))
	sem := hitsOf(roundRobin(sq.candidates(r, func(x slice, rec Record, granted []string) *cand {
		return semanticHit(x, rec, sq.terms, granted)
	})))
	type fused struct {
		hit    map[string]any
		rrf    float64
		first  int
		scores map[string]any
		from   []string
	}
	by := map[string]*fused{}
	var keys []string
	add := func(list []any, source string) {
		for rank, h := range list {
			hit := h.(map[string]any)
			k := fmt.Sprint(hit["connector_id"], "\x00", hit["stream"], "\x00", hit["record_key"])
			f, ok := by[k]
			if !ok {
				f = &fused{hit: hit, first: len(keys), scores: map[string]any{}}
				by[k] = f
				keys = append(keys, k)
			}
			f.rrf += 1 / float64(60+rank+1)
			f.scores[source] = hit["score"]
			f.from = append(f.from, source)
		}
	}
	add(lex, "lexical")
	add(sem, "semantic")
	sort.SliceStable(keys, func(i, j int) bool { return by[keys[i]].rrf > by[keys[j]].rrf })
	var data []any
	for _, k := range keys[:min(sq.limit, len(keys))] {
		f := by[k]
		hit := map[string]any{}
		for hk, hv := range f.hit {
			if hk != "score" && hk != "retrieval_mode" && hk != "evidence_excerpts" {
				hit[hk] = hv
			}
		}
		hit["retrieval_mode"], hit["retrieval_sources"], hit["scores"] = "hybrid", f.from, f.scores
		data = append(data, hit)
	}
	return http.StatusOK, map[string]any{"object": "list", "url": "/v1/search/hybrid", "has_more": len(keys) > sq.limit, "data": nonNil(data),
		"meta": map[string]any{"warnings": nonNil(sq.warnings), "approximation": semanticApproximation}}
}

// sourcesSearched are the connections a search covered.
func (r *request) sourcesSearched(sq *searchQuery) []string {
	var out []string
	for _, gs := range r.fx.Streams {
		if len(sq.streams) > 0 && !slices.Contains(sq.streams, gs.Name) {
			continue
		}
		for _, x := range r.slices(gs.Name, sq.conn) {
			if !slices.Contains(out, x.conn.ID) {
				out = append(out, x.conn.ID)
			}
		}
	}
	return out
}

// words splits text into lower-case words.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}
