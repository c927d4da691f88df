package checks

import (
	"encoding/json"
	"regexp"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// A continuation is a model-callable next step found in visible text.
type continuation struct {
	Tool string
	Args map[string]any
	At   string // the text it was found in, for messages
}

// continuationRe finds "<tool> args={…}" and "<tool> {…}" in visible text.
var continuationRe = regexp.MustCompile(`\b(read_record_field|fetch|query_records|search)(?: args=| )\{`)

// continuationsIn parses every tool call with JSON arguments written into
// visible text.
func continuationsIn(text string) []continuation {
	var out []continuation
	for _, loc := range continuationRe.FindAllStringSubmatchIndex(text, -1) {
		tool := text[loc[2]:loc[3]]
		start := loc[1] - 1
		if obj, ok := jsonObjectAt(text, start); ok {
			var args map[string]any
			if json.Unmarshal([]byte(obj), &args) == nil {
				out = append(out, continuation{Tool: tool, Args: args, At: lineAround(text, start)})
			}
		}
	}
	return out
}

// jsonObjectAt returns the balanced JSON object that starts at text[i].
func jsonObjectAt(text string, i int) (string, bool) {
	depth, inStr, esc := 0, false, false
	for j := i; j < len(text); j++ {
		c := text[j]
		switch {
		case esc:
			esc = false
		case inStr && c == '\\':
			esc = true
		case c == '"':
			inStr = !inStr
		case inStr:
		case c == '{':
			depth++
		case c == '}':
			depth--
			if depth == 0 {
				return text[i : j+1], true
			}
		}
	}
	return "", false
}

func lineAround(text string, i int) string {
	start := strings.LastIndexByte(text[:i], '\n') + 1
	end := strings.IndexByte(text[i:], '\n')
	if end < 0 {
		return text[start:]
	}
	return text[start : i+end]
}

var handleURIRe = regexp.MustCompile(`pdpp://[a-z-]+/[^\s"'\\,;)\]}]+`)

// handleURIs lists the pdpp:// URIs a call shows anywhere: text,
// structuredContent and _meta.
func handleURIs(c *Call, kind string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range []string{c.Text(), string(c.Raw)} {
		for _, u := range handleURIRe.FindAllString(s, -1) {
			if strings.HasPrefix(u, "pdpp://"+kind+"/") && !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	return out
}

// An evidenceLine is one visible evidence excerpt of a search result.
type evidenceLine struct {
	ID, FieldPath, Preview, Line string
}

var (
	evFieldRe   = regexp.MustCompile(`field_path=(\S+)`)
	evIDRe      = regexp.MustCompile(`\bid=(\S+)`)
	evPreviewRe = regexp.MustCompile(`snippet="((?:[^"\\]|\\.)*)"`)
)

// evidenceLines reads the visible evidence excerpts of a search text: lines
// that name a field_path and carry a highlighted preview.
func evidenceLines(text string) []evidenceLine {
	var out []evidenceLine
	for _, line := range strings.Split(text, "\n") {
		f := evFieldRe.FindStringSubmatch(line)
		p := evPreviewRe.FindStringSubmatch(line)
		if f == nil || p == nil {
			continue
		}
		e := evidenceLine{FieldPath: f[1], Line: line}
		_ = json.Unmarshal([]byte(`"`+p[1]+`"`), &e.Preview)
		if m := evIDRe.FindStringSubmatch(line); m != nil {
			e.ID = strings.TrimRight(m[1], ".,;")
		}
		out = append(out, e)
	}
	return out
}

// hitsWithEvidence are the hits whose structuredContent carries proven
// evidence excerpts.
func hitsWithEvidence(c *Call) []hit {
	var out []hit
	for _, h := range hits(c) {
		if ex, _ := h.Raw["evidence_excerpts"].([]any); len(ex) > 0 {
			out = append(out, h)
		}
	}
	return out
}

var markedRe = regexp.MustCompile(`<mark>([^<]*)</mark>`)

// highlighted is the first highlighted term of a preview.
func highlighted(s string) string {
	if m := markedRe.FindStringSubmatch(s); m != nil {
		return m[1]
	}
	return ""
}

// aRecord is a record read back from the target: its fetch id, stream,
// connection and canonical data.
type aRecord struct {
	ID, Stream, Conn string
	Data             map[string]any
}

// scanRecords reads up to 25 records from each of the first streams of the
// index and returns the first that keep accepts.
func scanRecords(t *T, keep func(aRecord) bool) (aRecord, bool) {
	for _, r := range sampleRecords(t) {
		if keep(r) {
			return r, true
		}
	}
	return aRecord{}, false
}

// sampleRecords is the target's record sample, read once per target.
func sampleRecords(t *T) []aRecord {
	return conformance.Discover(t, "record-sample", func() []aRecord {
		_, index := schemaIndex(t)
		var out []aRecord
		for i, s := range sources(index) {
			if i == maxStreamProbes {
				break
			}
			c := t.Call("query_records", s.args(map[string]any{"limit": 25}))
			if c.IsError() {
				continue
			}
			for _, r := range records(c) {
				data, _ := r["data"].(map[string]any)
				conn := firstNonEmptyString(str(r["connection_id"]), s.conn)
				rec := aRecord{ID: conn + "/" + s.stream + ":" + str(r["id"]), Stream: s.stream, Conn: conn, Data: data}
				if conn == "" {
					rec.ID = s.stream + ":" + str(r["id"])
				}
				if data != nil {
					out = append(out, rec)
				}
			}
		}
		return out
	})
}

var base64ShapeRe = regexp.MustCompile(`^[A-Za-z0-9+/]{256,}={0,2}$`)

// looksBinary is mcpcheck's own value-shape test: a long base64 string, or
// a blob reference object.
func looksBinary(v any) bool {
	switch x := v.(type) {
	case string:
		return len(x)%4 == 0 && base64ShapeRe.MatchString(x)
	case map[string]any:
		_, id := x["blob_id"]
		_, u := x["fetch_url"]
		return id || u
	}
	return false
}
