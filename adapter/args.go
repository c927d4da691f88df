package adapter

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/google/jsonschema-go/jsonschema"
	json "github.com/segmentio/encoding/json"
)

// An argSchema validates one tool's arguments against its advertised input
// schema, property by property, so a rejection can name the argument and
// say how to fix it. The SDK's own validation would answer with untyped
// prose; this answers with the adapter's typed error object.
type argSchema struct {
	props    map[string]*jsonschema.Resolved
	hints    map[string]string // property -> its description
	required []string
	closed   bool // additionalProperties: false
}

// compiledArgs holds each input schema's validator, keyed by the schema's
// text: an argSchema is read-only once built, and every adapter (mcpcheck
// opens hundreds) has the same six schemas.
var compiledArgs sync.Map

func compileArgs(schema string) (*argSchema, error) {
	if a, ok := compiledArgs.Load(schema); ok {
		return a.(*argSchema), nil
	}
	a, err := buildArgs(schema)
	if err != nil {
		return nil, err
	}
	compiledArgs.Store(schema, a)
	return a, nil
}

func buildArgs(schema string) (*argSchema, error) {
	var root jsonschema.Schema
	if err := json.Unmarshal([]byte(schema), &root); err != nil {
		return nil, err
	}
	a := &argSchema{props: map[string]*jsonschema.Resolved{}, hints: map[string]string{}, required: root.Required}
	a.closed = root.AdditionalProperties != nil && root.AdditionalProperties.Not != nil
	for name, p := range root.Properties {
		r, err := p.Resolve(nil)
		if err != nil {
			return nil, fmt.Errorf("property %s: %w", name, err)
		}
		a.props[name] = r
		a.hints[name] = p.Description
	}
	return a, nil
}

// plainNumbers tidies the validator's rationals and fixed-point numbers
// ("101/1", "100.000000") into plain integers.
var plainNumbers = regexp.MustCompile(`\b(\d+)(?:/1|\.0+)\b`)

// argHints say how to get an argument right, for arguments whose schema
// description does not already.
var argHints = map[string]string{
	"filter":       "filter is a typed object, never a query string: {field: value} for exact matches, {field: {gte|gt|lte|lt: value}} for ranges; filterable fields: schema(stream)",
	"expand_limit": "expand_limit is an object of positive integers, {relation: N}, for relations also named in expand",
	"expand":       "expand is an array of relation names that schema(stream) lists under expand",
	"limit":        "limit is an integer from 1 to 100; page with cursor for more",
	"fields":       "fields is an array of field names; see schema(stream)",
}

// check validates raw tool arguments.
func (a *argSchema) check(raw json.RawMessage) *toolError {
	args := map[string]any{}
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &args); err != nil {
			return &toolError{Code: "invalid_arguments", Message: "arguments must be a JSON object"}
		}
	}
	names := make([]string, 0, len(args))
	for k := range args {
		names = append(names, k)
	}
	sort.Strings(names)
	if a.closed {
		var unknown, shown []string
		for _, k := range names {
			if a.props[k] == nil {
				unknown, shown = append(unknown, k), append(shown, argName(k))
			}
		}
		if len(unknown) > 0 {
			known := make([]string, 0, len(a.props))
			for k := range a.props {
				known = append(known, k)
			}
			sort.Strings(known)
			return &toolError{Code: "unknown_argument", Param: unknown[0],
				Message: fmt.Sprintf("unknown argument(s) %s; this tool takes %s", strings.Join(shown, ", "), strings.Join(known, ", "))}
		}
	}
	for _, k := range a.required {
		if _, ok := args[k]; !ok {
			return &toolError{Code: "missing_argument", Param: k, Message: k + " is required"}
		}
	}
	for _, k := range names {
		r := a.props[k]
		if r == nil {
			continue
		}
		if err := r.Validate(args[k]); err != nil {
			detail := plainNumbers.ReplaceAllString(strings.TrimPrefix(err.Error(), "validating root: "), "$1")
			detail = oneLine.Replace(detail) // the validator quotes the caller's value raw
			hint := argHints[k]
			if hint == "" {
				hint = a.hints[k]
			}
			msg := k + ": " + detail
			if hint != "" {
				msg += "; " + hint
			}
			return &toolError{Code: argErrorCode(k), Param: k, Message: msg}
		}
	}
	return nil
}

var oneLine = strings.NewReplacer("\r", `\r`, "\n", `\n`)

// argName shows a caller's argument name as is, or quoted when it is empty
// or would break the one-line message.
func argName(k string) string {
	if k == "" || strings.ContainsFunc(k, func(r rune) bool { return !unicode.IsPrint(r) || r == ',' }) {
		return strconv.Quote(k)
	}
	return k
}

// argErrorCode is the typed code for a bad argument: the family codes the
// anchor uses where it has one, invalid_arguments otherwise.
func argErrorCode(param string) string {
	switch param {
	case "filter":
		return "invalid_filter"
	case "expand", "expand_limit":
		return "invalid_expand"
	}
	return "invalid_arguments"
}
