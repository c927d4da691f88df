package adapter

// What the adapter adds to an RS refusal so an agent can act on it: the
// argument at fault where the RS names none, and what the grant can do
// instead where the RS refuses an argument for every read of this grant.

import (
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/adapter/rsclient"
)

// A hintedError is an RS error with keys the adapter adds to its rendered
// object; the RS's own keys always win.
type hintedError struct {
	err   error
	extra map[string]any
}

func (e *hintedError) Error() string { return e.err.Error() }
func (e *hintedError) Unwrap() error { return e.err }

// grantLimits is what a grant that refuses one argument outright can do
// instead (the real RS refuses filter and expand on every client-token
// read: "not supported for client-token reads").
var grantLimits = map[string]string{
	"filter": "this grant cannot filter. Retry without filter: narrow with fields, order with sort or order (the cursor field), page with cursor; " +
		"find records by their text with search(q, streams); count with aggregate without filter",
	"expand": "this grant cannot expand relations. Retry without expand, and read the related stream with query_records, search or fetch",
}

// explainRSError adds, to a 4xx RS error for a read of path with query q,
// the argument at fault when the RS named none, and the grant's
// alternatives when it refused filter or expand for this grant.
func explainRSError(err error, path string, q url.Values) error {
	var re *rsclient.Error
	if !errors.As(err, &re) || re.HTTPStatus < 400 || re.HTTPStatus >= 500 {
		return err
	}
	extra := map[string]any{}
	param := re.Param
	if param == "" {
		if param = faultyParam(re, path, q); param != "" {
			extra["param"] = param
		}
	}
	if limit, ok := grantLimits[strings.TrimSuffix(param, "_limit")]; ok && re.Code == "invalid_request" && sentParam(q, param) {
		extra["grant_limit"] = strings.TrimSuffix(param, "_limit")
		extra["next_step"] = limit
	}
	if len(extra) == 0 {
		return err
	}
	return &hintedError{err: err, extra: extra}
}

// faultyParam names, for an RS error without param, the tool argument that
// holds a field its message names: the real RS sends unknown_field,
// field_not_text and "Aggregation max is not declared for 'x'" without one.
func faultyParam(re *rsclient.Error, path string, q url.Values) string {
	window := strings.HasSuffix(path, "/field-window")
	if window && (re.Code == "field_not_text" || re.Code == "field_not_found") {
		return "field_path"
	}
	_, named, _ := strings.Cut(re.Message, ":")
	names := strings.FieldsFunc(named, func(r rune) bool { return r == ',' || r == ' ' || r == '\'' || r == '"' || r == '`' })
	for i, part := range strings.Split(re.Message, "'") {
		if i%2 == 1 {
			names = append(names, part)
		}
	}
	for _, n := range names {
		switch {
		case n == "":
		case slices.Contains(q["fields"], n):
			return "fields"
		case q.Get("field") == n && window:
			return "field_path"
		case q.Get("field") == n:
			return "field"
		case q.Get("group_by") == n:
			return "group_by"
		case q.Get("group_by_time") == n:
			return "group_by_time"
		case sentParam(q, "filter["+n+"]"):
			return "filter"
		}
	}
	return ""
}

// sentParam reports whether q holds param or one of its bracketed forms.
func sentParam(q url.Values, param string) bool {
	for k := range q {
		if k == param || strings.HasPrefix(k, param+"[") {
			return true
		}
	}
	return false
}
