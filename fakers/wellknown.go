package fakers

import (
	"net/http"
)

// protectedResource is GET /.well-known/oauth-protected-resource (docs/RS-CONTRACT.md §13.1).
func (rs *RS) protectedResource(r *request) (int, any) {
	origin := "http://" + r.Host
	doc := map[string]any{
		"resource": origin, "resource_name": "PDPP Fixture Resource Server", "authorization_servers": []string{origin},
		"bearer_methods_supported": []string{"header"}, "pdpp_core_query_base": origin + "/v1",
		"pdpp_provider_connect_version": "draft-2026-04-16", "pdpp_self_export_supported": true,
		"pdpp_token_kinds_supported": []string{"owner", "client"},
		"pdpp_discovery_hints": map[string]any{"schema_endpoint": "/v1/schema", "query_base": "/v1", "streams_endpoint_template": "/v1/streams/{stream}",
			"aggregate": map[string]any{"endpoint_template": "/v1/streams/{stream}/aggregate"}, "changes_since_bootstrap": "beginning",
			"blob_indirection": "data.blob_ref.fetch_url", "search": map[string]any{"endpoint": "/v1/search", "scope_param": "streams[]", "filter_requires_single_stream": true}},
		"capabilities": map[string]any{"lexical_retrieval": map[string]any{"supported": true, "endpoint": "/v1/search", "cursor_supported": true,
			"count_supported": false, "cross_stream": true, "snippets": true, "default_limit": 25, "max_limit": 100,
			"score": map[string]any{"supported": true, "kind": "bm25", "order": "lower_is_better", "value_semantics": "implementation_relative"}}},
	}
	if r.fx.semantic() {
		caps := doc["capabilities"].(map[string]any)
		caps["semantic_retrieval"] = map[string]any{"supported": true, "endpoint": "/v1/search/semantic", "cursor_supported": true, "count_supported": false,
			"cross_stream": true, "snippets": true, "default_limit": 25, "max_limit": 100, "model": "fixture-token-overlap", "dimensions": 0,
			"distance_metric": "token_overlap", "index_state": "built", "lexical_blending": false, "query_input": "text", "stability": "experimental",
			"approximation": semanticApproximation, "score": map[string]any{"supported": true, "kind": "semantic_distance", "order": "lower_is_better"}}
		caps["hybrid_retrieval"] = map[string]any{"supported": true, "endpoint": "/v1/search/hybrid", "cursor_supported": false, "count_supported": false,
			"cross_stream": true, "default_limit": 25, "max_limit": 100, "sources": []string{"lexical", "semantic"}, "stability": "experimental",
			"approximation": semanticApproximation}
		doc["pdpp_discovery_hints"].(map[string]any)["hybrid_pagination_supported"] = false
	}
	return http.StatusOK, doc
}
