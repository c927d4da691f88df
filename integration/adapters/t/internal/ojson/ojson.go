// Package ojson decodes JSON while preserving object key order, so record
// payloads and schema documents are rendered in the order the resource
// server sent them.
package ojson

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// Object is a JSON object with its key order preserved.
type Object struct {
	Keys []string
	M    map[string]any
}

// NewObject returns an empty object.
func NewObject() *Object { return &Object{M: map[string]any{}} }

// Set sets key to v, appending the key when new.
func (o *Object) Set(k string, v any) {
	if o.M == nil {
		o.M = map[string]any{}
	}
	if _, ok := o.M[k]; !ok {
		o.Keys = append(o.Keys, k)
	}
	o.M[k] = v
}

// Get returns the value under k.
func (o *Object) Get(k string) (any, bool) {
	if o == nil {
		return nil, false
	}
	v, ok := o.M[k]
	return v, ok
}

// Has reports whether k is present.
func (o *Object) Has(k string) bool { _, ok := o.Get(k); return ok }

// Delete removes k.
func (o *Object) Delete(k string) {
	if o == nil {
		return
	}
	if _, ok := o.M[k]; !ok {
		return
	}
	delete(o.M, k)
	for i, kk := range o.Keys {
		if kk == k {
			o.Keys = append(o.Keys[:i:i], o.Keys[i+1:]...)
			break
		}
	}
}

// Len returns the number of keys.
func (o *Object) Len() int {
	if o == nil {
		return 0
	}
	return len(o.Keys)
}

// Str returns the string under k ("" when absent or not a string).
func (o *Object) Str(k string) string {
	v, _ := o.Get(k)
	s, _ := v.(string)
	return s
}

// Obj returns the object under k or nil.
func (o *Object) Obj(k string) *Object {
	v, _ := o.Get(k)
	x, _ := v.(*Object)
	return x
}

// Arr returns the array under k or nil.
func (o *Object) Arr(k string) []any {
	v, _ := o.Get(k)
	x, _ := v.([]any)
	return x
}

// Bool returns the boolean under k.
func (o *Object) Bool(k string) (bool, bool) {
	v, _ := o.Get(k)
	b, ok := v.(bool)
	return b, ok
}

// Int returns the integer under k.
func (o *Object) Int(k string) (int64, bool) {
	v, _ := o.Get(k)
	return AsInt(v)
}

// Clone returns a shallow copy.
func (o *Object) Clone() *Object {
	if o == nil {
		return nil
	}
	c := &Object{Keys: append([]string(nil), o.Keys...), M: make(map[string]any, len(o.M))}
	for k, v := range o.M {
		c.M[k] = v
	}
	return c
}

// MarshalJSON writes the object with its keys in order.
func (o *Object) MarshalJSON() ([]byte, error) {
	if o == nil {
		return []byte("null"), nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.Keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		vb, err := Marshal(o.M[k])
		if err != nil {
			return nil, err
		}
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// Marshal encodes v as compact JSON without HTML escaping.
func Marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	out := b.Bytes()
	return bytes.TrimRight(out, "\n"), nil
}

// MustString encodes v as compact JSON, falling back to fmt on error.
func MustString(v any) string {
	b, err := Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// Decode parses data into ordered values: *Object, []any, string,
// json.Number, bool or nil.
func Decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	v, err := decodeValue(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("trailing data after JSON value")
	}
	return v, nil
}

// DecodeObject parses data and requires a JSON object.
func DecodeObject(data []byte) (*Object, error) {
	v, err := Decode(data)
	if err != nil {
		return nil, err
	}
	o, ok := v.(*Object)
	if !ok {
		return nil, fmt.Errorf("expected a JSON object")
	}
	return o, nil
}

func decodeValue(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := NewObject()
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				k, ok := kt.(string)
				if !ok {
					return nil, fmt.Errorf("object key is not a string")
				}
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				o.Set(k, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return o, nil
		case '[':
			arr := []any{}
			for dec.More() {
				v, err := decodeValue(dec)
				if err != nil {
					return nil, err
				}
				arr = append(arr, v)
			}
			if _, err := dec.Token(); err != nil {
				return nil, err
			}
			return arr, nil
		}
		return nil, fmt.Errorf("unexpected delimiter %v", t)
	default:
		return t, nil
	}
}

// AsInt converts a decoded number to int64.
func AsInt(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return i, true
		}
		if f, err := n.Float64(); err == nil {
			return int64(f), true
		}
	case float64:
		return int64(n), true
	case int:
		return int64(n), true
	case int64:
		return n, true
	}
	return 0, false
}

// Strings returns the string members of an array value.
func Strings(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, x := range arr {
		if s, ok := x.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// ToPlain converts ordered values into plain map[string]any values (key
// order is lost; JSON encoding then sorts keys).
func ToPlain(v any) any {
	switch x := v.(type) {
	case *Object:
		m := make(map[string]any, len(x.Keys))
		for _, k := range x.Keys {
			m[k] = ToPlain(x.M[k])
		}
		return m
	case []any:
		out := make([]any, len(x))
		for i := range x {
			out[i] = ToPlain(x[i])
		}
		return out
	}
	return v
}

// FromPlain wraps a plain map into an *Object with sorted keys.
func FromPlain(m map[string]any) *Object {
	o := NewObject()
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		o.Set(k, m[k])
	}
	return o
}

// ScalarString renders a scalar for a query string.
func ScalarString(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case json.Number:
		return x.String(), true
	case bool:
		return strconv.FormatBool(x), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case int:
		return strconv.Itoa(x), true
	case int64:
		return strconv.FormatInt(x, 10), true
	}
	return "", false
}
