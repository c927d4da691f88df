package adapter

// How tool arguments become RS query parameters: typed filters, expand
// and its limits, stream paths, and cursors that resume inside a page.

import (
	"math"
	"net/url"
	"strconv"
	"strings"

	json "github.com/segmentio/encoding/json"
)

func streamPath(stream string, rest ...string) (string, error) {
	if err := checkSegment(stream); err != "" || stream == "" {
		return "", &toolError{Code: "invalid_stream", Param: "stream", Message: "stream must be a plain stream name"}
	}
	p := "/v1/streams/" + url.PathEscape(stream)
	for _, r := range rest {
		p += "/" + r
	}
	return p, nil
}

// A skip cursor resumes inside an RS page whose visible text showed only
// its first items: the page's own RS cursor plus how many were shown, so
// content[] alone reaches every item of the page.
const skipCursorPrefix = "skip~"

// maxSkip bounds a skip cursor's count: an RS page holds up to 100 records,
// and a fanned-in one up to 100 per connection.
const maxSkip = 100 * 100

func skipCursor(n int, rsCursor string) string {
	return skipCursorPrefix + strconv.Itoa(n) + "~" + rsCursor
}

func parseSkipCursor(c string) (int, string, error) {
	rest, ok := strings.CutPrefix(c, skipCursorPrefix)
	if !ok {
		return 0, c, nil
	}
	num, rs, ok := strings.Cut(rest, "~")
	n, err := strconv.Atoi(num)
	if !ok || err != nil || n < 1 || n > maxSkip {
		return 0, "", &toolError{Code: "invalid_arguments", Param: "cursor", Message: "cursor is malformed; pass a cursor exactly as shown"}
	}
	return n, rs, nil
}

func setIf(q url.Values, k, v string) {
	if v != "" {
		q.Set(k, v)
	}
}

// encodeFilter turns a typed object filter into filter[f]=v and
// filter[f][op]=v. It never forwards a bare filter=.
func encodeFilter(q url.Values, raw json.RawMessage) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	bad := func(msg string) error {
		return &toolError{Code: "invalid_filter", Param: "filter", Message: msg + "; " + argHints["filter"]}
	}
	var filter map[string]json.RawMessage
	if err := json.Unmarshal(raw, &filter); err != nil {
		return bad("filter must be an object")
	}
	if len(filter) == 0 {
		return bad("filter is an empty object")
	}
	for field, raw := range filter {
		if field == "" || strings.ContainsAny(field, "[]&=") {
			return bad("filter key " + strconv.Quote(field) + " must be a plain field name")
		}
		var ops map[string]json.RawMessage
		if json.Unmarshal(raw, &ops) == nil && ops != nil {
			if len(ops) == 0 {
				return bad("range for " + field + " is empty")
			}
			for op, v := range ops {
				switch op {
				case "gte", "gt", "lte", "lt":
				default:
					return bad("unknown range operator " + strconv.Quote(op))
				}
				s, err := scalarString(v)
				if err != nil {
					return bad(field + "." + op + ": " + err.Error())
				}
				q.Set("filter["+field+"]["+op+"]", s)
			}
			continue
		}
		s, err := scalarString(raw)
		if err != nil {
			return bad(field + ": " + err.Error())
		}
		q.Set("filter["+field+"]", s)
	}
	return nil
}

func scalarString(raw json.RawMessage) (string, error) {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	switch t := v.(type) {
	case string:
		return t, nil
	case bool:
		return strconv.FormatBool(t), nil
	case float64:
		return strings.TrimSpace(string(raw)), nil
	}
	return "", &toolError{Code: "invalid_filter", Message: "value must be a string, number or boolean"}
}

func encodeExpand(q url.Values, expand []string, rawLimits json.RawMessage) error {
	for _, rel := range expand {
		if rel == "" || strings.ContainsAny(rel, "[]&=") {
			return &toolError{Code: "invalid_expand", Param: "expand", Message: "expand relation " + strconv.Quote(rel) + " must be a plain name"}
		}
		q.Add("expand", rel)
	}
	if len(rawLimits) == 0 || string(rawLimits) == "null" {
		return nil
	}
	var limits map[string]float64 // the schema's integers include 1.0
	if err := json.Unmarshal(rawLimits, &limits); err != nil {
		return &toolError{Code: "invalid_expand", Param: "expand_limit", Message: "expand_limit must be an object; " + argHints["expand_limit"]}
	}
	if len(limits) == 0 {
		return &toolError{Code: "invalid_expand", Param: "expand_limit", Message: "expand_limit is an empty object; " + argHints["expand_limit"]}
	}
	for rel, n := range limits {
		if rel == "" || strings.ContainsAny(rel, "[]&=") {
			return &toolError{Code: "invalid_expand", Param: "expand_limit", Message: "expand_limit key " + strconv.Quote(rel) + " must be a plain relation name"}
		}
		if n != math.Trunc(n) || math.Abs(n) > math.MaxInt32 {
			return &toolError{Code: "invalid_expand", Param: "expand_limit", Message: "expand_limit[" + rel + "] must be an integer; " + argHints["expand_limit"]}
		}
		q.Set("expand_limit["+rel+"]", strconv.Itoa(int(n)))
	}
	return nil
}
