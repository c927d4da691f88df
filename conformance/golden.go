package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"net/url"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// volatileKeys differ between SDK versions or runs and say nothing about the
// adapter's surface (go-sdk >= 1.7 adds ttlMs/cacheScope to every list).
var volatileKeys = map[string]bool{"ttlMs": true, "cacheScope": true, "request_id": true}

// Normalize renders raw JSON with sorted keys, two-space indent, no HTML
// escaping, and volatile keys removed, so goldens diff line by line.
func Normalize(raw []byte) ([]byte, error) {
	var v any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	stripVolatile(v)
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func stripVolatile(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if volatileKeys[k] {
				delete(x, k)
				continue
			}
			stripVolatile(c)
		}
	case []any:
		for _, c := range x {
			stripVolatile(c)
		}
	}
}

// NormalizeTools is the normalised tools array, sorted by tool name:
// tools/list order carries no meaning, so it must not move a golden or
// make two surfaces differ.
func NormalizeTools(raw []json.RawMessage) ([]byte, error) {
	return Normalize(ToolsArrayBytes(sortToolsByName(raw)))
}

// GoldenInitialize is the normalised initialize result minus the server
// version, which changes with every build.
func GoldenInitialize(t *Target) ([]byte, error) {
	ex, ok := t.Tap.Last("initialize")
	if !ok {
		return nil, errNoInitialize
	}
	var v map[string]any
	if err := json.Unmarshal(ex.Result, &v); err != nil {
		return nil, err
	}
	if si, ok := v["serverInfo"].(map[string]any); ok {
		delete(si, "version")
		// Icons name the origin the target was reached at; a loopback port is volatile.
		icons, _ := si["icons"].([]any)
		for _, ic := range icons {
			if m, ok := ic.(map[string]any); ok {
				if src, _ := m["src"].(string); strings.HasPrefix(src, "http") {
					if u, err := url.Parse(src); err == nil {
						m["src"] = "{origin}" + u.Path
					}
				}
			}
		}
	}
	raw, _ := json.Marshal(v)
	return Normalize(raw)
}

// GoldenTools is the target's tools/list as a golden ([NormalizeTools]).
func GoldenTools(t *Target) ([]byte, error) { return NormalizeTools(t.ToolsRaw) }

// sortToolsByName returns a copy of raw sorted by each tool's name; a tool
// whose name cannot be read sorts first, in arrival order.
func sortToolsByName(raw []json.RawMessage) []json.RawMessage {
	names := make([]string, len(raw))
	for i, r := range raw {
		var v struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(r, &v)
		names[i] = v.Name
	}
	idx := make([]int, len(raw))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return names[idx[a]] < names[idx[b]] })
	out := make([]json.RawMessage, len(raw))
	for i, j := range idx {
		out[i] = raw[j]
	}
	return out
}

type goldenError string

func (e goldenError) Error() string { return string(e) }

const errNoInitialize = goldenError("the wire tap saw no initialize result")

// A GoldenCall is a tool call whose normalised result is kept as a golden.
type GoldenCall struct {
	Name string // golden file name
	Tool string
	Args map[string]any
}

// GoldenCalls are the tool results the reference adapter's goldens cover:
// the compact global schema index and the scoped schema views.
var GoldenCalls = []GoldenCall{
	{"schema-global", "schema", map[string]any{}},
	{"schema-messages", "schema", map[string]any{"stream": "messages"}},
	{"schema-messages-cin_work", "schema", map[string]any{"stream": "messages", "connection_id": "cin_work"}},
}

// GoldenResult calls a tool and returns its normalised result.
func GoldenResult(ctx context.Context, t *Target, g GoldenCall) ([]byte, error) {
	res, err := t.Session.CallTool(ctx, &mcp.CallToolParams{Name: g.Tool, Arguments: g.Args})
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	return Normalize(raw)
}
