package fakers

import (
	"maps"
	"net/url"
	"slices"
	"sort"
	"strings"
)

// topKey is a query key's top-level name after qs-style bracket parsing.
func topKey(k string) string {
	if i := strings.IndexByte(k, '['); i > 0 {
		return k[:i]
	}
	return k
}

// unsupportedParams lists the query keys whose top-level name is not allowed.
func unsupportedParams(r *request, allowed map[string]bool) *apiError {
	var unknown []string
	for k := range r.q {
		if !allowed[topKey(k)] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	sort.Strings(unknown)
	return errf("invalid_request", "", "Unsupported query parameter: "+strings.Join(unknown, ", "))
}

// rejectClientQueries enforces docs/RS-CONTRACT.md §2.4 unless the fixture reads as the spec.
func rejectClientQueries(r *request) *apiError {
	if !r.client() || r.fx.specReads() {
		return nil
	}
	for k := range r.q {
		if t := topKey(k); t == "filter" || t == "expand" || t == "expand_limit" {
			e := errf("invalid_request", t, t+"[...] is not supported for client-token reads in PDPP v0.1")
			if t == "expand" { // the reference RS's own spelling
				e.asReference(t, "expand[] is not supported for client-token reads in PDPP v0.1")
			}
			return e
		}
	}
	return nil
}

// connectionParam is connection_id, or its deprecated alias.
func connectionParam(r *request) string {
	if c := r.q.Get("connection_id"); c != "" {
		return c
	}
	return r.q.Get("connector_instance_id")
}

// sortedKeys are the query's keys in sorted order.
func sortedKeys(q url.Values) []string {
	return slices.Sorted(maps.Keys(q))
}
