package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

func str(v any) string {
	switch t := v.(type) {
	case string:
		return t
	case nil:
		return ""
	case float64:
		return fmtNum(t)
	case bool:
		return strconv.FormatBool(t)
	case json.Number:
		return t.String()
	}
	return ""
}

func fmtNum(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func firstNonEmpty(s ...string) string {
	for _, x := range s {
		if x != "" {
			return x
		}
	}
	return ""
}

func hashToken(t string) string {
	h := sha256.Sum256([]byte(t))
	return hex.EncodeToString(h[:])
}

func toJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return "null"
	}
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// ---------- tool errors ----------

// ToolError is a typed, model-visible tool error.
type ToolError struct {
	Code    string
	Message string
	Fields  map[string]any // extra typed members (param, retry_with, available_connections, ...)
}

func (e *ToolError) Error() string { return e.Code + ": " + e.Message }

func newErr(code, msg string, kv ...any) *ToolError {
	e := &ToolError{Code: code, Message: msg, Fields: map[string]any{}}
	for i := 0; i+1 < len(kv); i += 2 {
		e.Fields[kv[i].(string)] = kv[i+1]
	}
	return e
}

func argErr(param, msg string) *ToolError {
	return newErr("invalid_argument", msg, "param", param)
}

// fromRS converts an RS error into a ToolError, keeping its typed members.
func fromRS(e *RSError) *ToolError {
	te := &ToolError{Code: e.Code(), Message: e.Message(), Fields: map[string]any{"http_status": e.Status}}
	for k, v := range e.Obj {
		if k == "code" || k == "message" {
			continue
		}
		te.Fields[k] = v
	}
	return te
}

// ---------- arguments ----------

type args map[string]any

func (a args) checkAllowed(allowed ...string) *ToolError {
	ok := map[string]bool{}
	for _, k := range allowed {
		ok[k] = true
	}
	var bad []string
	for k := range a {
		if !ok[k] {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	for _, b := range bad {
		if b == "connector_instance_id" {
			return newErr("invalid_argument", "connector_instance_id is not accepted here; pass the canonical connection_id instead.", "param", b, "retry_with", "connection_id")
		}
	}
	return newErr("invalid_argument", fmt.Sprintf("Unknown argument(s): %s. Allowed: %s.", strings.Join(bad, ", "), strings.Join(allowed, ", ")), "param", bad[0])
}

func (a args) str(k string) (string, *ToolError) {
	v, ok := a[k]
	if !ok || v == nil {
		return "", nil
	}
	switch t := v.(type) {
	case string:
		return strings.TrimSpace(t), nil
	case float64:
		return fmtNum(t), nil
	}
	return "", argErr(k, k+" must be a string")
}

func (a args) reqStr(k string) (string, *ToolError) {
	s, err := a.str(k)
	if err != nil {
		return "", err
	}
	if s == "" {
		return "", argErr(k, k+" is required")
	}
	return s, nil
}

// strList accepts an array of strings or a comma-separated string.
func (a args) strList(k string) ([]string, *ToolError) {
	v, ok := a[k]
	if !ok || v == nil {
		return nil, nil
	}
	var out []string
	switch t := v.(type) {
	case string:
		for _, p := range strings.Split(t, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	case []any:
		for _, x := range t {
			s, ok := x.(string)
			if !ok {
				return nil, argErr(k, k+" must be an array of strings")
			}
			if s = strings.TrimSpace(s); s != "" {
				out = append(out, s)
			}
		}
	default:
		return nil, argErr(k, k+" must be an array of strings")
	}
	return out, nil
}

func (a args) intv(k string, min, max int) (int, bool, *ToolError) {
	v, ok := a[k]
	if !ok || v == nil {
		return 0, false, nil
	}
	var n float64
	switch t := v.(type) {
	case float64:
		n = t
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(t), 64)
		if err != nil {
			return 0, false, argErr(k, k+" must be an integer")
		}
		n = f
	default:
		return 0, false, argErr(k, k+" must be an integer")
	}
	if n != math.Trunc(n) {
		return 0, false, argErr(k, k+" must be an integer")
	}
	if int(n) < min || int(n) > max {
		return 0, false, argErr(k, fmt.Sprintf("%s must be between %d and %d", k, min, max))
	}
	return int(n), true, nil
}

func (a args) obj(k string) (map[string]any, *ToolError) {
	v, ok := a[k]
	if !ok || v == nil {
		return nil, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, argErr(k, k+" must be an object")
	}
	return m, nil
}

func (a args) boolv(k string) (bool, *ToolError) {
	v, ok := a[k]
	if !ok || v == nil {
		return false, nil
	}
	switch t := v.(type) {
	case bool:
		return t, nil
	case string:
		switch strings.ToLower(t) {
		case "true", "yes", "1", "exact":
			return true, nil
		case "false", "no", "0", "none", "":
			return false, nil
		}
	}
	return false, argErr(k, k+" must be a boolean")
}

func scalarString(v any) (string, bool) {
	switch t := v.(type) {
	case string:
		return t, true
	case float64:
		return fmtNum(t), true
	case bool:
		return strconv.FormatBool(t), true
	}
	return "", false
}
