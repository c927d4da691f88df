package fakers

import (
	"slices"
	"strings"
)

// fieldsParam reads repeated and comma-separated fields.
func fieldsParam(r *request) ([]string, *apiError) {
	vals, present := r.q["fields"]
	if !present {
		return nil, nil
	}
	var fields []string
	for _, v := range vals {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f != "" {
				fields = append(fields, f)
			}
		}
	}
	if len(fields) == 0 {
		return nil, errf("invalid_request", "fields", "fields must not be empty").asReference("", "fields must be a comma-separated list of field names")
	}
	return fields, nil
}

// fieldsGranted rejects fields outside a client grant with 403.
func fieldsGranted(r *request, stream string, fields []string) *apiError {
	var out []string
	for _, f := range fields {
		if !r.grantedField(stream, f) {
			out = append(out, f)
		}
	}
	if len(out) > 0 {
		return errf("field_not_granted", "fields", "Fields not in grant: "+strings.Join(out, ", "))
	}
	return nil
}

// grantedField reports whether the bearer may read a field of a stream.
func (r *request) grantedField(stream, field string) bool {
	if !r.client() {
		return true
	}
	gs := r.grantStream(stream)
	return gs != nil && slices.Contains(gs.Fields, field)
}

// declaredField finds a field among the streams of that name; two
// connectors may declare the same stream name with different fields.
func (f *Fixture) declaredField(stream, field string) *Field {
	for _, s := range f.StreamsNamed(stream) {
		if fd := s.Field(field); fd != nil {
			return fd
		}
	}
	return nil
}

// projectTop applies a fields projection to a record without data (a
// tombstone): the implementation projects its top-level keys (docs/RS-CONTRACT.md §3).
func projectTop(m map[string]any, fields []string) map[string]any {
	if fields == nil {
		return m
	}
	out := map[string]any{}
	for _, f := range fields {
		if v, ok := m[f]; ok {
			out[f] = v
		}
	}
	return out
}
