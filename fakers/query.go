package fakers

import (
	"fmt"
	"net/http"
	"net/url"
)

// CursorParam is the RS read contract's query parameter for a page cursor.
const CursorParam = "cursor"

// MaxQueryBytes bounds a request's query string. Longer ones, and ones
// url.ParseQuery refuses (a bad escape, more parameters than Go allows),
// get a typed 400: r.URL.Query() would drop them silently, and a read
// that lost its filters would go out unfiltered.
const MaxQueryBytes = 64 << 10

func parseQuery(r *http.Request) (url.Values, *apiError) {
	if n := len(r.URL.RawQuery); n > MaxQueryBytes {
		return nil, errf("invalid_request", "", fmt.Sprintf("the query string is %d bytes; this resource server reads at most %d", n, MaxQueryBytes))
	}
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, errf("invalid_request", "", "the query string cannot be parsed: "+err.Error())
	}
	return q, nil
}
