package probe

import (
	"slices"
	"strings"

	"github.com/pdpp-connect/mcpcheck/conformance"
)

// Seed 001: the index holds "every granted stream name grouped by
// connector identity". A name belongs to the connector key written on its
// line (the nearest before it there, or else the nearest after), or, on a
// line naming no connector, to the last connector key above it (a
// heading). A name is misgrouped when it shows only under other
// connectors; a text that names no connector near it is not read as
// wrong (not understood is not absent).

// tokenPositions are where tok stands in s, not glued to word characters.
func tokenPositions(s, tok string) []int {
	var out []int
	for from := 0; tok != "" && from <= len(s)-len(tok); {
		i := strings.Index(s[from:], tok)
		if i < 0 {
			break
		}
		i += from
		end := i + len(tok)
		if (i == 0 || !isWordByte(s[i-1])) && (end == len(s) || !isWordByte(s[end])) {
			out = append(out, i)
		}
		from = i + 1
	}
	return out
}

type keyAt struct {
	key      string
	pos, end int
}

// connectorReadings are the connectors an occurrence of a name at
// [pos,end) can be read as listed under.
func connectorReadings(text string, keys []keyAt, pos, end int) []string {
	lineStart := strings.LastIndexByte(text[:pos], '\n') + 1
	lineEnd := len(text)
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		lineEnd = end + i
	}
	var before, after, heading *keyAt
	for i := range keys {
		k := &keys[i]
		switch {
		case k.pos < end && k.end > pos: // the name itself
		case k.end <= pos && k.pos >= lineStart:
			before = k
		case k.pos >= end && k.end <= lineEnd && after == nil:
			after = k
		case k.end <= lineStart:
			heading = k
		}
	}
	var out []string
	for _, k := range []*keyAt{before, after} {
		if k != nil {
			out = append(out, k.key)
		}
	}
	if len(out) == 0 && heading != nil {
		out = append(out, heading.key)
	}
	return out
}

// ExpectGroupedByConnector wants each granted stream name of truth shown
// under its own connector in text, when the grant spans connectors.
func ExpectGroupedByConnector(t *conformance.T, text string, truth []SchemaRow) {
	var connectors []string
	for _, r := range truth {
		if r.ConnectorKey != "" && !slices.Contains(connectors, r.ConnectorKey) {
			connectors = append(connectors, r.ConnectorKey)
		}
	}
	if len(connectors) < 2 {
		return
	}
	var keys []keyAt
	for _, k := range connectors {
		for _, p := range tokenPositions(text, k) {
			keys = append(keys, keyAt{k, p, p + len(k)})
		}
	}
	slices.SortFunc(keys, func(a, b keyAt) int { return a.pos - b.pos })
	for _, r := range truth {
		if r.ConnectorKey == "" {
			continue
		}
		read, right := false, false
		var under []string
		at := -1
		for _, p := range tokenPositions(text, r.Name) {
			rs := connectorReadings(text, keys, p, p+len(r.Name))
			read = read || len(rs) > 0
			right = right || slices.Contains(rs, r.ConnectorKey)
			under = append(under, rs...)
			if at < 0 && len(rs) > 0 {
				at = p
			}
		}
		t.AssertWith(!read || right, func() (conformance.Witness, error) {
			return conformance.Witness{Kind: conformance.WitnessPresent, Fact: r.Name + " under " + strings.Join(SortedCopy(under), ", "),
				In: []string{"schema {}'s content[] text, where " + r.Name + " is granted under " + r.ConnectorKey}, Excerpt: lineAt(text, at)}, nil
		}, "the index must group every granted stream name under its connector: %s is granted under %s, shown under %s", r.Name, r.ConnectorKey, strings.Join(SortedCopy(under), ", "))
	}
}

// lineAt is the line of text holding byte i, bounded.
func lineAt(text string, i int) string {
	if i < 0 {
		return ""
	}
	start := strings.LastIndexByte(text[:i], '\n') + 1
	end := len(text)
	if j := strings.IndexByte(text[i:], '\n'); j >= 0 {
		end = i + j
	}
	return conformance.ClipText(text[start:end], 200)
}
