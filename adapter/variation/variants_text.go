package variation

import (
	"bytes"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/pdpp-connect/mcpcheck/adapter"
	json "github.com/segmentio/encoding/json"
)

// Conforming variations of how the tools write what they show: labels,
// layouts, JSON formatting and highlighting. Values stay the same.

// firstLine applies f to the first line of a text.
func firstLine(text string, f func(string) string) string {
	line, rest, more := strings.Cut(text, "\n")
	if !more {
		return f(line)
	}
	return f(line) + "\n" + rest
}

var (
	cursorHandleRe  = regexp.MustCompile(` next_cursor="((?:[^"\\]|\\.)*)"\.?`)
	changesHandleRe = regexp.MustCompile(` next_changes_since="((?:[^"\\]|\\.)*)"`)
	countHandleRe   = regexp.MustCompile(` count=(exact|estimated):(\d+)`)
	firstFetchIDRe  = regexp.MustCompile(` first_fetch_id=(\S+)`)
)

// sentenceOverhead is the most the sentences add to a first line; the
// text budget gives it up, so the whole text stays within the default.
const sentenceOverhead = 48

// sentenceHandles writes query_records' and search's paging, change and
// count handles, and search's first fetch id, as sentences instead of
// key=value pairs, with the same values, in the same text budget.
func sentenceHandles() func(*Seams) {
	sentences := func(more string) func(string) string {
		return func(line string) string {
			line = strings.Replace(line, " has_more=true.", " "+more, 1)
			line = cursorHandleRe.ReplaceAllString(line, ` Next page: pass cursor "$1".`)
			line = changesHandleRe.ReplaceAllString(line, ` Resume changes: pass changes_since "$1".`)
			line = countHandleRe.ReplaceAllStringFunc(line, func(m string) string {
				s := countHandleRe.FindStringSubmatch(m)
				return " " + strings.ToUpper(s[1][:1]) + s[1][1:] + " count: " + s[2] + "."
			})
			line = firstFetchIDRe.ReplaceAllString(line, ` Fetch the first hit with id "$1".`)
			return strings.ReplaceAll(line, ".. Showing", ". Showing")
		}
	}
	return all(
		tune(func(t *adapter.Tuning) { t.TextBudget = adapter.DefaultTextBudget - sentenceOverhead }),
		onRecordsText(func(text string) string { return firstLine(text, sentences("More records exist.")) }),
		onSearchText(func(text string) string { return firstLine(text, sentences("More hits exist.")) }))
}

var (
	mixPartRe  = regexp.MustCompile(`^\{connection_id:([^,]*),connector_key:([^,]*),count:(\d+)\}$`)
	shortMixRe = regexp.MustCompile(`^\{([^:]*):(\d+)\}$`)
)

// sourceMixSentence writes search's source mix as a sentence: "Source
// mix: 3 hits from cin_a (gmail), 1 hit from cin_b (slack)."
func sourceMixSentence() func(*Seams) {
	return onSearchText(func(text string) string {
		return firstLine(text, func(line string) string { return sourceMixRe.ReplaceAllStringFunc(line, mixSentence) })
	})
}

// mixSentence rewrites one " source_mix=…." in each of its forms.
func mixSentence(m string) string {
	var parts []string
	for _, p := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(m, " source_mix="), "."), "|") {
		switch long, short := mixPartRe.FindStringSubmatch(p), shortMixRe.FindStringSubmatch(p); {
		case long != nil:
			parts = append(parts, hitCount(long[3])+" from "+long[1]+" ("+long[2]+")")
		case short != nil:
			parts = append(parts, hitCount(short[2])+" from "+short[1])
		case strings.HasPrefix(p, "more:"):
			parts = append(parts, "and "+strings.TrimPrefix(p, "more:")+" more connections")
		default:
			parts = append(parts, p)
		}
	}
	return " Source mix: " + strings.Join(parts, ", ") + "."
}

func hitCount(n string) string {
	if n == "1" {
		return "1 hit"
	}
	return n + " hits"
}

// prettyErrors writes every error object in text as indented, multi-line
// JSON, as JSON.stringify(err, null, 2) does; structuredContent keeps it.
func prettyErrors() func(*Seams) {
	return withMiddleware(onResult("", func(_ *mcp.CallToolRequest, r *result) {
		if r.errorObject() == nil {
			return
		}
		var b bytes.Buffer
		if json.Indent(&b, []byte(r.text()), "", "  ") == nil {
			r.setText(b.String())
		}
	}))
}

// reorderedFetchMirror mirrors fetch's document in content[] as the same
// object, indented, with every object's keys in reverse order.
func reorderedFetchMirror() func(*Seams) {
	return withMiddleware(onResult("fetch", func(_ *mcp.CallToolRequest, r *result) {
		var doc any
		if r.IsError || decodeJSON([]byte(r.text()), &doc) != nil {
			return
		}
		var b bytes.Buffer
		if json.Indent(&b, []byte(reversedJSON(doc)), "", "  ") == nil {
			r.setText(b.String())
		}
	}))
}

// reversedJSON is v as compact JSON, each object's keys in reverse order.
func reversedJSON(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		slices.Reverse(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = compactJSON(k) + ":" + reversedJSON(x[k])
		}
		return "{" + strings.Join(parts, ",") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = reversedJSON(e)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	return compactJSON(v)
}

var (
	markTagRe = regexp.MustCompile(`</?mark>`)
	hitLineRe = regexp.MustCompile(`(?m)^\d+\. id=.*$`)
)

// plainSnippets renders search snippets as unhighlighted prose, in
// structuredContent and in the text's hit lines. Evidence previews keep
// their marked match.
func plainSnippets() func(*Seams) {
	return all(
		onSearchResults(func(res map[string]any) {
			if s, ok := res["snippet"].(string); ok {
				res["snippet"] = markTagRe.ReplaceAllString(s, "")
			}
		}),
		onSearchText(func(text string) string {
			return hitLineRe.ReplaceAllStringFunc(text, func(l string) string { return markTagRe.ReplaceAllString(l, "") })
		}))
}

// humaneTitle names what has no source title by its source, stream and
// time written for a reader: "Work Mail · messages · 30 Jun 2026, 09:00 UTC".
func humaneTitle(source, stream, at string) string {
	if ts, err := time.Parse(time.RFC3339, at); err == nil {
		at = ts.UTC().Format("2 Jan 2006, 15:04 UTC")
	}
	var parts []string
	for _, p := range []string{source, stream, at} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, " · ")
}
