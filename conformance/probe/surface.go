package probe

import (
	"cmp"
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	. "github.com/onsi/gomega"
	"github.com/pdpp-connect/mcpcheck/conformance"
	"github.com/pdpp-connect/mcpcheck/conformance/dialect"
)

// ToolDescriptions returns, per tool, its description and every description
// nested in its input schema.
func ToolDescriptions(t *conformance.Target) map[string][]string {
	out := map[string][]string{}
	for i, tool := range t.Tools {
		texts := []string{tool.Description}
		var schema any
		_ = json.Unmarshal(t.ToolsRaw[i], &struct {
			InputSchema *any `json:"inputSchema"`
		}{&schema})
		collectDescriptions(schema, &texts)
		out[tool.Name] = texts
	}
	return out
}

func collectDescriptions(v any, out *[]string) {
	switch x := v.(type) {
	case map[string]any:
		if d, ok := x["description"].(string); ok {
			*out = append(*out, d)
		}
		for k, c := range x {
			if k != "description" {
				collectDescriptions(c, out)
			}
		}
	case []any:
		for _, c := range x {
			collectDescriptions(c, out)
		}
	}
}

var sentenceEnd = regexp.MustCompile(`[.!?](\s+|$)`)

// Sentences splits prose into trimmed sentences.
func Sentences(s string) []string {
	var out []string
	for _, p := range sentenceEnd.Split(s, -1) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// guidanceOnEveryTool are the sentences of four words or more, other than
// connection_id guidance, that the descriptions of every tool repeat
// verbatim, longest first, when together they make long guidance.
func guidanceOnEveryTool(descs map[string][]string) []string {
	if len(descs) < repeatedAcrossMin {
		return nil
	}
	count := map[string]int{}
	for _, texts := range descs {
		seen := map[string]bool{}
		for _, text := range texts {
			for _, s := range Sentences(text) {
				if len(strings.Fields(s)) >= 4 && !seen[s] && !connectionIDRe.MatchString(s) {
					seen[s] = true
					count[s]++
				}
			}
		}
	}
	var shared []string
	n := 0
	for s, c := range count {
		if c == len(descs) {
			shared = append(shared, s)
			n += len([]rune(s))
		}
	}
	if n < longSentence {
		return nil
	}
	slices.SortFunc(shared, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return shared
}

// repeatedGuidance finds sentences of at least minLen characters that appear
// verbatim in the descriptions of at least minTools distinct tools.
func repeatedGuidance(descs map[string][]string, minLen, minTools int) map[string][]string {
	where := map[string]map[string]bool{}
	for tool, texts := range descs {
		for _, text := range texts {
			for _, s := range Sentences(text) {
				if len([]rune(s)) < minLen {
					continue
				}
				if where[s] == nil {
					where[s] = map[string]bool{}
				}
				where[s][tool] = true
			}
		}
	}
	out := map[string][]string{}
	for s, tools := range where {
		if len(tools) >= minTools {
			for t := range tools {
				out[s] = append(out[s], t)
			}
			sort.Strings(out[s])
		}
	}
	return out
}

// InputProperties returns a tool's top-level input properties and required list.
func InputProperties(raw json.RawMessage) (map[string]json.RawMessage, []string) {
	var tool struct {
		InputSchema struct {
			Properties map[string]json.RawMessage `json:"properties"`
			Required   []string                   `json:"required"`
		} `json:"inputSchema"`
	}
	_ = json.Unmarshal(raw, &tool)
	return tool.InputSchema.Properties, tool.InputSchema.Required
}

// SchemaMentionsKey reports whether key is a property name anywhere in the schema.
func SchemaMentionsKey(v any, key string) bool {
	switch x := v.(type) {
	case map[string]any:
		if props, ok := x["properties"].(map[string]any); ok {
			if _, has := props[key]; has {
				return true
			}
		}
		for _, c := range x {
			if SchemaMentionsKey(c, key) {
				return true
			}
		}
	case []any:
		for _, c := range x {
			if SchemaMentionsKey(c, key) {
				return true
			}
		}
	}
	return false
}

// NormalizedTools is the order-insensitive form of a tools list, for
// comparing two surfaces; an invalid list reads as its error.
func NormalizedTools(raw []json.RawMessage) string {
	out, err := conformance.NormalizeTools(raw)
	if err != nil {
		return "invalid JSON: " + err.Error()
	}
	return string(out)
}

// ToolsByName indexes a tools array (as received) by tool name.
func ToolsByName(raw []json.RawMessage) map[string]json.RawMessage {
	out := map[string]json.RawMessage{}
	for _, r := range raw {
		var tool struct{ Name string }
		if json.Unmarshal(r, &tool) == nil {
			out[tool.Name] = r
		}
	}
	return out
}

// ToolNames are the names of the tools a target serves.
func ToolNames(t *conformance.Target) []string {
	names := make([]string, len(t.Tools))
	for i, tool := range t.Tools {
		names[i] = tool.Name
	}
	sort.Strings(names)
	return names
}

// FirstRunes returns the first n characters (runes) of s.
func FirstRunes(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		r = r[:n]
	}
	return string(r)
}

// Long guidance is a sentence of at least longSentence characters, and
// many tools are repeatedAcrossMin or more: mcpcheck's reading of seed
// 000's "long" and "many" (upstream's short connection_id field
// description stays below it, catalog S002).
const (
	longSentence      = 120
	repeatedAcrossMin = 3
)

var connectionIDRe = regexp.MustCompile(`\bconnection_id\b`)

// ExpectNoRepeatedConnectionGuidance judges long sentences about
// connection_id repeated verbatim across tools: on every tool that
// accepts connection_id breaks seed 000's own words; on many tools,
// mcpcheck's threshold.
func ExpectNoRepeatedConnectionGuidance(t *conformance.T) {
	accepting := toolsAccepting(t.Target, "connection_id")
	var everywhere, many []string
	for s, tools := range repeatedGuidance(ToolDescriptions(t.Target), longSentence, 2) {
		if !connectionIDRe.MatchString(s) {
			continue
		}
		switch {
		case len(accepting) >= 2 && !slices.ContainsFunc(accepting, func(a string) bool { return !slices.Contains(tools, a) }):
			everywhere = append(everywhere, s)
		case len(tools) >= repeatedAcrossMin:
			many = append(many, s+" ("+strings.Join(tools, ", ")+")")
		}
	}
	t.AssertWith(len(everywhere) == 0, func() (conformance.Witness, error) {
		descs := ToolDescriptions(t.Target)
		var in []conformance.Evidence
		for _, tool := range accepting {
			in = append(in, conformance.Shown("the "+tool+" tool's descriptions", strings.Join(descs[tool], "\n")))
		}
		return conformance.Present(everywhere[0], in...)
	}, "connection_id recovery guidance must not repeat verbatim on every tool that accepts connection_id (%s): %q",
		strings.Join(accepting, ", "), everywhere)
	t.Threshold().Expect(many).To(BeEmpty(), "long connection_id guidance (>= %d chars) should live in the instructions or one discovery tool, not repeat across %d+ tools",
		longSentence, repeatedAcrossMin)
}

// ExpectNoRepeatedGuidance judges every other long sentence repeated
// across many tool or argument descriptions: mcpcheck's threshold. Long
// guidance every tool repeats is "repeated verbatim across many tool
// schemas" under any reading of many: required.
func ExpectNoRepeatedGuidance(t *conformance.T) {
	descs := ToolDescriptions(t.Target)
	if shared := guidanceOnEveryTool(descs); len(shared) > 0 {
		t.AssertWith(false, func() (conformance.Witness, error) {
			var in []conformance.Evidence
			for _, tool := range slices.Sorted(maps.Keys(descs)) {
				in = append(in, conformance.Shown("the "+tool+" tool's descriptions", strings.Join(descs[tool], "\n")))
			}
			return conformance.Present(shared[0], in...)
		}, "guidance repeated verbatim in the descriptions of every one of the %d tools must live in the instructions or one discovery tool: %q", len(descs), shared)
	}
	var many []string
	for s, tools := range repeatedGuidance(ToolDescriptions(t.Target), longSentence, repeatedAcrossMin) {
		if !connectionIDRe.MatchString(s) {
			many = append(many, s+" ("+strings.Join(tools, ", ")+")")
		}
	}
	t.Threshold().Expect(many).To(BeEmpty(), "long cross-tool guidance (>= %d chars) should live in the instructions or one discovery tool, not repeat across %d+ tools",
		longSentence, repeatedAcrossMin)
}

// toolsAccepting lists the tools whose input schema declares arg, sorted.
func toolsAccepting(t *conformance.Target, arg string) []string {
	var out []string
	for i, tool := range t.Tools {
		if props, _ := InputProperties(t.ToolsRaw[i]); props[arg] != nil {
			out = append(out, tool.Name)
		}
	}
	sort.Strings(out)
	return out
}

// SchemaCall is one schema call, made once per target and shared by every
// check that asks the same (ScopedSchema's too).
func SchemaCall(t *conformance.T, args dialect.Args) *conformance.Call {
	key, _ := json.Marshal(args)
	return conformance.Discover(t, "schema:"+string(key), func() *conformance.Call { return t.CallRoles("schema", args) })
}

// CarriesCode reports an error typed code: as its error object's code, or
// named in its text.
func CarriesCode(c *conformance.Call, code string) bool {
	return c.ErrorCode() == code || ContainsToken(c.Text(), code)
}

// NamesArgument reports an error that names arg: in its text (a JSON-RPC
// error's message included) or anywhere in its structured error.
func NamesArgument(c *conformance.Call, arg string) bool {
	if ContainsToken(c.Text(), arg) {
		return true
	}
	if c.RPCError != nil && ContainsToken(string(c.RPCError.Data), arg) {
		return true
	}
	b, _ := json.Marshal(c.Structured())
	return ContainsToken(string(b), arg)
}

// Serves reports whether the target lists the tool.
func Serves(t *conformance.Target, tool string) bool {
	return slices.ContainsFunc(t.Tools, func(x *mcp.Tool) bool { return x.Name == tool })
}

// SampleCalls calls each read tool the target serves once, with arguments
// taken from its own answers: the schema index, a page of its first
// stream, a count over it, a search for a word of that page, a fetch and
// a field window of the first hit. A call the answers give no arguments
// for is left out.
func SampleCalls(t *conformance.T) []*conformance.Call {
	var out []*conformance.Call
	call := func(tool string, args dialect.Args) *conformance.Call {
		if !Serves(t.Target, tool) || !declares(t, tool, args) {
			return nil
		}
		c := t.CallRoles(tool, args)
		out = append(out, c)
		return c
	}
	if !Serves(t.Target, "schema") {
		return out
	}
	index := SchemaCall(t, dialect.Args{})
	if out = append(out, index); index.IsError() {
		return out
	}
	srcs := Sources(SchemaRows(index.Data()))
	if len(srcs) == 0 {
		return out
	}
	page := call("query_records", srcs[0].Roles(dialect.Args{dialect.Limit: 2}))
	call("aggregate", srcs[0].Roles(dialect.Args{dialect.Metric: "count"}))
	if page == nil || page.IsError() {
		return out
	}
	word := SearchableWord(Records(page))
	if word == "" {
		return out
	}
	found := call("search", dialect.Args{dialect.Query: word, dialect.Limit: 2})
	if found == nil || len(Hits(t, found)) == 0 {
		return out
	}
	h := Hits(t, found)[0]
	id := HitHandle(t, found, h)
	if id == "" {
		return out
	}
	call("fetch", dialect.Args{dialect.RecordID: id})
	if field := HitField(t, h); field != "" {
		call("read_record_field", dialect.Args{dialect.RecordID: id, dialect.Field: field, dialect.Length: 200})
	}
	return out
}

// declares reports whether the target declares an argument for every
// role of args on tool: a sample it cannot be asked is left out.
func declares(t *conformance.T, tool string, args dialect.Args) bool {
	for r := range args {
		if !t.HasRole(tool, r) {
			return false
		}
	}
	return true
}

// RefusedCalls calls each read tool the target serves with arguments
// naming what no grant holds, so that each answers with an error.
func RefusedCalls(t *conformance.T) []*conformance.Call {
	var out []*conformance.Call
	for _, c := range []struct {
		tool string
		args dialect.Args
	}{
		{"schema", dialect.Args{dialect.Detail: "full"}},
		{"query_records", dialect.Args{dialect.Stream: "mcpcheck_no_such_stream", dialect.Limit: 1}},
		{"aggregate", dialect.Args{dialect.Stream: "mcpcheck_no_such_stream", dialect.Metric: "count"}},
		{"search", dialect.Args{dialect.Query: "mcpcheck", dialect.Connection: "mcpcheck_no_such_connection"}},
		{"fetch", dialect.Args{dialect.RecordID: "mcpcheck-no-such-record"}},
		{"read_record_field", dialect.Args{dialect.RecordID: "mcpcheck-no-such-record", dialect.Field: "mcpcheck_no_such_field"}},
	} {
		if Serves(t.Target, c.tool) && declares(t, c.tool, c.args) {
			out = append(out, t.CallRoles(c.tool, c.args))
		}
	}
	return out
}

// DocumentingTools are the tools whose description or input schema
// mentions prefix.
func DocumentingTools(tgt *conformance.Target, prefix string) []string {
	var out []string
	for _, tool := range tgt.Tools {
		if strings.Contains(ToolDocs(tgt, tool.Name), prefix) {
			out = append(out, tool.Name)
		}
	}
	return out
}

// ToolDocs is everything a tool says about itself: its description and
// every description in its input schema.
func ToolDocs(tgt *conformance.Target, name string) string {
	return strings.Join(ToolDescriptions(tgt)[name], "\n")
}

// TakenAsID reports whether tool answers a call with uri as its id (and
// extra, field_path then its value) without an error.
func TakenAsID(t *conformance.T, tool, uri string, extra ...string) bool {
	args := dialect.Args{dialect.RecordID: uri}
	if tool == "read_record_field" {
		if len(extra) == 0 {
			return false
		}
		args[dialect.Field] = extra[0]
	}
	return !t.CallRoles(tool, args).IsError()
}

// ResourceReadable reports whether resources/read serves uri.
func ResourceReadable(t *conformance.T, uri string) bool {
	if !ServesResources(t.Target) {
		return false
	}
	rr, err := t.Target.Session.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: uri})
	return err == nil && rr != nil && len(rr.Contents) > 0
}

// ServesResources reports whether the target declares the resources
// capability.
func ServesResources(tgt *conformance.Target) bool {
	return tgt.Init != nil && tgt.Init.Capabilities != nil && tgt.Init.Capabilities.Resources != nil
}
